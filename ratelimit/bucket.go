package ratelimit

import "time"

// bucket is one key's token bucket, kept to 16 bytes because there may be
// hundreds of thousands of them.
//
// Tokens are counted in fixed point: one token is `window` credits and the
// bucket refills N credits per nanosecond, so N tokens per window come back
// exactly, with no rounding drift. Times are nanoseconds since the Limiter
// was created, read through the injected clock's monotonic reading when it
// has one.
type bucket struct {
	credit int64 // tokens × window; full at n × window
	stamp  int64 // when credit was last brought up to date
}

// rate is a Limit in the units bucket works in.
type rate struct {
	n      int64 // capacity in tokens, also credits refilled per nanosecond
	window int64 // credits per token, also the full-refill time in ns
	full   int64 // n × window, the credit of a full bucket
}

func newRate(l Limit) rate {
	n, w := int64(l.N), int64(l.Window)
	return rate{n: n, window: w, full: n * w}
}

func fullBucket(now int64, r rate) bucket {
	return bucket{credit: r.full, stamp: now}
}

// refill brings b up to now. A clock that went backwards refills nothing.
func (b *bucket) refill(now int64, r rate) {
	if now <= b.stamp {
		return
	}
	elapsed := now - b.stamp
	b.stamp = now
	// elapsed < 0 means the subtraction overflowed: a very long time.
	if elapsed < 0 || elapsed >= r.window || elapsed*r.n >= r.full-b.credit {
		b.credit = r.full
		return
	}
	b.credit += elapsed * r.n
}

// take refills b and, when consume is set and a whole token is there,
// spends it. It reports the bucket's state afterwards.
func (b *bucket) take(now int64, r rate, consume bool) Decision {
	b.refill(now, r)
	allowed := b.credit >= r.window
	if allowed && consume {
		b.credit -= r.window
	}
	d := Decision{
		Allowed:   allowed,
		Limit:     int(r.n),
		Remaining: int(b.credit / r.window),
		Reset:     time.Duration(ceilDiv(r.full-b.credit, r.n)),
	}
	if !allowed {
		d.RetryAfter = time.Duration(ceilDiv(r.window-b.credit, r.n))
	}
	return d
}

// fullAt is when b will have refilled completely, after which it can be
// forgotten.
func (b *bucket) fullAt(r rate) int64 {
	return b.stamp + ceilDiv(r.full-b.credit, r.n)
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a-1)/b + 1
}
