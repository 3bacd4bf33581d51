package store_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"garrison/alerting"
	"garrison/event"
	"garrison/ratelimit"
	"garrison/store"
	"garrison/store/storetest"
)

// Two nodes on one PostgreSQL database ingest into one organization at
// once: every event is stored once with its own seq, both nodes count and
// find all of them (whichever folds), and a burst split between the nodes
// raises one alert counting every event of it.
func TestNodesShareOneDatabase(t *testing.T) {
	url := storetest.Postgres(t)
	ctx := context.Background()
	nodes := []*store.Store{
		storetest.OpenWith(t, store.Config{Database: url}),
		storetest.OpenWith(t, store.Config{Database: url, FoldInterval: time.Hour}), // only the first folds on its own
	}
	u := storetest.Account(t, nodes[0], "shared")
	start := time.Now().Add(-time.Minute).Truncate(time.Second)
	const workers, batches, perBatch = 3, 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, len(nodes)*workers)
	for n, st := range nodes {
		for w := range workers {
			wg.Go(func() {
				for b := range batches {
					var evs []store.NewEvent
					for i := range perBatch {
						evs = append(evs, store.NewEvent{Type: event.TypeThreat, Severity: event.Low, Timestamp: start.Add(time.Duration(i) * time.Millisecond),
							Source: "sensor", Asset: "ws-1", Message: fmt.Sprintf("probe node%d worker%d batch%d event%d", n, w, b, i)})
					}
					if _, err := st.Ingest(ctx, u.OrgID, evs, nil); err != nil {
						errs <- err
						return
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	const total = 2 * workers * batches * perBatch
	for i, st := range nodes {
		c, err := st.CountEventsSince(ctx, u.OrgID, start.Add(-time.Hour))
		if err != nil || c.Total != total {
			t.Fatalf("node %d counts %d events (%v), want %d", i, c.Total, err, total)
		}
		found, n, err := st.Events(ctx, u.OrgID, store.EventFilter{Search: event.Search{Text: "probe"}, Page: store.Page{Limit: 500}})
		if err != nil || n != total || len(found) != total {
			t.Fatalf("node %d finds %d of %d events (%v), want %d", i, len(found), n, err, total)
		}
		alerts, n, err := st.Alerts(ctx, u.OrgID, alerting.Filter{Limit: 10})
		if err != nil || n != 1 || alerts[0].EventCount != total {
			t.Fatalf("node %d: %d alerts (%v), want one of %d events: %+v", i, n, err, total, alerts)
		}
	}
	// The second node folds what it and the first stored, and the first
	// counts from what the second folded.
	if err := nodes[1].Fold(ctx); err != nil {
		t.Fatal(err)
	}
	for i, st := range nodes {
		if c, err := st.CountEventsSince(ctx, u.OrgID, start.Add(-time.Hour)); err != nil || c.Total != total {
			t.Fatalf("after the fold node %d counts %d events (%v), want %d", i, c.Total, err, total)
		}
	}
}

// One node at a time leads a task; when the leader stops (its session
// ends), another takes over, well within 15 s.
func TestOneLeaderAtATime(t *testing.T) {
	url := storetest.Postgres(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	type node struct {
		st   *store.Store
		stop context.CancelFunc
		done chan struct{}
	}
	var mu sync.Mutex
	leading := map[int]bool{}
	most := 0
	took := make(chan int, 10)
	nodes := make([]node, 3)
	for i := range nodes {
		st := storetest.OpenWith(t, store.Config{Database: url})
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		nodes[i] = node{st, stop, done}
		go func() {
			defer close(done)
			st.Lead(ctx, "test-task", log, func(ctx context.Context) {
				mu.Lock()
				leading[i] = true
				most = max(most, len(leading))
				mu.Unlock()
				took <- i
				<-ctx.Done()
				mu.Lock()
				delete(leading, i)
				mu.Unlock()
			})
		}()
	}
	first := <-took
	nodes[first].stop() // the leader stops leading: its lock goes
	<-nodes[first].done
	start := time.Now()
	select {
	case next := <-took:
		if next == first {
			t.Fatalf("node %d led again after stopping", next)
		}
		if d := time.Since(start); d > 15*time.Second {
			t.Fatalf("took over after %s", d)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no node took the task over within 15 s")
	}
	for _, n := range nodes {
		n.stop()
		<-n.done
	}
	if most != 1 {
		t.Fatalf("%d nodes led at once", most)
	}
}

// The nodes' shared rate buckets: requests racing on two nodes for one
// bucket of 10 are allowed 10 times in all.
func TestSharedRateBuckets(t *testing.T) {
	url := storetest.Postgres(t)
	nodes := []*store.Store{storetest.OpenWith(t, store.Config{Database: url}), storetest.OpenWith(t, store.Config{Database: url})}
	limit := ratelimit.Limit{N: 10, Window: time.Minute}
	now := time.Now()
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			_, ok, err := nodes[i%2].Take(context.Background(), "login", "203.0.113.9", limit, now, true)
			if err != nil {
				t.Error(err)
			}
			if ok {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if allowed.Load() != 10 {
		t.Fatalf("%d of 30 allowed, want 10", allowed.Load())
	}
	tokens, ok, err := nodes[0].Take(context.Background(), "login", "203.0.113.9", limit, now.Add(12*time.Second), true)
	if err != nil || !ok || tokens < 0.99 || tokens > 1.01 {
		t.Fatalf("12 s later: %v tokens left, %v, %v (want 1 after taking one of 2)", tokens, ok, err)
	}
}

// A shared bucket's arithmetic on either engine: a bucket of 10 allows 10
// takes at once, refuses the eleventh, and gives one back in 6 s; a peek
// spends nothing.
func TestRateBucketOnEachEngine(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, engine string) {
		st := storetest.OpenOn(t, engine, store.Config{})
		limit := ratelimit.Limit{N: 10, Window: time.Minute}
		now := time.Now()
		take := func(at time.Time, consume bool) bool {
			_, ok, err := st.Take(context.Background(), "login", "198.51.100.7", limit, at, consume)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		for i := range 10 {
			if !take(now, true) {
				t.Fatalf("take %d refused", i+1)
			}
		}
		if take(now, true) || take(now, false) {
			t.Fatal("an empty bucket allowed a take or a peek")
		}
		if !take(now.Add(6*time.Second), false) || !take(now.Add(6*time.Second), true) || take(now.Add(6*time.Second), true) {
			t.Fatal("6 s later: want one token back, spent once")
		}
	})
}
