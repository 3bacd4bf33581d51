package handlers

import (
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"garrison/actor"
	"garrison/fault"
	"garrison/ratelimit"
)

// RateLimits holds the rate-limit buckets the README and docs/api.md list.
type RateLimits struct {
	auth, login, register, reset *ratelimit.Limiter // per client IP, /auth/* paths
	ip                           *ratelimit.Limiter // JWT-authenticated and public traffic, per client IP
	failures                     *ratelimit.Limiter // invalid or unknown credentials, per client IP
	loginTarget                  *ratelimit.Limiter // failed logins, per e-mail address tried, from clients it has not signed in from
	loginPair                    *ratelimit.Limiter // failed logins, per e-mail address and client IP
	known                        *knownClients      // the addresses each account signed in from
	apiKey                       *ratelimit.Limiter // API-key traffic, per organization
	perKey                       *ratelimit.Limiter // API-key traffic, per key
	agentRuns                    *ratelimit.Limiter // agent executions, per organization
	trusted                      []netip.Prefix
	names                        map[*ratelimit.Limiter]string // as --limits and the metrics name them
}

// LimitsConfig is what the buckets are built from.
type LimitsConfig struct {
	// Limits are the named limits (ratelimit.ParseLimits; nil: the defaults).
	Limits map[string]ratelimit.Limit
	// Trusted are the proxies whose X-Forwarded-For is believed.
	Trusted []netip.Prefix
	// Now is the buckets' clock (nil: the monotonic clock); tests drive it.
	Now func() time.Time
	// Shared, for a cluster's nodes, keeps the low-volume buckets (see
	// sharedBuckets) for all of them; nil: every bucket is this process's.
	Shared ratelimit.Shared
}

// sharedBuckets are the buckets a cluster's nodes share (LimitsConfig.
// Shared): those of signing in and of agent runs, where a limit per node
// would multiply an attacker's guesses or an organization's model costs by
// the nodes, and whose traffic is low enough for a database round trip.
// The high-volume buckets (per IP, per key, per organization's API keys,
// failed credentials) stay each node's: behind a load balancer spreading
// requests over N nodes, a client may get up to N times their limit.
var sharedBuckets = []string{"auth", "login", "register", "reset", "login_target", "login_pair", "agent-runs"}

// NewRateLimits builds the buckets. Invalid credentials are throttled at
// the JWT rate, failed logins per address at the login rate.
func NewRateLimits(c LimitsConfig) *RateLimits {
	if c.Limits == nil {
		c.Limits = ratelimit.Defaults()
	}
	rl := &RateLimits{trusted: c.Trusted, names: map[*ratelimit.Limiter]string{}}
	l := func(limit, name string) *ratelimit.Limiter {
		opts := []ratelimit.Option{ratelimit.WithClock(c.Now)}
		if c.Shared != nil && slices.Contains(sharedBuckets, name) {
			opts = append(opts, ratelimit.WithShared(c.Shared, name))
		}
		lim := ratelimit.New(c.Limits[limit], opts...)
		rl.names[lim] = name
		return lim
	}
	rl.auth, rl.login, rl.register, rl.reset = l("auth", "auth"), l("login", "login"), l("register", "register"), l("reset", "reset")
	rl.ip, rl.failures, rl.loginTarget, rl.loginPair = l("jwt", "jwt"), l("jwt", "failures"), l("login", "login_target"), l("login", "login_pair")
	rl.known = newKnownClients(knownClientsMax)
	rl.apiKey, rl.perKey, rl.agentRuns = l("apikey", "apikey"), l("apikey-key", "apikey-key"), l("agent-runs", "agent-runs")
	return rl
}

// Limiters lists every bucket set, for the app to sweep idle buckets from.
func (rl *RateLimits) Limiters() []*ratelimit.Limiter {
	return []*ratelimit.Limiter{rl.auth, rl.login, rl.register, rl.reset, rl.ip, rl.failures, rl.loginTarget, rl.loginPair, rl.apiKey, rl.perKey, rl.agentRuns}
}

// signInLimiter is the second bucket of a sign-in route, if it has one.
func (rl *RateLimits) signInLimiter(b Buckets) *ratelimit.Limiter {
	switch b {
	case LoginBuckets:
		return rl.login
	case RegisterBuckets:
		return rl.register
	case ResetBuckets:
		return rl.reset
	}
	return nil
}

// limitState is the tightest decision applied to a request so far; the
// X-RateLimit headers describe it.
type limitState struct {
	applied  bool
	tightest ratelimit.Decision
}

// clientKey is the bucket key of the request's client address.
func (a *API) clientKey(r *http.Request) string {
	return ratelimit.IPKey(a.clientIP(r))
}

