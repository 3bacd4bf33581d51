package ratelimit

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// mapShared is a Shared over a map, as a database keeps it; down makes it
// fail.
type mapShared struct {
	mu     sync.Mutex
	tokens map[string]float64
	at     map[string]time.Time
	down   bool
	takes  int
}

func (m *mapShared) Take(_ context.Context, name, key string, l Limit, now time.Time, consume bool) (float64, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return 0, false, errors.New("database out of reach")
	}
	m.takes++
	k := name + "/" + key
	if _, ok := m.tokens[k]; !ok {
		m.tokens[k], m.at[k] = float64(l.N), now
	}
	after, ok := Refill(l, m.tokens[k], m.at[k], now, consume)
	m.tokens[k], m.at[k] = after, now
	return after, ok, nil
}

// Two limiters on one Shared (two nodes) hold one limit between them;
// their decisions say what a single bucket's would; when the Shared fails
// each falls back on its own buckets.
func TestSharedLimit(t *testing.T) {
	now := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	shared := &mapShared{tokens: map[string]float64{}, at: map[string]time.Time{}}
	limit := Limit{N: 10, Window: time.Minute}
	nodes := []*Limiter{New(limit, WithClock(clock), WithShared(shared, "login")), New(limit, WithClock(clock), WithShared(shared, "login"))}
	single := New(limit, WithClock(clock))
	for i := range 12 {
		got, want := nodes[i%2].Allow("203.0.113.9"), single.Allow("203.0.113.9")
		if got != want {
			t.Fatalf("request %d: shared %+v, one bucket %+v", i, got, want)
		}
	}
	now = now.Add(6 * time.Second) // one token back
	if got, want := nodes[0].Peek("203.0.113.9"), single.Peek("203.0.113.9"); got != want {
		t.Fatalf("peek: shared %+v, one bucket %+v", got, want)
	}
	if d := nodes[1].Allow("203.0.113.9"); !d.Allowed || nodes[0].Allow("203.0.113.9").Allowed {
		t.Fatal("the token that came back was taken twice")
	}
	shared.down = true
	for i := range 10 {
		if !nodes[0].Allow("203.0.113.9").Allowed {
			t.Fatalf("with the database down, the node's own bucket refused request %d of 10", i)
		}
	}
	if nodes[0].Allow("203.0.113.9").Allowed {
		t.Fatal("with the database down, the node's own bucket did not hold")
	}
}

func TestRefill(t *testing.T) {
	l := Limit{N: 4, Window: 4 * time.Second}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		tokens  float64
		after   time.Duration
		consume bool
		want    float64
		ok      bool
	}{
		{4, 0, true, 3, true},
		{0, 0, true, 0, false},
		{0, 500 * time.Millisecond, true, 0.5, false},
		{0, time.Second, true, 0, true},
		{0, time.Hour, false, 4, true},
		{2, -time.Hour, true, 1, true}, // a clock behind refills nothing
	} {
		got, ok := Refill(l, c.tokens, at, at.Add(c.after), c.consume)
		if got != c.want || ok != c.ok {
			t.Errorf("Refill(%v, +%s, %v) = %v %v, want %v %v", c.tokens, c.after, c.consume, got, ok, c.want, c.ok)
		}
	}
}
