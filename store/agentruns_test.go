package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// runQueue is a store whose clock moves a millisecond at every reading, so
// each claim starts after the one before, as on a real server.
type runQueue struct {
	t      *testing.T
	s      *Store
	claims map[string]string // run id → the claim that took it
}

func newRunQueue(t *testing.T, orgs ...string) runQueue {
	var mu sync.Mutex
	now := foldNow
	tick := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Millisecond)
		return now
	}
	s, err := Open(context.Background(), Config{Path: filepath.Join(t.TempDir(), "runs.db"), Schema: realSchema(t), FoldInterval: time.Hour, Now: tick})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, org := range orgs {
		if _, err := s.writer.Exec(`INSERT INTO orgs (id, name, plan, created_at) VALUES (?, ?, 'pro', 0)`, org, org); err != nil {
			t.Fatal(err)
		}
	}
	return runQueue{t, s, map[string]string{}}
}

func (q runQueue) queue(org string) string {
	q.t.Helper()
	r, err := q.s.QueueRun(context.Background(), NewRun{OrgID: org, Agent: "onboarding", Params: json.RawMessage(`{}`), RequestedBy: "usr_1"})
	if err != nil {
		q.t.Fatal(err)
	}
	return r.ID
}

func (q runQueue) claim() string {
	q.t.Helper()
	r, err := q.s.ClaimRun(context.Background())
	if err != nil {
		q.t.Fatal(err)
	}
	q.claims[r.ID] = r.Claim
	if r.Status != RunRunning {
		q.t.Fatalf("claimed run is %s", r.Status)
	}
	return r.ID
}

// order checks that RunsAhead ranks want in this order, and that the
// workers then take them in it.
func (q runQueue) order(want ...string) {
	q.t.Helper()
	for i, id := range want {
		n, err := q.s.RunsAhead(context.Background(), id)
		if err != nil {
			q.t.Fatal(err)
		}
		if n != i {
			q.t.Errorf("RunsAhead(%s) = %d, want %d", id, n, i)
		}
	}
	var got []string
	for range want {
		got = append(got, q.claim())
	}
	if !slices.Equal(got, want) {
		q.t.Fatalf("claim order %v, want %v", got, want)
	}
	if _, err := q.s.ClaimRun(context.Background()); !errors.Is(err, ErrNotFound) {
		q.t.Fatalf("queue not empty: %v", err)
	}
}

// TestClaimRunTakesTurns: organizations take turns at the workers, the one
// served longest ago first, each with its oldest run; RunsAhead counts the
// runs taken before one in that same order.
func TestClaimRunTakesTurns(t *testing.T) {
	q := newRunQueue(t, "org_a", "org_b", "org_c")

	// A fills the queue first, then B and C queue: none was ever served.
	a1, a2, a3, a4 := q.queue("org_a"), q.queue("org_a"), q.queue("org_a"), q.queue("org_a")
	b1 := q.queue("org_b")
	c1, c2 := q.queue("org_c"), q.queue("org_c")
	q.order(a1, b1, c1, a2, c2, a3, a4)
	if n, err := q.s.RunsAhead(context.Background(), a1); err != nil || n != 0 {
		t.Errorf("RunsAhead of a running run = %d, %v; want 0", n, err)
	}

	// Last served: B (b1), then C (c2), then A (a4); queued in the
	// opposite order, they are taken in that one.
	a5, c3, b2 := q.queue("org_a"), q.queue("org_c"), q.queue("org_b")
	q.order(b2, c3, a5)
}

// TestClaimRunOneWorker: with one worker, a run queued behind another
// organization's long queue is taken as soon as the running run ends.
func TestClaimRunOneWorker(t *testing.T) {
	q := newRunQueue(t, "org_a", "org_b")
	a1, a2, a3 := q.queue("org_a"), q.queue("org_a"), q.queue("org_a")
	if got := q.claim(); got != a1 {
		t.Fatalf("first claim %s, want %s", got, a1)
	}
	b1 := q.queue("org_b")
	if _, err := q.s.FinishRun(context.Background(), a1, q.claims[a1], RunResult{Status: RunCompleted}); err != nil {
		t.Fatal(err)
	}
	q.order(b1, a2, a3)
}

// TestClaimRunSameMillisecond: turns come from a counter, not the clock,
// so claims made in one millisecond (several workers woken at once) still
// alternate.
func TestClaimRunSameMillisecond(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "runs.db"), "org_a", "org_b") // its clock stands still
	defer s.Close()
	q := runQueue{t, s, map[string]string{}}
	a1, a2, a3, a4 := q.queue("org_a"), q.queue("org_a"), q.queue("org_a"), q.queue("org_a")
	b1, b2 := q.queue("org_b"), q.queue("org_b")
	q.order(a1, b1, a2, b2, a3, a4)
}

