package ratelimit

import (
	"math/bits"
	"time"
)

const (
	// DefaultMaxKeys caps the keys one Limiter tracks. At about 64 bytes
	// a key when full, that is some 6 MB per Limiter however many
	// addresses a flood brings, while a busy deployment's real clients
	// still fit many times over.
	DefaultMaxKeys = 100_000
	// DefaultShards is enough shards that 8 busy goroutines rarely meet
	// on one mutex.
	DefaultShards = 64
	// maxShards keeps WithShards from allocating absurd shard arrays.
	maxShards = 1 << 16
)

// Option adjusts a Limiter built by New.
type Option func(*config)

type config struct {
	now       func() time.Time
	maxKeys   int
	shards    int
	newTicker func(every time.Duration) (<-chan time.Time, func())
	// shared, when set, keeps the buckets, under sharedName (shared.go).
	shared     Shared
	sharedName string
}

func defaultConfig() config {
	return config{
		now:       nil, // the monotonic clock, read through time.Since
		maxKeys:   DefaultMaxKeys,
		shards:    DefaultShards,
		newTicker: realTicker,
	}
}

// WithClock sets the clock the Limiter reads; tests pass a fake one. The
// default, also chosen by nil, is the system's monotonic clock.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithMaxKeys caps the keys tracked across all shards (default
// DefaultMaxKeys). New panics if n < 1.
func WithMaxKeys(n int) Option {
	return func(c *config) { c.maxKeys = n }
}

// WithShards sets the number of shards, rounded up to a power of two
// (default DefaultShards). New panics if n < 1.
func WithShards(n int) Option {
	return func(c *config) { c.shards = n }
}

// withTicker lets tests drive Run without waiting on real time.
func withTicker(newTicker func(time.Duration) (<-chan time.Time, func())) Option {
	return func(c *config) { c.newTicker = newTicker }
}

func realTicker(every time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(every)
	return t.C, t.Stop
}

// shardLayout settles the shard count (a power of two no larger than
// maxKeys, so every shard can hold a key) and each shard's share of the cap.
func (c config) shardLayout() (shards, perShard int) {
	shards = 1 << bits.Len(uint(min(c.shards, maxShards)-1))
	for shards > c.maxKeys {
		shards /= 2
	}
	return shards, c.maxKeys / shards
}
