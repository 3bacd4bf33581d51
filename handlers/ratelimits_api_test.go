package handlers_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// proxiedEnv is a test app behind a trusted proxy on loopback, so
// X-Forwarded-For picks the client address.
func proxiedEnv(t *testing.T) *env {
	return newEnv(t, func(c *apitest.Config) { c.TrustedProxies = loopback })
}

func (e *env) from(ip, method, path, cred string, body any) apitest.Response {
	e.T.Helper()
	h := map[string]string{"X-Forwarded-For": ip, "Authorization": apitest.Bearer(cred)}
	if body != nil {
		h["Content-Type"] = "application/json"
	}
	return e.DoHeaders(method, path, body, h)
}

func header(t testing.TB, r apitest.Response, name string) int {
	t.Helper()
	v, err := strconv.Atoi(r.Header.Get(name))
	if err != nil {
		t.Fatalf("%s = %q: %s", name, r.Header.Get(name), r.Raw)
	}
	return v
}

// exhaust sends n requests that must pass with X-RateLimit-Remaining falling
// by one each time, then checks the next is a 429 with a true Retry-After:
// after waiting it (on the fake clock) the request passes again.
func exhaust(t *testing.T, e *env, n int, send func() apitest.Response) {
	t.Helper()
	for i := range n {
		r := send()
		if r.Status == http.StatusTooManyRequests {
			t.Fatalf("request %d of %d refused: %s", i+1, n, r.Raw)
		}
		if got := header(t, r, "X-RateLimit-Remaining"); got != n-1-i {
			t.Fatalf("request %d: remaining %d, want %d", i+1, got, n-1-i)
		}
		if got := header(t, r, "X-RateLimit-Limit"); got != n {
			t.Fatalf("request %d: limit %d, want %d", i+1, got, n)
		}
	}
	refused := send()
	refused.WantError(t, http.StatusTooManyRequests, "rate_limited", "")
	wait := header(t, refused, "Retry-After")
	if wait < 1 || header(t, refused, "X-RateLimit-Remaining") != 0 || header(t, refused, "X-RateLimit-Reset") < wait {
		t.Fatalf("429 headers: %v", refused.Header)
	}
	// Whole seconds round up, so an earlier retry may pass; this one must.
	e.Clock.Advance(time.Duration(wait) * time.Second)
	if r := send(); r.Status == http.StatusTooManyRequests {
		t.Fatalf("retry after Retry-After=%d still refused: %s", wait, r.Raw)
	}
}

