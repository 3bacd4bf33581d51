package ratelimit

import (
	"sync"
	"time"
)

// fakeClock is a clock that only moves when a test says so.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newTestLimiter returns a limiter on a fresh fake clock.
func newTestLimiter(limit Limit, opts ...Option) (*Limiter, *fakeClock) {
	clock := newFakeClock()
	return New(limit, append([]Option{WithClock(clock.Now)}, opts...)...), clock
}
