package ratelimit

import (
	"context"
	"fmt"
	"hash/maphash"
	"time"
)

// Limiter applies one Limit to many keys. It is safe for concurrent use.
type Limiter struct {
	limit     Limit
	rate      rate
	now       func() time.Time // nil: the system clock
	epoch     time.Time        // bucket times count from here
	seed      maphash.Seed
	shards    []shard
	shardMask uint64
	newTicker func(time.Duration) (<-chan time.Time, func())
	// shared keeps the buckets with other processes' (shared.go); the
	// shards answer when it does not.
	shared     Shared
	sharedName string
}

// New returns a Limiter applying limit to each key. It panics on a limit
// that Limit validation refuses (ParseLimits never returns one) or on
// nonsensical options, as both are programming errors.
func New(limit Limit, opts ...Option) *Limiter {
	if err := limit.validate(); err != nil {
		panic(fmt.Sprintf("ratelimit.New: limit %s: %v", limit, err))
	}
	cfg := defaultConfig()
	for _, opt := range opts {
		opt(&cfg)
	}
	switch {
	case cfg.maxKeys < 1:
		panic(fmt.Sprintf("ratelimit.New: WithMaxKeys(%d): need at least 1", cfg.maxKeys))
	case cfg.shards < 1:
		panic(fmt.Sprintf("ratelimit.New: WithShards(%d): need at least 1", cfg.shards))
	}
	nShards, perShard := cfg.shardLayout()
	l := &Limiter{
		limit:      limit,
		rate:       newRate(limit),
		now:        cfg.now,
		epoch:      time.Now(),
		seed:       maphash.MakeSeed(),
		shards:     make([]shard, nShards),
		shardMask:  uint64(nShards - 1),
		newTicker:  cfg.newTicker,
		shared:     cfg.shared,
		sharedName: cfg.sharedName,
	}
	if l.now != nil {
		l.epoch = l.now()
	}
	for i := range l.shards {
		l.shards[i].init(perShard, l.rate)
	}
	return l
}

// Allow consumes one token from key's bucket if one is available.
func (l *Limiter) Allow(key string) Decision {
	if l.shared != nil {
		if d, ok := l.sharedTake(key, true); ok {
			return d
		}
	}
	h := maphash.String(l.seed, key)
	return l.shards[h&l.shardMask].take(h, l.clock(), l.rate, true)
}

// Peek reports key's bucket without consuming, for headers on requests that
// did not go through this bucket.
func (l *Limiter) Peek(key string) Decision {
	if l.shared != nil {
		if d, ok := l.sharedTake(key, false); ok {
			return d
		}
	}
	h := maphash.String(l.seed, key)
	return l.shards[h&l.shardMask].take(h, l.clock(), l.rate, false)
}

// Limit returns the limit every bucket of l applies.
func (l *Limiter) Limit() Limit { return l.limit }

// Len returns the number of keys tracked.
func (l *Limiter) Len() int {
	n := 0
	for i := range l.shards {
		n += l.shards[i].len()
	}
	return n
}

// Sweep forgets every bucket that has refilled completely; forgetting a
// full bucket changes no answer.
func (l *Limiter) Sweep() {
	for i := range l.shards {
		l.shards[i].sweep(l.clock(), l.rate)
	}
}

// Run sweeps every interval until ctx is done, then returns. It panics if
// every is not positive.
func (l *Limiter) Run(ctx context.Context, every time.Duration) {
	if every <= 0 {
		panic(fmt.Sprintf("ratelimit: Run(%s): interval must be positive", every))
	}
	ticks, stop := l.newTicker(every)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			l.Sweep()
		}
	}
}

// clock is the time now in bucket units. Time.Sub uses the monotonic
// reading when both times carry one, so wall-clock steps do not refill;
// time.Since reads only that clock, which halves the cost of Allow's most
// expensive step.
func (l *Limiter) clock() int64 {
	if l.now == nil {
		return int64(time.Since(l.epoch))
	}
	return int64(l.now().Sub(l.epoch))
}
