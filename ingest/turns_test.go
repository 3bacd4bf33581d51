package ingest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestTurnsTakeOrganizationsInTurn: batches queued behind a held turn are
// served one organization after another, each organization's in arrival
// order, whatever order they came in.
func TestTurnsTakeOrganizationsInTurn(t *testing.T) {
	for _, tc := range []struct {
		name   string
		arrive string // one letter per batch: its organization
		served string
		cancel int // the batch (1-based, in arrival) whose request ends while it waits; 0: none
	}{
		{"a flood and one other", "AAAAAB", "ABAAAA", 0},
		{"three tenants", "AAABBC", "ABCABA", 0},
		{"one tenant keeps its order", "AAA", "AAA", 0},
		{"a request that ends leaves the queue", "AAB", "AB", 2},
		{"the last of its organization", "ABA", "AA", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTurns()
			hold, err := tr.take(context.Background(), "X")
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var served []string
			var wg sync.WaitGroup
			waiting := 0
			for i, org := range strings.Split(tc.arrive, "") {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				wg.Add(1)
				go func() {
					defer wg.Done()
					release, err := tr.take(ctx, org)
					if err != nil {
						return
					}
					mu.Lock()
					served = append(served, org)
					mu.Unlock()
					release()
				}()
				waiting++
				for tr.queued() != waiting {
					time.Sleep(time.Millisecond) // until it is queued: arrival order is the test's
				}
				if i+1 == tc.cancel {
					cancel()
					waiting--
					for tr.queued() != waiting {
						time.Sleep(time.Millisecond)
					}
				}
			}
			hold()
			wg.Wait()
			if got := strings.Join(served, ""); got != tc.served {
				t.Fatalf("served %s, want %s", got, tc.served)
			}
			if tr.busy || len(tr.order) != 0 || len(tr.waiting) != 0 {
				t.Fatalf("left over: busy %v, order %v, waiting %v", tr.busy, tr.order, tr.waiting)
			}
		})
	}
}

// The turn is free again once every batch is through, and many senders of
// many organizations at once all get through (-race).
func TestTurnsUnderLoad(t *testing.T) {
	tr := newTurns()
	var wg sync.WaitGroup
	var mu sync.Mutex
	inside, most := 0, 0
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := tr.take(context.Background(), []string{"A", "B", "C"}[i%3])
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			inside++
			most = max(most, inside)
			mu.Unlock()
			mu.Lock()
			inside--
			mu.Unlock()
			release()
		}()
	}
	wg.Wait()
	if most != 1 || tr.busy || tr.queued() != 0 {
		t.Fatalf("%d at once, busy %v", most, tr.busy)
	}
}
