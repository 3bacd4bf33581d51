package ratelimit

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// awkwardLimits includes windows that N does not divide into whole
// nanoseconds, where rounding mistakes would show.
var awkwardLimits = []Limit{
	{N: 1, Window: time.Hour},
	{N: 3, Window: 10 * time.Second},
	{N: 5, Window: time.Minute},
	{N: 7, Window: time.Minute},
	{N: 10, Window: time.Minute},
	{N: 100, Window: time.Minute},
	{N: 1000, Window: time.Second},
	{N: 3, Window: 10 * time.Nanosecond},
}

func TestAllowExhaustsThenRefuses(t *testing.T) {
	for _, limit := range awkwardLimits {
		t.Run(limit.String(), func(t *testing.T) {
			l, clock := newTestLimiter(limit)
			for i := 1; i <= limit.N; i++ {
				d := l.Allow("k")
				if !d.Allowed || d.Remaining != limit.N-i || d.Limit != limit.N || d.RetryAfter != 0 {
					t.Fatalf("request %d: got %+v, want allowed with Remaining %d", i, d, limit.N-i)
				}
			}
			d := l.Allow("k")
			wantRetry := ceilDuration(limit.Window, limit.N)
			if d.Allowed || d.Remaining != 0 || d.RetryAfter != wantRetry || d.Reset != limit.Window {
				t.Fatalf("request %d: got %+v, want refused, RetryAfter %s, Reset %s", limit.N+1, d, wantRetry, limit.Window)
			}

			// RetryAfter is exact: a nanosecond early is still refused.
			clock.Advance(d.RetryAfter - 1)
			if early := l.Allow("k"); early.Allowed {
				t.Fatalf("1ns before RetryAfter: allowed %+v", early)
			}
			clock.Advance(1)
			if onTime := l.Allow("k"); !onTime.Allowed || onTime.Remaining != 0 {
				t.Fatalf("at RetryAfter: got %+v, want allowed with Remaining 0", onTime)
			}
		})
	}
}

func TestRetryAfterSecondsSuffices(t *testing.T) {
	for _, limit := range awkwardLimits {
		t.Run(limit.String(), func(t *testing.T) {
			l, clock := newTestLimiter(limit)
			for range limit.N {
				l.Allow("k")
			}
			// Keep hammering: every refusal's advice must work.
			for round := range 5 {
				d := l.Allow("k")
				if d.Allowed {
					t.Fatalf("round %d: expected a refusal, got %+v", round, d)
				}
				if d.RetryAfterSeconds() < 1 {
					t.Fatalf("round %d: RetryAfterSeconds %d, want >= 1", round, d.RetryAfterSeconds())
				}
				clock.Advance(time.Duration(d.RetryAfterSeconds()) * time.Second)
				if again := l.Allow("k"); !again.Allowed {
					t.Fatalf("round %d: refused after waiting %ds: %+v", round, d.RetryAfterSeconds(), again)
				}
				// Drain what the wait refilled so the next round starts refused.
				for l.Allow("k").Allowed {
				}
			}
		})
	}
}

func TestKeysAreIndependent(t *testing.T) {
	l, _ := newTestLimiter(Limit{N: 2, Window: time.Minute})
	l.Allow("a")
	l.Allow("a")
	if d := l.Allow("a"); d.Allowed {
		t.Fatalf("a: third request allowed: %+v", d)
	}
	for _, key := range []string{"b", "c", ""} {
		if d := l.Allow(key); !d.Allowed || d.Remaining != 1 {
			t.Fatalf("%q: got %+v, want a fresh bucket", key, d)
		}
	}
	if got := l.Len(); got != 4 {
		t.Fatalf("Len = %d, want 4", got)
	}
}

func TestRefillIsContinuous(t *testing.T) {
	// 10/1m refills one token every 6s.
	l, clock := newTestLimiter(Limit{N: 10, Window: time.Minute})
	for range 10 {
		l.Allow("k")
	}
	steps := []struct {
		advance time.Duration
		allow   bool // Allow rather than Peek
		want    Decision
	}{
		{3 * time.Second, true, Decision{Allowed: false, Limit: 10, Remaining: 0, Reset: 57 * time.Second, RetryAfter: 3 * time.Second}},
		{3 * time.Second, true, Decision{Allowed: true, Limit: 10, Remaining: 0, Reset: time.Minute}},
		{30 * time.Second, false, Decision{Allowed: true, Limit: 10, Remaining: 5, Reset: 30 * time.Second}},
		{time.Second, false, Decision{Allowed: true, Limit: 10, Remaining: 5, Reset: 29 * time.Second}},
		{time.Hour, false, Decision{Allowed: true, Limit: 10, Remaining: 10}},
		// Idle time does not bank tokens beyond N.
		{0, true, Decision{Allowed: true, Limit: 10, Remaining: 9, Reset: 6 * time.Second}},
	}
	for i, step := range steps {
		clock.Advance(step.advance)
		var got Decision
		if step.allow {
			got = l.Allow("k")
		} else {
			got = l.Peek("k")
		}
		if got != step.want {
			t.Fatalf("step %d: got %+v, want %+v", i, got, step.want)
		}
	}
}

