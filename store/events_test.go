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
	// Few distinct times, so ties are common; batch 2 is another
	// organization's, and the fold runs after batch 3: half folded, half not.
	all := seedBatches(t, s, r, 6, 40, 2, 3, func() time.Time { return foldNow.Add(-time.Duration(r.IntN(30)) * time.Minute) })
	filters := []EventFilter{
		{}, {Ascending: true}, {Severities: []event.Severity{event.High, event.Critical}},
		{Severities: []event.Severity{event.Info, event.Medium, event.Critical}, Ascending: true},
		{Severities: []event.Severity{event.Low}}, {Types: []string{event.TypeDNS, event.TypePolicy}},
		{Severities: []event.Severity{event.High, event.Low}, Types: []string{event.TypeThreat}},
		{SortBySeverity: true}, {SortBySeverity: true, Ascending: true, Severities: []event.Severity{event.Info, event.High}},
	}
	for _, f := range filters {
		for _, page := range []Page{{Limit: 7}, {Limit: 7, Offset: 7}, {Limit: 50, Offset: 3}, {Limit: 200}, {Limit: 5, Offset: 500}} {
			f.Page = page
			checkPage(t, s, "org_a", all, f)
		}
	}
}

// TestDeepPagesMatchBruteForce: a deep page, found by counting whole hours
// (seek), is the page OFFSET would give, for every filter, order and range,
// with events on hour boundaries, empty hours, and some not folded yet.
func TestDeepPagesMatchBruteForce(t *testing.T) {
	defer func(d int) { deepPage = d }(deepPage)
	deepPage = 1
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a", "org_b")
	defer s.Close()
	r := rand.New(rand.NewPCG(3, 4))
	start := foldNow.Add(-72 * time.Hour)
	// Whole hours, half-hours and odd minutes over three days, a third of
	// the hours empty; most events folded, the rest not.
	all := seedBatches(t, s, r, 8, 60, 3, 5, func() time.Time {
		hour := r.IntN(72)
		if hour%3 == 1 {
			hour--
		}
		return start.Add(time.Duration(hour)*time.Hour + time.Duration(r.IntN(3))*30*time.Minute + time.Duration(r.IntN(2))*time.Minute)
	})
	at := func(h, m int) *time.Time {
		v := start.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
		return &v
	}
	filters := []EventFilter{
		{}, {Ascending: true}, {Severities: []event.Severity{event.High, event.Critical}},
		{Severities: []event.Severity{event.Info, event.Medium}, Ascending: true},
		{Severities: []event.Severity{event.Low}}, {Types: []string{event.TypeDNS, event.TypePolicy}, Ascending: true},
		{From: at(5, 17), To: at(60, 30)}, {From: at(5, 0), To: at(60, 0), Ascending: true},
		{From: at(30, 1), Severities: []event.Severity{event.Critical}}, {To: at(40, 59), Ascending: true},
		{From: at(10, 30), To: at(10, 45)}, // inside one hour: nothing to seek
	}
	for _, f := range filters {
		for _, offset := range []int{0, 1, 2, 17, 60, 99, 150, 201, 333, 400, 419, 420, 421, 500} {
			f.Page = Page{Limit: 7, Offset: offset}
			checkPage(t, s, "org_a", all, f)
		}
	}
}

// storedEvent is an event as the test sent it, with its arrival order.
type storedEvent struct {
	seq int
	e   NewEvent
}

// seedBatches ingests batches of n random events at the times when gives:
// batch other goes to org_b, the rest to org_a, whose events it returns in
// arrival order; the fold runs after batch foldAfter.
func seedBatches(t *testing.T, s *Store, r *rand.Rand, batches, n, other, foldAfter int, when func() time.Time) []storedEvent {
	t.Helper()
	var all []storedEvent
	for batch := range batches {
		evs := make([]NewEvent, n)
		for i := range evs {
			evs[i] = NewEvent{Type: event.Types[r.IntN(4)], Severity: event.Severity(r.IntN(event.Levels)),
				Timestamp: when(), Source: "s", Asset: fmt.Sprint("h", r.IntN(5)), Message: "m"}
		}
		if batch == other {
			ingest(t, s, "org_b", evs...)
		} else {
			ingest(t, s, "org_a", evs...)
			for _, e := range evs {
				all = append(all, storedEvent{len(all), e})
			}
		}
		if batch == foldAfter {
			foldAll(t, s)
		}
	}
	return all
}

// checkPage compares one page and total of Events with the same slice of
// all, filtered and sorted by brute force.
func checkPage(t *testing.T, s *Store, org string, all []storedEvent, f EventFilter) {
	t.Helper()
	var want []storedEvent
	for _, st := range all {
		ts := st.e.Timestamp.UTC().Truncate(time.Millisecond)
		if (len(f.Severities) == 0 || slices.Contains(f.Severities, st.e.Severity)) &&
			(len(f.Types) == 0 || slices.Contains(f.Types, st.e.Type)) &&
			(f.From == nil || !ts.Before(*f.From)) && (f.To == nil || !ts.After(*f.To)) {
			want = append(want, st)
		}
	}
	slices.SortFunc(want, func(a, b storedEvent) int {
		c := cmp.Or(cmp.Compare(a.e.Timestamp.UnixMilli(), b.e.Timestamp.UnixMilli()), cmp.Compare(a.seq, b.seq))
		if f.SortBySeverity {
			c = cmp.Or(cmp.Compare(a.e.Severity, b.e.Severity), c)
		}
		if !f.Ascending {
			c = -c
		}
		return c
	})
	got, total, err := s.Events(context.Background(), org, f)
	if err != nil {
		t.Fatal(err)
	}
	if total != len(want) {
		t.Fatalf("filter %+v: total %d, want %d", f, total, len(want))
	}
	expect := want[min(f.Page.Offset, len(want)):min(f.Page.Offset+f.Page.Limit, len(want))]
	if len(got) != len(expect) {
		t.Fatalf("filter %+v: %d events, want %d", f, len(got), len(expect))
	}
	for j := range got {
		w := expect[j].e
		if got[j].Severity != w.Severity || !got[j].Timestamp.Equal(w.Timestamp.UTC().Truncate(time.Millisecond)) ||
			got[j].Type != w.Type || got[j].Asset != w.Asset {
			t.Fatalf("filter %+v: event %d is %+v, want %+v", f, j, got[j], w)
		}
	}
}