// TestClaimRunTurnsEdgeCases: runs of organizations never served order by
// their organization's oldest run in every round; a run put back in the
// queue (a shutdown) goes first again; a run carried out by id (the demo)
// takes its organization's turn like any claim.
func TestClaimRunTurnsEdgeCases(t *testing.T) {
	t.Run("never served", func(t *testing.T) {
		q := newRunQueue(t, "org_a", "org_b")
		a1, b1, b2, a2 := q.queue("org_a"), q.queue("org_b"), q.queue("org_b"), q.queue("org_a")
		q.order(a1, b1, a2, b2)
	})
	t.Run("requeued", func(t *testing.T) {
		q := newRunQueue(t, "org_a", "org_b")
		a1, b1 := q.queue("org_a"), q.queue("org_b")
		if got := q.claim(); got != a1 {
			t.Fatalf("claimed %s, want %s", got, a1)
		}
		if err := q.s.RequeueRun(context.Background(), a1, q.claims[a1]); err != nil {
			t.Fatal(err)
		}
		q.order(a1, b1)
	})
	t.Run("recovered", func(t *testing.T) {
		q := newRunQueue(t, "org_a", "org_b")
		a1, b1 := q.queue("org_a"), q.queue("org_b")
		q.claim()
		if n, _, err := q.s.RecoverRuns(context.Background(), "crash"); err != nil || n != 1 {
			t.Fatalf("recovered %d, %v", n, err)
		}
		q.order(a1, b1)
	})
	t.Run("by id", func(t *testing.T) {
		q := newRunQueue(t, "org_a", "org_b")
		b0 := q.queue("org_b")
		q.order(b0)
		a1 := q.queue("org_a")
		if _, err := q.s.ClaimRunByID(context.Background(), a1); err != nil {
			t.Fatal(err)
		}
		b1, a2 := q.queue("org_b"), q.queue("org_a")
		q.order(b1, a2)
	})
}

// BenchmarkClaimRunLongQueue: a claim, and the runs ahead of a new run,
// with 10,000 runs queued across 500 organizations (the run budget lets
// each queue 20 a minute), the claim holding the writer.
//
//	go test -run XXX -bench ClaimRunLongQueue ./store
func BenchmarkClaimRunLongQueue(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, Config{Path: filepath.Join(b.TempDir(), "runs.db"), Schema: realSchema(b), FoldInterval: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var ids []string
	for o := range 500 {
		org := fmt.Sprintf("org_%03d", o)
		if _, err := s.writer.Exec(`INSERT INTO orgs (id, name, plan, created_at) VALUES (?, ?, 'pro', 0)`, org, org); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 10_000 {
		r, err := s.QueueRun(ctx, NewRun{OrgID: fmt.Sprintf("org_%03d", i%500), Agent: "onboarding", Params: json.RawMessage(`{}`), RequestedBy: "usr_1"})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	b.Run("claim", func(b *testing.B) {
		for b.Loop() {
			r, err := s.ClaimRun(ctx)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := s.RequeueRun(ctx, r.ID, r.Claim); err != nil { // the queue stays 10,000 long
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
	b.Run("ahead", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.RunsAhead(ctx, ids[len(ids)-1]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRunLeases: a claimed run is its worker's while the lease is renewed;
// once it lapses, RecoverLapsedRuns queues it again for another worker,
// and the first worker can neither renew, finish nor requeue it; the
// second claim finishes it once. A run recovered twice is failed.
func TestRunLeases(t *testing.T) {
	var mu sync.Mutex
	now := foldNow
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	pass := func(d time.Duration) {
		mu.Lock()
		now = now.Add(d)
		mu.Unlock()
	}
	ctx := context.Background()
	s := openFolding(t, filepath.Join(t.TempDir(), "runs.db"), "org_a")
	s.now = clock
	defer s.Close()
	q := runQueue{t, s, map[string]string{}}
	id := q.queue("org_a")
	first := q.claim()
	firstClaim := q.claims[first]
	for _, step := range []struct {
		name      string
		after     time.Duration
		requeued  int
		renewable bool
	}{
		{"renewed in time", RunLease - time.Second, 0, true},
		{"renewed again", RunLease - time.Second, 0, true},
		{"lapsed", RunLease + time.Second, 1, false},
	} {
		pass(step.after)
		requeued, _, err := s.RecoverLapsedRuns(ctx, "node stopped")
		if err != nil || requeued != step.requeued {
			t.Fatalf("%s: requeued %d (%v), want %d", step.name, requeued, err, step.requeued)
		}
		if ok, err := s.RenewRun(ctx, id, firstClaim); err != nil || ok != step.renewable {
			t.Fatalf("%s: renewed %v (%v), want %v", step.name, ok, err, step.renewable)
		}
	}
	second := q.claim()
	if second != id || q.claims[id] == firstClaim {
		t.Fatalf("the lapsed run was not claimed again: %s", second)
	}
	if done, err := s.FinishRun(ctx, id, firstClaim, RunResult{Status: RunCompleted}); err != nil || done {
		t.Fatalf("the first worker finished a run taken over: %v %v", done, err)
	}
	if err := s.RequeueRun(ctx, id, firstClaim); err != nil {
		t.Fatal(err)
	}
	if done, err := s.FinishRun(ctx, id, q.claims[id], RunResult{Status: RunCompleted}); err != nil || !done {
		t.Fatalf("the second worker's finish: %v %v", done, err)
	}
	if status, _ := s.RunStatus(ctx, id); status != RunCompleted {
		t.Fatalf("status %s", status)
	}

	// Lapsing past MaxRecoveries fails the run.
	id = q.queue("org_a")
	for range MaxRecoveries {
		q.claim()
		pass(RunLease + time.Second)
		if n, _, err := s.RecoverLapsedRuns(ctx, "node stopped"); err != nil || n != 1 {
			t.Fatalf("requeued %d, %v", n, err)
		}
	}
	q.claim()
	pass(RunLease + time.Second)
	if _, failed, err := s.RecoverLapsedRuns(ctx, "node stopped"); err != nil || failed != 1 {
		t.Fatalf("failed %d, %v", failed, err)
	}
	if status, _ := s.RunStatus(ctx, id); status != RunFailed {
		t.Fatalf("status %s", status)
	}
}