func TestReset(t *testing.T) {
	tests := []struct {
		name        string
		limit       Limit
		requests    int
		advance     time.Duration
		wantReset   time.Duration
		wantSeconds int
	}{
		{"one request", Limit{N: 10, Window: time.Minute}, 1, 0, 6 * time.Second, 6},
		{"three requests", Limit{N: 10, Window: time.Minute}, 3, 0, 18 * time.Second, 18},
		{"three requests then 3s", Limit{N: 10, Window: time.Minute}, 3, 3 * time.Second, 15 * time.Second, 15},
		{"refilled", Limit{N: 10, Window: time.Minute}, 3, 18 * time.Second, 0, 0},
		{"rounds up", Limit{N: 7, Window: time.Minute}, 1, 0, ceilDuration(time.Minute, 7), 9},
		{"exhausted", Limit{N: 5, Window: time.Minute}, 5, 0, time.Minute, 60},
		{"sub-second rounds up to 1", Limit{N: 1000, Window: time.Second}, 1, 0, time.Millisecond, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, clock := newTestLimiter(tt.limit)
			for range tt.requests {
				l.Allow("k")
			}
			clock.Advance(tt.advance)
			d := l.Peek("k")
			if d.Reset != tt.wantReset || d.ResetSeconds() != tt.wantSeconds {
				t.Fatalf("Reset = %s (%ds), want %s (%ds)", d.Reset, d.ResetSeconds(), tt.wantReset, tt.wantSeconds)
			}
		})
	}
}

func TestPeekDoesNotConsume(t *testing.T) {
	l, _ := newTestLimiter(Limit{N: 3, Window: time.Minute})

	fresh := l.Peek("new")
	if want := (Decision{Allowed: true, Limit: 3, Remaining: 3}); fresh != want {
		t.Fatalf("Peek of an unseen key: got %+v, want %+v", fresh, want)
	}
	if l.Len() != 0 {
		t.Fatalf("Peek started tracking a key: Len = %d", l.Len())
	}

	l.Allow("k")
	for range 10 {
		if d := l.Peek("k"); !d.Allowed || d.Remaining != 2 {
			t.Fatalf("Peek after one Allow: got %+v, want Remaining 2", d)
		}
	}
	l.Allow("k")
	l.Allow("k")
	d := l.Peek("k")
	if d.Allowed || d.Remaining != 0 || d.RetryAfter != 20*time.Second {
		t.Fatalf("Peek of an empty bucket: got %+v, want refused, RetryAfter 20s", d)
	}
}

func TestClockGoingBackwardsRefillsNothing(t *testing.T) {
	l, clock := newTestLimiter(Limit{N: 2, Window: time.Minute})
	l.Allow("k")
	l.Allow("k")
	clock.Advance(-time.Hour)
	if d := l.Allow("k"); d.Allowed {
		t.Fatalf("allowed after the clock went back: %+v", d)
	}
	clock.Advance(time.Hour + 30*time.Second)
	if d := l.Allow("k"); !d.Allowed {
		t.Fatalf("refused once the clock caught up: %+v", d)
	}
}

func TestConcurrentAllowGrantsExactlyN(t *testing.T) {
	const n, goroutines, perGoroutine = 100, 8, 50
	l, _ := newTestLimiter(Limit{N: n, Window: time.Minute})
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				if l.Allow("shared").Allowed {
					allowed.Add(1)
				}
				l.Allow(fmt.Sprintf("own-%d-%d", g, i))
				l.Peek("shared")
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != n {
		t.Fatalf("allowed %d requests on one key, want exactly %d", got, n)
	}
}

func TestLimitAccessor(t *testing.T) {
	limit := Limit{N: 20, Window: time.Minute}
	if got := New(limit).Limit(); got != limit {
		t.Fatalf("Limit() = %v, want %v", got, limit)
	}
}

func TestNewPanicsOnNonsense(t *testing.T) {
	ok := Limit{N: 1, Window: time.Second}
	tests := []struct {
		name  string
		limit Limit
		opts  []Option
	}{
		{"zero count", Limit{N: 0, Window: time.Second}, nil},
		{"zero window", Limit{N: 1}, nil},
		{"negative window", Limit{N: 1, Window: -time.Second}, nil},
		{"overflowing", Limit{N: 1 << 40, Window: 1000 * time.Hour}, nil},
		{"zero max keys", ok, []Option{WithMaxKeys(0)}},
		{"zero shards", ok, []Option{WithShards(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("New did not panic")
				}
			}()
			New(tt.limit, tt.opts...)
		})
	}
}

func ceilDuration(window time.Duration, n int) time.Duration {
	return (window + time.Duration(n) - 1) / time.Duration(n)
}

func TestSystemClockByDefault(t *testing.T) {
	for _, l := range []*Limiter{New(Limit{N: 2, Window: time.Hour}), New(Limit{N: 2, Window: time.Hour}, WithClock(nil))} {
		l.Allow("k")
		if d := l.Allow("k"); !d.Allowed || d.Remaining != 0 {
			t.Fatalf("second request: %+v", d)
		}
		if d := l.Allow("k"); d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > 30*time.Minute {
			t.Fatalf("third request: %+v, want refused for at most 30m", d)
		}
	}
}