func TestRateLimitBuckets(t *testing.T) {
	tests := []struct {
		name      string
		overrides string
		n         int
		send      func(e *env, ip string, fixture map[string]string) apitest.Response
		other     func(e *env, fixture map[string]string) apitest.Response // must still pass afterwards
	}{
		{"all /auth/* share 10/min per IP", "", 10,
			func(e *env, ip string, _ map[string]string) apitest.Response {
				return e.from(ip, "POST", "/api/auth/verify-email", "", map[string]string{"token": "x"})
			},
			func(e *env, _ map[string]string) apitest.Response {
				return e.from("10.0.0.2", "POST", "/api/auth/reset-confirm", "", map[string]string{})
			}},
		{"login 10/60s per IP", "auth=1000/1m", 10,
			func(e *env, ip string, f map[string]string) apitest.Response {
				return e.from(ip, "POST", "/api/auth/login", "", map[string]string{"email": f["email"], "password": apitest.Password})
			},
			nil},
		{"register 5/60s per IP", "", 5,
			func(e *env, ip string, _ map[string]string) apitest.Response {
				return e.from(ip, "POST", "/api/auth/register", "", map[string]string{"email": "bad"})
			},
			func(e *env, _ map[string]string) apitest.Response {
				return e.from("10.0.0.1", "POST", "/api/auth/login", "", map[string]string{"email": "x@y.co", "password": "p"})
			}},
		{"reset-request and reset-password share 5/60s per IP", "", 5,
			func() func(e *env, ip string, _ map[string]string) apitest.Response {
				i := 0
				return func(e *env, ip string, _ map[string]string) apitest.Response {
					i++
					path := []string{"/api/auth/reset-request", "/api/auth/reset-password"}[i%2]
					return e.from(ip, "POST", path, "", map[string]string{"email": "nobody@acme.test"})
				}
			}(), nil},
		{"JWT traffic 100/min per IP", "", 100,
			func(e *env, ip string, f map[string]string) apitest.Response {
				return e.from(ip, "GET", "/api/org", f["jwt"], nil)
			},
			func(e *env, f map[string]string) apitest.Response {
				return e.from("10.0.0.1", "GET", "/api/org", f["key"], nil)
			}},
		{"API-key traffic 100/min per key, from any IP", "", 100,
			func() func(e *env, ip string, f map[string]string) apitest.Response {
				i := 0
				return func(e *env, _ string, f map[string]string) apitest.Response {
					i++
					return e.from(fmt.Sprintf("10.1.%d.%d", i/250, i%250), "GET", "/api/org", f["key"], nil)
				}
			}(),
			func(e *env, f map[string]string) apitest.Response {
				return e.from("10.0.0.1", "GET", "/api/org", f["otherKey"], nil)
			}},
		{"public endpoints 100/min per IP", "", 100,
			func(e *env, ip string, _ map[string]string) apitest.Response {
				return e.from(ip, "GET", "/api/dashboard/health", "", nil)
			}, nil},
		{"unknown paths count per IP", "", 100,
			func(e *env, ip string, _ map[string]string) apitest.Response {
				return e.from(ip, "GET", "/api/v1/anything", "", nil)
			}, nil},
		{"invalid credentials count per IP before any work", "", 100,
			func(e *env, ip string, _ map[string]string) apitest.Response {
				return e.from(ip, "GET", "/api/org", "svc_live_"+strings.Repeat("Z", 32), nil)
			},
			// Failures spend their own bucket, not the address's JWT traffic
			// bucket, and it refills like any other.
			func(e *env, f map[string]string) apitest.Response {
				e.Clock.Advance(time.Minute)
				for range 100 {
					e.from("10.0.0.1", "GET", "/api/org", f["jwt"], nil).Must(e.T, http.StatusOK)
				}
				return e.from("10.0.0.1", "GET", "/api/org", "svc_live_"+strings.Repeat("Z", 32), nil)
			}},
		{"--limits overrides a bucket", "jwt=3/10s", 3,
			func(e *env, ip string, f map[string]string) apitest.Response {
				return e.from(ip, "GET", "/api/org", f["jwt"], nil)
			}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := proxiedEnv(t)
			admin := e.Register("ann@acme.test", "Acme")
			other := e.Register("olga@other.test", "Other")
			fixture := map[string]string{"email": admin.Email, "jwt": admin.Token,
				"key": e.APIKey(admin, "read"), "otherKey": e.APIKey(other, "read")}
			e.UseLimits(tc.overrides, loopback)

			exhaust(t, e, tc.n, func() apitest.Response { return tc.send(e, "10.0.0.1", fixture) })
			// Another client address has its own bucket (API keys: another key).
			if r := tc.send(e, "10.9.9.9", fixture); r.Status == http.StatusTooManyRequests && !strings.Contains(tc.name, "per key") {
				t.Fatalf("another IP shares the bucket: %s", r.Raw)
			}
			if tc.other != nil {
				if r := tc.other(e, fixture); r.Status == http.StatusTooManyRequests {
					t.Fatalf("unrelated bucket refused: %s", r.Raw)
				}
			}
		})
	}
}