// clientIP is the request's client address, read once by the middleware.
func (a *API) clientIP(r *http.Request) netip.Addr {
	if st := stateOf(r.Context()); st != nil {
		return st.client
	}
	return ratelimit.ClientIP(r, a.Limits.trusted)
}

// charge takes a token from l for key, updates the headers, and refuses
// with 429 when the bucket is empty.
func (a *API) charge(w http.ResponseWriter, r *http.Request, l *ratelimit.Limiter, key string) error {
	return a.applyDecision(w, r, l, l.Allow(key))
}

// applyDecision makes l's decision the request's, when it is the tightest
// so far, and refuses (and counts the refusal) when it is one.
func (a *API) applyDecision(w http.ResponseWriter, r *http.Request, l *ratelimit.Limiter, d ratelimit.Decision) error {
	if !d.Allowed && a.Metrics != nil {
		a.Metrics.Add(refusalsName, refusalsHelp, 1, "bucket", a.Limits.names[l])
	}
	req := stateOf(r.Context())
	if req == nil {
		req = &requestState{}
	}
	st := &req.limit
	if st.applied {
		d = ratelimit.Tighter(st.tightest, d)
	}
	st.applied, st.tightest = true, d
	v := &req.limitHeaders
	// The three figures share one string: one allocation instead of three.
	var buf [3 * 20]byte
	b := strconv.AppendInt(buf[:0], int64(d.Limit), 10)
	i := len(b)
	b = strconv.AppendInt(b, int64(d.Remaining), 10)
	j := len(b)
	all := string(strconv.AppendInt(b, int64(d.ResetSeconds()), 10))
	v[0], v[1], v[2] = all[:i], all[i:j], all[j:]
	h := w.Header()
	h["X-Ratelimit-Limit"] = v[0:1:1] // canonical keys: see base
	h["X-Ratelimit-Remaining"] = v[1:2:2]
	h["X-Ratelimit-Reset"] = v[2:3:3]
	if d.Allowed {
		return nil
	}
	h.Set("Retry-After", strconv.Itoa(d.RetryAfterSeconds()))
	return fault.New(fault.RateLimited, fmt.Sprintf("Rate limit exceeded; retry after %d seconds", d.RetryAfterSeconds()))
}

// ChargeAgentRun takes one of the organization's agent executions for this
// minute (all agents together), for the agents' execute endpoints.
func (a *API) ChargeAgentRun(w http.ResponseWriter, r *http.Request, orgID string) error {
	return a.charge(w, r, a.Limits.agentRuns, orgID)
}

// limitBeforeAuth applies the buckets that need no credential: the /auth/*
// buckets and the per-IP bucket of public routes. An address whose
// failed-credential bucket is empty is not refused here: a valid credential
// from it still passes (limitFailedAuth refuses only the invalid ones), so
// a hundred bad keys from one office do not lock out its good ones.
func (a *API) limitBeforeAuth(w http.ResponseWriter, r *http.Request, rt Route, ip string) error {
	if rt.Buckets != ByCredential {
		if err := a.charge(w, r, a.Limits.auth, ip); err != nil {
			return err
		}
		if l := a.Limits.signInLimiter(rt.Buckets); l != nil {
			return a.charge(w, r, l, ip)
		}
		return nil
	}
	if rt.Access == Public {
		return a.charge(w, r, a.Limits.ip, ip)
	}
	if rt.Access == Webhook {
		// Webhook receipt is not limited: the failed-credential bucket is
		// the only one that applies to it, so it is the one reported.
		d := a.Limits.failures.Peek(ip)
		d.Allowed = true
		return a.applyDecision(w, r, a.Limits.failures, d)
	}
	return nil
}

// limitAfterAuth charges an authenticated request to its credential's bucket:
// JWT traffic per IP, API-key traffic per key and then per organization, so
// one misbehaving integration spends its own bucket and leaves the rest of
// its organization's to the others (a request its key's bucket refuses
// takes nothing from the organization's). /auth/* paths were charged
// already.
func (a *API) limitAfterAuth(w http.ResponseWriter, r *http.Request, rt Route, p Principal, ip string) error {
	if rt.Buckets != ByCredential || rt.Access == Webhook {
		return nil
	}
	if p.Kind == actor.Key {
		if err := a.charge(w, r, a.Limits.perKey, p.ID); err != nil {
			return err
		}
		return a.charge(w, r, a.Limits.apiKey, p.OrgID)
	}
	return a.charge(w, r, a.Limits.ip, ip)
}

// limitFailedAuth counts an invalid credential against the client's address.
func (a *API) limitFailedAuth(w http.ResponseWriter, r *http.Request, rt Route, ip string) error {
	if rt.Buckets != ByCredential {
		return nil
	}
	return a.charge(w, r, a.Limits.failures, ip)
}
