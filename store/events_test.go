package store

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"garrison/event"
)

// TestEventPagesMatchBruteForce: every page of every filter and order is
// the slice of the events sorted by (severity,) time, then arrival, and the
// total is exact, folded or not.
func TestEventPagesMatchBruteForce(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a", "org_b")
	defer s.Close()
	r := rand.New(rand.NewPCG(1, 2))
	type stored struct {
		seq int
		e   NewEvent
	}
	var all []stored
	for batch := range 6 {
		var evs []NewEvent
		for range 40 {
			// Few distinct times, so ties are common.
			evs = append(evs, NewEvent{Type: event.Types[r.IntN(4)], Severity: event.Severity(r.IntN(event.Levels)),
				Timestamp: foldNow.Add(-time.Duration(r.IntN(30)) * time.Minute), Source: "s", Asset: fmt.Sprint("h", r.IntN(5)), Message: "m"})
		}
		org := "org_a"
		if batch == 2 {
			org = "org_b"
		}
		ingest(t, s, org, evs...)
		if org == "org_a" {
			for _, e := range evs {
				all = append(all, stored{len(all), e})
			}
		}
		if batch == 3 {
			foldAll(t, s) // half folded, half not
		}
	}
	filters := []EventFilter{
		{}, {Ascending: true}, {Severities: []event.Severity{event.High, event.Critical}},
		{Severities: []event.Severity{event.Info, event.Medium, event.Critical}, Ascending: true},
		{Severities: []event.Severity{event.Low}}, {Types: []string{event.TypeDNS, event.TypePolicy}},
		{Severities: []event.Severity{event.High, event.Low}, Types: []string{event.TypeThreat}},
		{SortBySeverity: true}, {SortBySeverity: true, Ascending: true, Severities: []event.Severity{event.Info, event.High}},
	}
	for i, f := range filters {
		var want []stored
		for _, st := range all {
			if (len(f.Severities) == 0 || slices.Contains(f.Severities, st.e.Severity)) &&
				(len(f.Types) == 0 || slices.Contains(f.Types, st.e.Type)) {
				want = append(want, st)
			}
		}
		slices.SortFunc(want, func(a, b stored) int {
			c := cmp.Or(cmp.Compare(a.e.Timestamp.UnixMilli(), b.e.Timestamp.UnixMilli()), cmp.Compare(a.seq, b.seq))
			if f.SortBySeverity {
				c = cmp.Or(cmp.Compare(a.e.Severity, b.e.Severity), c)
			}
			if !f.Ascending {
				c = -c
			}
			return c
		})
		for _, page := range []Page{{Limit: 7}, {Limit: 7, Offset: 7}, {Limit: 50, Offset: 3}, {Limit: 200}, {Limit: 5, Offset: 500}} {
			f.Page = page
			got, total, err := s.Events(context.Background(), "org_a", f)
			if err != nil {
				t.Fatal(err)
			}
			if total != len(want) {
				t.Fatalf("filter %d: total %d, want %d", i, total, len(want))
			}
			end := min(page.Offset+page.Limit, len(want))
			expect := want[min(page.Offset, len(want)):end]
			if len(got) != len(expect) {
				t.Fatalf("filter %d page %+v: %d events, want %d", i, page, len(got), len(expect))
			}
			for j := range got {
				w := expect[j].e
				if got[j].Severity != w.Severity || !got[j].Timestamp.Equal(w.Timestamp.UTC().Truncate(time.Millisecond)) ||
					got[j].Type != w.Type || got[j].Asset != w.Asset {
					t.Fatalf("filter %d page %+v: event %d is %+v, want %+v", i, page, j, got[j], w)
				}
			}
		}
	}
}
