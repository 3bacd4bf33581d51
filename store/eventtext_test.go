package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/event"
)

// Text search's pages, newest or oldest first at any offset, and its
// totals equal a brute-force pass over the same events: enough of them to
// span several blocks and chunks, most in time order and some late, in
// two organizations sharing the words.
func TestTextSearchAgainstBruteForce(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 12,000 events; skipped with -short")
	}
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a", "org_b")
	defer s.Close()
	rng := rand.New(rand.NewPCG(7, 9))
	words := []string{"alpha", "beta.gamma", "delta", "x-ray", "42"}
	type stored struct {
		id, org string
		ts      int64
		seq     int
		text    string
		sev     event.Severity
	}
	var all []stored
	start := foldNow.Add(-72 * time.Hour)
	for batch := range 24 {
		org := []string{"org_a", "org_b"}[batch%2]
		var evs []NewEvent
		for i := range 500 {
			at := start.Add(time.Duration(batch*500+i) * 10 * time.Second)
			if rng.IntN(20) == 0 { // a late arrival, up to a day old
				at = at.Add(-time.Duration(rng.IntN(86400)) * time.Second)
			}
			msg := fmt.Sprintf("event %s and %s", words[rng.IntN(len(words))], words[rng.IntN(len(words))])
			if batch == 0 && i == 7 { // in the first block, from a sensor whose clock runs days ahead
				at, msg = at.Add(96*time.Hour), "event alpha and 42"
			}
			if batch == 10 && i == 7 { // a backlog days old
				at, msg = start.Add(-48*time.Hour), "event alpha and 42"
			}
			evs = append(evs, NewEvent{Type: event.TypePolicy, Severity: event.Severity(rng.IntN(3)), Timestamp: at.Truncate(time.Minute),
				Source: "edr", Asset: "ws-1", Message: msg})
		}
		ids, err := s.Ingest(context.Background(), org, evs, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range evs {
			all = append(all, stored{ids[i], org, ms(e.Timestamp), len(all), e.Message, e.Severity})
		}
	}
	holds := func(text, q string) bool {
		for _, w := range strings.Fields(q) {
			found := false
			for _, h := range strings.Fields(text) {
				found = found || h == w || slices.Contains(strings.FieldsFunc(h, func(r rune) bool { return r == '.' || r == '-' }), w)
			}
			if !found {
				return false
			}
		}
		return true
	}
	for _, c := range []struct {
		q        string
		asc      bool
		offset   int
		limit    int // 50 when 0; -1 for none, a count alone
		severity []event.Severity
	}{
		{q: "alpha"}, {q: "alpha", asc: true}, {q: "gamma", offset: 700}, {q: "beta.gamma 42"},
		{q: "x-ray", asc: true, offset: 1500}, {q: "ray alpha", severity: []event.Severity{event.Low}},
		{q: "42", offset: 5000}, {q: "missing"}, {q: "alpha", limit: -1},
	} {
		t.Run(fmt.Sprintf("%s asc=%v offset=%d", c.q, c.asc, c.offset), func(t *testing.T) {
			var want []stored
			for _, e := range all {
				if e.org == "org_a" && holds(e.text, c.q) && (c.severity == nil || slices.Contains(c.severity, e.sev)) {
					want = append(want, e)
				}
			}
			slices.SortFunc(want, func(a, b stored) int {
				if a.ts != b.ts {
					return int(b.ts - a.ts)
				}
				return b.seq - a.seq
			})
			if c.asc {
				slices.Reverse(want)
			}
			limit := map[int]int{0: 50, -1: 0}[c.limit]
			f := EventFilter{Search: event.Search{Text: c.q}, Ascending: c.asc, Severities: c.severity, Page: Page{Limit: limit, Offset: c.offset}}
			got, total, err := s.Events(context.Background(), "org_a", f)
			if err != nil {
				t.Fatal(err)
			}
			page := want[min(c.offset, len(want)):min(c.offset+limit, len(want))]
			if total != len(want) || len(got) != len(page) {
				t.Fatalf("total %d, page %d; brute force %d, %d", total, len(got), len(want), len(page))
			}
			for i := range page {
				if got[i].ID != page[i].id {
					t.Fatalf("at %d: %s (%s), want %s (%s)", i, got[i].ID, got[i].Timestamp, page[i].id, fromMS(page[i].ts))
				}
			}
		})
	}
	// Each organization's events are indexed under its own number, and
	// leave the index with their rows, pruned or with their organization.
	indexed := func(num string) int {
		var n int
		if err := s.writer.QueryRow(`SELECT COUNT(*) FROM event_text WHERE event_text MATCH ?`,
			strings.ReplaceAll(textMatch([]string{"event"}), "#", num)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if a, b := indexed("1"), indexed("2"); a != 6000 || b != 6000 {
		t.Fatalf("indexed: org_a %d, org_b %d", a, b)
	}
	foldAll(t, s)
	keep := foldNow.Sub(start.Add(24 * time.Hour))
	for {
		n, err := s.PruneEvents(context.Background(), foldNow, keep)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	var left int
	s.writer.QueryRow(`SELECT COUNT(*) FROM events WHERE org = 1`).Scan(&left)
	if left == 6000 || left == 0 || indexed("1") != left {
		t.Fatalf("after pruning, org_a keeps %d events, %d indexed", left, indexed("1"))
	}
	if _, err := s.DeleteOrg(context.Background(), "org_b"); err != nil {
		t.Fatal(err)
	}
	if a, b := indexed("1"), indexed("2"); a != left || b != 0 {
		t.Fatalf("after deleting org_b, indexed: org_a %d, org_b %d", a, b)
	}
	// What is left of the index is what is left of the events: every
	// token's count, checked through the index's own integrity check.
	if _, err := s.writer.Exec(`INSERT INTO event_text (event_text, rank) VALUES ('integrity-check', 0)`); err != nil {
		t.Fatalf("the index after deletes: %v", err)
	}
	if got, _, err := s.Events(context.Background(), "org_a", EventFilter{Search: event.Search{Text: "alpha"}, Page: Page{Limit: 1}}); err != nil || len(got) != 1 {
		t.Fatalf("a search after the deletes: %v %v", got, err)
	}
}

// A page's bounds read the final blocks from memory and the newest as
// its snapshot holds them: the newest time through a block, the oldest
// from one on.
func TestBlockView(t *testing.T) {
	var held timeBlocks
	for b, r := range [][2]int64{{10, 20}, {5, 50}, {30, 40}, {60, 70}} {
		held.add(int64(b), r[0], r[1])
	}
	v := blockView{t: &held, final: 3, tail: []blockRange{{3, 55, 90}, {4, 1, 100}}}
	for _, c := range []struct{ b, newest, oldest int64 }{
		{0, 20, 1}, {1, 50, 1}, {2, 50, 1}, {3, 90, 1}, {4, 100, 1}, {5, 100, 1 << 62},
	} {
		if got := v.newestThrough(c.b); got != c.newest {
			t.Errorf("newest through block %d: %d, want %d", c.b, got, c.newest)
		}
		if got := v.oldestFrom(c.b); got != c.oldest {
			t.Errorf("oldest from block %d: %d, want %d", c.b, got, c.oldest)
		}
	}
	v.tail = []blockRange{{3, 55, 90}}
	for _, c := range []struct{ b, oldest int64 }{{0, 5}, {1, 5}, {2, 30}, {3, 55}} {
		if got := v.oldestFrom(c.b); got != c.oldest {
			t.Errorf("without block 4, oldest from block %d: %d, want %d", c.b, got, c.oldest)
		}
	}
}

// A text search's total is kept and brought up to date with the events
// since, and counted again after words leave the index: each equals a
// count of the events holding the word, and the kept total is the one
// the next search starts from.
func TestTextTotalsKeptExact(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	ctx := context.Background()
	start := foldNow.Add(-72 * time.Hour)
	stored := 0
	ingest := func(n int, at time.Time) {
		t.Helper()
		var evs []NewEvent
		for i := range n {
			msg := "quiet"
			if i%3 == 0 {
				msg = "beacon to 203.0.113.9"
			}
			evs = append(evs, NewEvent{Type: event.TypePolicy, Severity: event.Low, Timestamp: at.Add(time.Duration(i) * time.Second),
				Source: "edr", Asset: "ws-1", Message: msg})
		}
		if _, err := s.Ingest(ctx, "org_a", evs, nil); err != nil {
			t.Fatal(err)
		}
		stored += n
	}
	want := func() int {
		var n int
		if err := s.writer.QueryRow(`SELECT COUNT(*) FROM events WHERE message LIKE 'beacon%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	kept := func() textCount {
		s.textCounts.mu.Lock()
		defer s.textCounts.mu.Unlock()
		for _, c := range s.textCounts.kept {
			return c
		}
		return textCount{n: -1}
	}
	search := func(step string) {
		t.Helper()
		_, total, err := s.Events(ctx, "org_a", EventFilter{Search: event.Search{Text: "beacon"}, Page: Page{Limit: 10}})
		if err != nil {
			t.Fatal(err)
		}
		if w := want(); total != w || kept().n != w || kept().through != int64(stored) {
			t.Fatalf("%s: total %d, kept %+v; %d events hold the word, %d stored", step, total, kept(), w, stored)
		}
	}
	ingest(3000, start)
	search("first count")
	ingest(900, start.Add(48*time.Hour))
	search("kept total and the events since")
	search("kept total alone")
	foldAll(t, s)
	if n, err := s.PruneEvents(ctx, foldNow, foldNow.Sub(start.Add(time.Hour))); err != nil || n == 0 {
		t.Fatalf("prune: %d, %v", n, err)
	}
	if c := kept(); c.deletes != 0 {
		t.Fatalf("kept before the prune: %+v", c)
	}
	_, total, err := s.Events(ctx, "org_a", EventFilter{Search: event.Search{Text: "beacon"}, Page: Page{Limit: 10}})
	if w := want(); err != nil || total != w || kept().deletes != 1 || kept().n != w {
		t.Fatalf("after the prune: total %d, kept %+v, err %v; %d events hold the word", total, kept(), err, w)
	}
}
