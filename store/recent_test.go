package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"garrison/event"
)

// TestRecentCountsStayExact: window counts served from the hours held in
// memory equal a count of the events themselves, through ingests, folds,
// loads at any moment, concurrent folding, eviction and the clock moving
// hours out of the span.
func TestRecentCountsStayExact(t *testing.T) {
	now := foldNow
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s, err := Open(context.Background(), Config{Path: filepath.Join(t.TempDir(), "g.db"), Schema: realSchema(t), FoldInterval: time.Hour, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, org := range []string{"org_a", "org_b"} {
		s.writer.Exec(`INSERT INTO orgs (id, name, plan, created_at) VALUES (?, ?, 'pro', 0)`, org, org)
	}
	r := rand.New(rand.NewPCG(3, 4))
	check := func(step string) {
		t.Helper()
		for _, org := range []string{"org_a", "org_b"} {
			for _, back := range []time.Duration{0, time.Hour, 24 * time.Hour, 7 * 24 * time.Hour, 9 * 24 * time.Hour} {
				since := clock().Add(-back)
				got, err := s.CountEventsSince(context.Background(), org, since)
				if err != nil {
					t.Fatal(err)
				}
				var want, high int
				s.reader.QueryRow(`SELECT COUNT(*), COALESCE(SUM(severity >= 3), 0) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?) AND ts >= ?`,
					org, floorMS(ms(since), hourMS)).Scan(&want, &high)
				if got.Total != want || got.BySeverity.AtLeast(event.High) != high {
					t.Fatalf("%s, %s since %v ago: %d (%d high), want %d (%d high)", step, org, back, got.Total,
						got.BySeverity.AtLeast(event.High), want, high)
				}
			}
		}
	}
	for step := range 30 {
		org := []string{"org_a", "org_b"}[r.IntN(2)]
		var evs []NewEvent
		for range 1 + r.IntN(40) {
			evs = append(evs, NewEvent{Type: event.Types[r.IntN(4)], Severity: event.Severity(r.IntN(event.Levels)),
				Timestamp: clock().Add(-time.Duration(r.Int64N(int64(10 * 24 * time.Hour)))), Source: "s",
				Asset: fmt.Sprint("h", r.IntN(9)), Message: "m"})
		}
		ingest(t, s, org, evs...)
		switch r.IntN(5) {
		case 0:
			foldAll(t, s)
		case 1: // a fold racing the reads
			var wg sync.WaitGroup
			wg.Go(func() { s.settle(context.Background()) })
			check(fmt.Sprint("step ", step, " during a fold"))
			wg.Wait()
		case 2:
			mu.Lock()
			now = now.Add(time.Duration(r.IntN(30)) * time.Hour) // hours leave the span
			mu.Unlock()
		case 3:
			s.recent.mu.Lock()
			s.recent.orgs = nil // evicted: reloaded when read
			s.recent.mu.Unlock()
		}
		check(fmt.Sprint("step ", step))
	}
	if len(s.recent.orgs) == 0 {
		t.Fatal("nothing was served from memory: the test proves nothing")
	}
}
