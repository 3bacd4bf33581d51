package triage

import (
	"math"
	"reflect"
	"slices"
	"sync"
	"testing"
)

// FuzzClassify checks the invariants every answer must keep, whatever the
// ticket: no panic, a known category, a confidence in [0, 1] with two
// decimals, a valid priority, and the same answer twice.
func FuzzClassify(f *testing.F) {
	f.Add("Locked out", "my account is locked, please unlock")
	f.Add("", "")
	f.Add("print\x00blueprint", "\xff\xfe can't \u2019 won’t")
	categories := map[string]bool{}
	for _, a := range KnowledgeBase() {
		categories[a.Category] = true
	}
	f.Fuzz(func(t *testing.T, subject, description string) {
		r := Classify(subject, description)
		if !categories[r.Category] {
			t.Fatalf("category %q is not in the knowledge base", r.Category)
		}
		if !(r.Confidence >= 0 && r.Confidence <= 1) {
			t.Fatalf("confidence %v outside [0, 1]", r.Confidence)
		}
		if c := r.Confidence * 100; math.Abs(c-math.Round(c)) > 1e-9 {
			t.Fatalf("confidence %v not rounded to 2 decimals", r.Confidence)
		}
		if !slices.Contains(levels, r.Priority) {
			t.Fatalf("priority %q", r.Priority)
		}
		if len(r.Steps) < 5 || len(r.Reasons) == 0 || r.Evidence == nil {
			t.Fatalf("incomplete result %+v", r)
		}
		if r.Category == generalCategory && r.Confidence > hintConfCap {
			t.Fatalf("general with confidence %v", r.Confidence)
		}
		if again := Classify(subject, description); !reflect.DeepEqual(r, again) {
			t.Fatalf("not deterministic:\n%+v\n%+v", r, again)
		}
	})
}

// TestConcurrentClassify gives -race something to look at: Classify shares
// only the read-only index.
func TestConcurrentClassify(t *testing.T) {
	var wg sync.WaitGroup
	for _, tickets := range realistic {
		for _, tk := range tickets {
			want := Classify(tk.subject, tk.description)
			wg.Go(func() {
				for range 20 {
					if got := Classify(tk.subject, tk.description); !reflect.DeepEqual(got, want) {
						t.Errorf("Classify(%q) changed under concurrency", tk.subject)
						return
					}
				}
			})
		}
	}
	wg.Wait()
}
