package ratelimit

import (
	"context"
	"fmt"
	"hash/maphash"
	"testing"
	"time"
)

func TestSweepEvictsOnlyRefilledBuckets(t *testing.T) {
	// 10/1m: one token back every 6s.
	l, clock := newTestLimiter(Limit{N: 10, Window: time.Minute})
	l.Allow("one")     // full again after 6s
	l.Allow("three")   // full again after 18s
	l.Allow("three")   //
	l.Allow("three")   //
	l.Peek("peeked")   // never tracked
	l.Allow("refused") // drained below, full after 60s
	for range 10 {
		l.Allow("refused")
	}

	steps := []struct {
		advance time.Duration
		wantLen int
	}{
		{0, 3},
		{6*time.Second - 1, 3},
		{1, 2}, // "one" is full
		{12 * time.Second, 1},
		{42 * time.Second, 0},
	}
	for i, step := range steps {
		clock.Advance(step.advance)
		l.Sweep()
		if got := l.Len(); got != step.wantLen {
			t.Fatalf("step %d: Len = %d, want %d", i, got, step.wantLen)
		}
	}
}

func TestSweepKeepsStateOfSurvivors(t *testing.T) {
	l, clock := newTestLimiter(Limit{N: 10, Window: time.Minute})
	for range 4 {
		l.Allow("k")
	}
	clock.Advance(6 * time.Second)
	l.Sweep()
	if d := l.Peek("k"); d.Remaining != 7 || d.Reset != 18*time.Second {
		t.Fatalf("after Sweep: got %+v, want Remaining 7, Reset 18s", d)
	}
}

func TestCapHoldsUnderFlood(t *testing.T) {
	tests := []struct {
		name            string
		maxKeys, shards int
		wantCap         int
	}{
		{"even split", 64, 4, 64},
		{"rounded down to the shards", 100, 8, 96},
		{"fewer keys than shards", 10, 64, 8},
		{"one key", 1, 64, 1},
		{"shards rounded up to a power of two", 60, 3, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := Limit{N: 2, Window: time.Minute}
			l, _ := newTestLimiter(limit, WithMaxKeys(tt.maxKeys), WithShards(tt.shards))
			allowed := 0
			for i := range 5000 {
				if l.Allow(fmt.Sprintf("flood-%d", i)).Allowed {
					allowed++
				}
			}
			if got := l.Len(); got != tt.wantCap || got > tt.maxKeys {
				t.Fatalf("Len = %d after the flood, want %d (cap %d)", got, tt.wantCap, tt.maxKeys)
			}
			// Tracked keys got a token each; the overflow buckets gave N
			// per shard to everyone else together.
			shards := len(l.shards)
			if maxAllowed := tt.wantCap + limit.N*shards; allowed > maxAllowed {
				t.Fatalf("flood got %d requests through, want at most %d", allowed, maxAllowed)
			}
		})
	}
}

func TestOverflowThrottlesNewKeysButNotTrackedOnes(t *testing.T) {
	limit := Limit{N: 2, Window: time.Minute} // one token per 30s
	l, clock := newTestLimiter(limit, WithMaxKeys(16), WithShards(1))

	l.Allow("old") // tracked before the flood, one token left
	for i := range 1000 {
		key := fmt.Sprintf("flood-%d", i)
		l.Allow(key) // tracked flood keys drain completely,
		l.Allow(key) // so none is evictable for a minute
	}
	if l.Len() != 16 {
		t.Fatalf("Len = %d, want the cap of 16", l.Len())
	}

	// The overflow bucket is spent: an untracked key is refused, whoever
	// it is, and Peek agrees.
	if d := l.Allow("newcomer"); d.Allowed || d.RetryAfter != 30*time.Second {
		t.Fatalf("untracked key after the flood: got %+v, want refused for 30s", d)
	}
	if d := l.Peek("another-newcomer"); d.Allowed {
		t.Fatalf("Peek of an untracked key: got %+v, want the spent overflow bucket", d)
	}

	// The tracked key still has its own bucket.
	if d := l.Allow("old"); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("tracked key during the flood: got %+v, want its last token", d)
	}
	if d := l.Allow("old"); d.Allowed || d.RetryAfter != 30*time.Second {
		t.Fatalf("tracked key, drained: got %+v, want refused for 30s", d)
	}
	clock.Advance(30 * time.Second)
	if d := l.Allow("old"); !d.Allowed {
		t.Fatalf("tracked key after 30s: got %+v, want allowed", d)
	}

	// The overflow bucket refills like any other: one newcomer gets
	// through, the next does not.
	if d := l.Allow("newcomer"); !d.Allowed {
		t.Fatalf("overflow after 30s: got %+v, want one token", d)
	}
	if d := l.Allow("newcomer-2"); d.Allowed {
		t.Fatalf("overflow, second newcomer: got %+v, want refused", d)
	}
	if l.Len() != 16 {
		t.Fatalf("Len = %d, want the cap of 16", l.Len())
	}

	// Once the flood's buckets have refilled they make way.
	clock.Advance(30 * time.Second)
	if d := l.Allow("newcomer-3"); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("after the flood refilled: got %+v, want a fresh bucket", d)
	}
}

