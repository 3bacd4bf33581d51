package ratelimit

import (
	"context"
	"math"
	"time"
)

// Shared keeps buckets several processes draw from: a cluster's nodes
// share their low-volume buckets (sign-in, agent runs) through their
// database, so a limit holds for the cluster, not per node.
type Shared interface {
	// Take brings the bucket (name, key) of limit up to now, spends a
	// token when consume is set and one is there, and returns the tokens
	// left and whether one was there. A bucket never seen is full.
	Take(ctx context.Context, name, key string, limit Limit, now time.Time, consume bool) (tokens float64, allowed bool, err error)
}

// sharedWait bounds a shared bucket's answer: past it, this process's own
// bucket answers.
const sharedWait = time.Second

// WithShared makes the Limiter draw from shared's buckets under name. When
// shared fails (its database out of reach), the Limiter's own buckets
// answer, so the limit still holds per process.
func WithShared(shared Shared, name string) Option {
	return func(c *config) { c.shared, c.sharedName = shared, name }
}

// sharedTake is take on the shared bucket; false when it did not answer.
func (l *Limiter) sharedTake(key string, consume bool) (Decision, bool) {
	now := time.Now()
	if l.now != nil {
		now = l.now()
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedWait)
	defer cancel()
	tokens, allowed, err := l.shared.Take(ctx, l.sharedName, key, l.limit, now, consume)
	if err != nil {
		return Decision{}, false
	}
	return decisionOf(l.limit, tokens, allowed), true
}

// decisionOf describes a bucket of limit holding tokens after a request.
func decisionOf(limit Limit, tokens float64, allowed bool) Decision {
	perToken := float64(limit.Window) / float64(limit.N)
	d := Decision{Allowed: allowed, Limit: limit.N, Remaining: int(math.Max(0, math.Floor(tokens))),
		Reset: time.Duration(math.Ceil(math.Max(0, float64(limit.N)-tokens) * perToken))}
	if !allowed {
		d.RetryAfter = time.Duration(math.Ceil(math.Max(0, 1-tokens) * perToken))
	}
	return d
}

// Refill is a shared bucket's arithmetic, for a Shared to apply: tokens
// at a time, brought up to now and capped at the limit, then one spent
// when consume is set and one is there.
func Refill(limit Limit, tokens float64, at, now time.Time, consume bool) (after float64, allowed bool) {
	if elapsed := now.Sub(at); elapsed > 0 {
		tokens += float64(elapsed) * float64(limit.N) / float64(limit.Window)
	}
	tokens = math.Min(tokens, float64(limit.N))
	allowed = tokens >= 1
	if allowed && consume {
		tokens--
	}
	return tokens, allowed
}
