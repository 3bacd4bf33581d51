package detection

import (
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// bruteFind is what find must report: every needle at every place it
// occurs, found by looking.
func bruteFind(needles []string, text string) []int32 {
	var out []int32
	for i := 0; i < len(text); i++ {
		for n, needle := range needles {
			if needle != "" && strings.HasPrefix(text[i:], needle) {
				out = append(out, int32(n))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func TestAutomatonAgainstBruteForce(t *testing.T) {
	cases := []struct {
		needles []string
		text    string
	}{
		{[]string{"he", "she", "his", "hers"}, "ushers"},
		{[]string{"a", "aa", "aaa"}, "aaaa"},
		{[]string{"\\cmd.exe", "cmd", ".exe"}, "c:\\windows\\system32\\cmd.exe /c whoami.exe"},
		{[]string{"abcd", "bc", "c"}, "xabcabcdx"},
		{[]string{"x"}, ""},
		{[]string{"needle"}, "haystack"},
	}
	// Random ones over a small alphabet, where needles overlap a lot,
	// and roots wide enough to step by table.
	r := rand.New(rand.NewPCG(1, 2))
	word := func(alphabet string, max int) string {
		b := make([]byte, 1+r.IntN(max))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 300 {
		alphabet := "abc"
		if r.IntN(2) == 0 {
			alphabet = "abcdefghijklmnop"
		}
		var needles []string
		for range 1 + r.IntN(20) {
			needles = append(needles, word(alphabet, 5))
		}
		cases = append(cases, struct {
			needles []string
			text    string
		}{needles, word(alphabet, 60)})
	}
	for _, c := range cases {
		a := newAutomaton(c.needles)
		var got []int32
		a.find(c.text, func(n int32) { got = append(got, n) })
		sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
		if want := bruteFind(c.needles, c.text); !equalInts(got, want) {
			t.Fatalf("needles %q in %q: found %v, want %v", c.needles, c.text, got, want)
		}
	}
}

func equalInts(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNeedlesHeldByEveryMatch: whenever a rule fires on a regression
// event, the event holds one of the rule's needles in the field it names:
// the promise the engine's index rests on.
func TestNeedlesHeldByEveryMatch(t *testing.T) {
	set := needRegression(t)
	checked := 0
	for _, c := range set.cases {
		for _, e := range c.events {
			for _, r := range set.engine.MatchEach(e.fields, e.sources, nil) {
				needles, ok := r.Needles()
				if !ok {
					continue
				}
				held := false
				for _, n := range needles {
					for field, v := range e.fields {
						if (n.Field == "" || n.Field == field) && strings.Contains(strings.ToLower(v), n.Text) {
							held = true
						}
					}
				}
				if !held {
					t.Errorf("%q fires on %s, which holds none of its needles %v", r.Title, e.file, needles)
				}
				checked++
			}
		}
	}
	if checked < 150 {
		t.Fatalf("only %d matches had needles to check", checked)
	}
}
