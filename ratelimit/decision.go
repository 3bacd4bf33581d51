package ratelimit

import "time"

// Decision describes the bucket that applied to one request.
type Decision struct {
	Allowed    bool
	Limit      int           // bucket capacity N
	Remaining  int           // whole tokens left after this request (>= 0)
	Reset      time.Duration // time until the bucket is full again (0 if full)
	RetryAfter time.Duration // when !Allowed: time until one token is available; 0 when allowed
}

// ResetSeconds is Reset in whole seconds, rounded up so a client waiting
// that long finds the bucket full.
func (d Decision) ResetSeconds() int {
	return ceilSeconds(d.Reset)
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up so a client
// waiting that long is allowed; at least 1 for a refusal, since Retry-After: 0
// invites an immediate retry.
func (d Decision) RetryAfterSeconds() int {
	s := ceilSeconds(d.RetryAfter)
	if !d.Allowed && s < 1 {
		return 1
	}
	return s
}

// Tighter returns the more constraining of two decisions, for when several
// buckets apply to one request: a refusal beats an allowance; between
// refusals the longer RetryAfter wins; between allowances the fewer
// Remaining, then the longer Reset. Ties go to a.
func Tighter(a, b Decision) Decision {
	if a.Allowed != b.Allowed {
		if !a.Allowed {
			return a
		}
		return b
	}
	if !a.Allowed {
		if b.RetryAfter > a.RetryAfter {
			return b
		}
		return a
	}
	if b.Remaining != a.Remaining {
		if b.Remaining < a.Remaining {
			return b
		}
		return a
	}
	if b.Reset > a.Reset {
		return b
	}
	return a
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d-1)/time.Second) + 1
}