// TestOneKeyCannotSilenceTheOthers: an integration that loops spends its
// key's 100 a minute, and its refused requests take nothing from its
// organization's 300, so the sensor's key goes on; the organization's keys
// together stop at 300.
func TestOneKeyCannotSilenceTheOthers(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	noisy, sensor, third, fourth := e.APIKey(admin, "read"), e.APIKey(admin, "write"), e.APIKey(admin, "read"), e.APIKey(admin, "read")
	e.UseLimits("", nil) // the clock stands still: no bucket refills
	allowed := func(key string, n int) {
		t.Helper()
		for i := range n {
			if r := e.Do("GET", "/api/org", key, nil); r.Status != http.StatusOK {
				t.Fatalf("request %d of %d: %s", i+1, n, r.Raw)
			}
		}
	}
	allowed(noisy, 100)
	for range 200 { // refused: spends nothing of the organization's
		e.Do("GET", "/api/alerts", noisy, nil).WantError(t, http.StatusTooManyRequests, "rate_limited", "")
	}
	for i := range 100 {
		r := e.Do("POST", "/api/events", sensor, map[string]any{"type": "threat_detected", "severity": "low",
			"source": "edr", "asset": "ws-01", "message": "m", "timestamp": e.Clock.Now().Format(time.RFC3339)})
		if r.Status != http.StatusCreated {
			t.Fatalf("the sensor's event %d, while another key loops: %s", i+1, r.Raw)
		}
	}
	allowed(third, 100)
	// 300 taken: the organization's bucket refuses a key with its own left.
	r := e.Do("GET", "/api/org", fourth, nil)
	r.WantError(t, http.StatusTooManyRequests, "rate_limited", "")
	if header(t, r, "X-RateLimit-Limit") != 300 {
		t.Fatalf("the refusal describes the organization's bucket: %v", r.Header)
	}
}

// TestForgedForwardedForIgnored: from an untrusted peer, X-Forwarded-For
// cannot buy a fresh bucket.
func TestForgedForwardedForIgnored(t *testing.T) {
	e := newEnv(t)
	e.UseLimits("", nil)
	exhaust(t, e, 100, func() apitest.Response { return e.from("1.1.1.1", "GET", "/api/dashboard/health", "", nil) })
	e.from("2.2.2.2", "GET", "/api/dashboard/health", "", nil).WantError(t, http.StatusTooManyRequests, "rate_limited", "")
	e.from("2.2.2.2, 3.3.3.3", "GET", "/api/nothing", "", nil).WantError(t, http.StatusTooManyRequests, "rate_limited", "")
}

// TestRateLimitHeadersEverywhere: successes, errors and 404s all describe a bucket.
func TestRateLimitHeadersEverywhere(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.UseLimits("", nil)
	for _, r := range []apitest.Response{
		e.Do("GET", "/api/org", admin.Token, nil),
		e.Do("GET", "/api/org", "", nil),
		e.Do("GET", "/api/org", "garbage", nil),
		e.Do("GET", "/api/nope", "", nil),
		e.Do("PUT", "/api/org", "", nil),
		e.Do("POST", "/api/auth/login", "", "{"),
		e.Do("GET", "/api/dashboard/health", "", nil),
		e.Do("POST", "/api/api-keys", admin.Token, map[string]string{"scope": "x"}),
	} {
		for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
			header(t, r, h)
		}
	}
}

// TestTightestBucketReported: on /auth/register both the shared /auth/*
// bucket (10) and the register bucket (5) apply; the headers show the tighter.
func TestTightestBucketReported(t *testing.T) {
	e := newEnv(t)
	e.UseLimits("", nil)
	r := e.Do("POST", "/api/auth/register", "", map[string]string{})
	if header(t, r, "X-RateLimit-Limit") != 5 || header(t, r, "X-RateLimit-Remaining") != 4 {
		t.Fatalf("headers %v", r.Header)
	}
}

// TestLoginThrottledPerAccount: guessing one address's password from many
// IPs is throttled too, for addresses that exist and those that don't.
func TestLoginThrottledPerAccount(t *testing.T) {
	for _, email := range []string{"ann@acme.test", "nobody@acme.test"} {
		t.Run(email, func(t *testing.T) {
			e := proxiedEnv(t)
			e.Register("ann@acme.test", "Acme")
			e.UseLimits("auth=100000/1m", loopback) // rotating IPs never fill the per-IP login bucket
			for i := range 50 {
				r := e.from(fmt.Sprintf("10.2.%d.%d", i/250, i%250), "POST", "/api/auth/login", "",
					map[string]string{"email": email, "password": "wrong password!!"})
				if r.Status == http.StatusTooManyRequests {
					if i != 10 {
						t.Fatalf("throttled after %d failures, want 10", i)
					}
					// The right password is refused too until the bucket refills.
					e.from("10.3.0.1", "POST", "/api/auth/login", "", map[string]string{"email": email, "password": apitest.Password}).
						WantError(t, http.StatusTooManyRequests, "rate_limited", "")
					return
				}
			}
			t.Fatal("never throttled")
		})
	}
}