func TestFullShardEvictsRefilledBucketsForNewKeys(t *testing.T) {
	limit := Limit{N: 2, Window: time.Minute}
	l, clock := newTestLimiter(limit, WithMaxKeys(4), WithShards(1))
	for i := range 4 {
		l.Allow(fmt.Sprintf("k%d", i))
	}
	l.Allow("k0") // k0 drained: needs the full minute
	if d := l.Allow("late"); !d.Allowed {
		t.Fatalf("first overflow request: got %+v", d)
	}

	// After 30s everyone but k0 has refilled: the next newcomer takes a
	// freed slot and gets its own fresh bucket.
	clock.Advance(30 * time.Second)
	if d := l.Allow("late"); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("newcomer after refills: got %+v, want a fresh bucket", d)
	}
	if got := l.Len(); got != 2 {
		t.Fatalf("Len = %d, want k0 and the newcomer", got)
	}
	if d := l.Peek("k0"); d.Remaining != 1 {
		t.Fatalf("k0 lost its state: %+v", d)
	}
}

func TestFullShardScansAtMostEveryInterval(t *testing.T) {
	limit := Limit{N: 1000, Window: time.Second} // a token per ms
	l, clock := newTestLimiter(limit, WithMaxKeys(2), WithShards(1))
	tracked := func(key string) bool {
		s := &l.shards[0]
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.buckets.find(hashOf(maphash.String(l.seed, key))) != nil
	}
	l.Allow("a")
	l.Allow("b")
	l.Allow("c") // full: scans, frees nothing, c goes to overflow
	clock.Advance(time.Millisecond)
	l.Allow("d") // a and b have refilled, but the last scan was too recent
	if !tracked("a") || !tracked("b") || tracked("c") || tracked("d") {
		t.Fatalf("within the scan interval the tracked keys changed")
	}
	clock.Advance(evictScanInterval)
	if d := l.Allow("e"); !d.Allowed || d.Remaining != limit.N-1 || !tracked("e") {
		t.Fatalf("after the scan interval: got %+v, want a fresh tracked bucket", d)
	}
	if got := l.Len(); got != 1 {
		t.Fatalf("Len = %d, want only e", got)
	}
}

func TestSweepHandsBackMemoryAfterAFlood(t *testing.T) {
	l, clock := newTestLimiter(Limit{N: 5, Window: time.Minute}, WithShards(1), WithMaxKeys(10_000))
	for i := range 5000 {
		l.Allow(fmt.Sprintf("flood-%d", i))
	}
	l.Allow("stays")
	l.Allow("stays")
	clock.Advance(12*time.Second + 1)
	l.Sweep()
	if got := l.Len(); got != 1 {
		t.Fatalf("Len = %d after sweeping the flood, want 1", got)
	}
	if slots := len(l.shards[0].buckets.slots); slots != minTableSlots {
		t.Fatalf("table was not shrunk: %d slots", slots)
	}
	if d := l.Peek("stays"); d.Remaining != 4 {
		t.Fatalf("survivor after rebuild: %+v, want Remaining 4", d)
	}
}

func TestRunSweepsOnEachTickUntilCancelled(t *testing.T) {
	ticks := make(chan time.Time)
	stopped := make(chan struct{})
	fakeTicker := func(every time.Duration) (<-chan time.Time, func()) {
		if every != time.Minute {
			t.Errorf("ticker interval %s, want 1m", every)
		}
		return ticks, func() { close(stopped) }
	}
	l, clock := newTestLimiter(Limit{N: 10, Window: time.Minute}, withTicker(fakeTicker))
	l.Allow("k")

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		l.Run(ctx, time.Minute)
		close(done)
	}()

	ticks <- time.Time{} // a sweep with nothing refilled
	clock.Advance(6 * time.Second)
	ticks <- time.Time{} // Run took it, so the first sweep is over
	ticks <- time.Time{} // and now the second is too
	if got := l.Len(); got != 0 {
		t.Fatalf("Len = %d after a tick, want 0", got)
	}

	cancel()
	<-done
	<-stopped
}

func TestRunReturnsWhenContextIsDone(t *testing.T) {
	l := New(Limit{N: 1, Window: time.Second})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	l.Run(ctx, time.Hour) // returns rather than blocking the test
}

func TestRunPanicsOnNonPositiveInterval(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Run(0) did not panic")
		}
	}()
	New(Limit{N: 1, Window: time.Second}).Run(t.Context(), 0)
}
