// Package ratelimit is Garrison's request limiter: token buckets keyed by
// client (an address, an account, an API key), plus the helpers that decide
// who the client is when requests arrive through reverse proxies.
//
// # Buckets
//
// A [Limit] of N per Window is a bucket holding at most N tokens, refilled
// continuously at N/Window. Each allowed request takes one token; a request
// finding less than one token is refused and told, in [Decision.RetryAfter],
// how long until one token is back. The arithmetic is exact integer
// arithmetic on nanoseconds, so waiting RetryAfter always suffices.
//
// The clock is injected ([WithClock]); tests drive time by hand.
//
// # Memory bound and the overflow bucket
//
// A full bucket behaves exactly like no bucket at all, so buckets that have
// refilled completely can be forgotten without changing any answer:
// [Limiter.Sweep] (run periodically by [Limiter.Run]) drops them.
//
// The keys tracked by one Limiter are capped ([WithMaxKeys], default
// [DefaultMaxKeys]). The cap is split evenly across the shards ([WithShards],
// default [DefaultShards]) and rounded down to a multiple of the shard count.
// When a new key arrives at a full shard, the shard first drops its refilled
// buckets (scanning at most every 100 ms, so a flood cannot make every
// request pay for a scan). If the shard is still full, the new key is not
// tracked: it is charged to the shard's single overflow bucket, which has the
// same Limit and is shared by every untracked key of that shard. A flood of
// distinct addresses therefore cannot grow memory past the cap, and cannot
// buy itself fresh buckets either: it is throttled collectively, at most N
// per Window per shard. Keys already tracked keep their own bucket and are
// unaffected by the flood. [Limiter.Peek] of an untracked key on a full shard
// reports the overflow bucket, since that is what the key would be charged.
//
// # Client identity
//
// [ClientIP] believes X-Forwarded-For only when the TCP peer is a trusted
// proxy ([ParseTrustedProxies]), and then takes the right-most hop that is
// not itself trusted: everything left of it could have been written by the
// client. [IPKey] buckets IPv6 clients by /64, so rotating addresses inside
// one network does not reset the limit. [ForwardedHTTPS] applies the same
// trust rule to X-Forwarded-Proto.
package ratelimit
