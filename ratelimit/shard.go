package ratelimit

import (
	"math"
	"sync"
	"time"
)

// evictScanInterval spaces out the scans a full shard makes when new keys
// arrive, so a flood of fresh addresses costs a scan per shard at most this
// often rather than one per request.
const evictScanInterval = 100 * time.Millisecond

// shard is one mutex and the buckets whose key hashes land on it.
type shard struct {
	mu       sync.Mutex
	buckets  table
	overflow bucket // shared by keys that found the shard full
	capacity int

	// A scan of a full shard only happens once both have passed:
	// earliestFull is a lower bound on when any tracked bucket refills, and
	// nextScan spaces scans evictScanInterval apart.
	earliestFull int64
	nextScan     int64

	_ [64]byte // keep neighbouring shards' locks off one cache line
}

func (s *shard) init(capacity int, r rate) {
	s.buckets = newTable(0)
	s.capacity = capacity
	s.overflow = fullBucket(math.MinInt64, r)
	s.earliestFull = math.MinInt64
	s.nextScan = math.MinInt64
}

// take answers Allow (consume) and Peek (!consume) for the key hashed to h.
func (s *shard) take(h uint64, now int64, r rate, consume bool) Decision {
	h = hashOf(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.buckets.find(h); b != nil {
		if !consume {
			peeked := *b // a peek leaves the bucket as it was
			b = &peeked
		}
		return b.take(now, r, consume)
	}
	if !s.makeRoom(now, r) {
		if !consume {
			peeked := s.overflow
			return peeked.take(now, r, false)
		}
		return s.overflow.take(now, r, true)
	}
	fresh := fullBucket(now, r)
	if !consume {
		return fresh.take(now, r, false)
	}
	d := fresh.take(now, r, true)
	s.buckets.insert(h, fresh)
	s.earliestFull = min(s.earliestFull, fresh.fullAt(r))
	return d
}

// makeRoom reports whether a new key can be tracked, evicting refilled
// buckets when the shard is full and a scan is due.
func (s *shard) makeRoom(now int64, r rate) bool {
	if s.buckets.len() < s.capacity {
		return true
	}
	if now < s.earliestFull || now < s.nextScan {
		return false
	}
	s.evictRefilled(now, r)
	s.nextScan = now + int64(evictScanInterval)
	return s.buckets.len() < s.capacity
}

// evictRefilled drops the buckets that are full at now and records when the
// next of the survivors will be.
func (s *shard) evictRefilled(now int64, r rate) {
	earliest := int64(math.MaxInt64)
	s.buckets.deleteFunc(func(b *bucket) bool {
		at := b.fullAt(r)
		if at <= now {
			return true
		}
		earliest = min(earliest, at)
		return false
	})
	s.earliestFull = earliest
}

func (s *shard) sweep(now int64, r rate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evictRefilled(now, r)
	s.buckets.shrink()
}

func (s *shard) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buckets.len()
}
