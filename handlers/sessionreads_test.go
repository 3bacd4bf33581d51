package handlers_test

import (
	"net/http"
	"testing"

	"garrison/handlers/apitest"
)

// TestSessionReadsSpareTheSignInBuckets: a console page load reads
// GET /auth/me; at the default limits, 30 of them in a minute from one
// address all answer (the auth bucket holds 10), are charged to the JWT
// bucket, and leave the sign-in buckets whole for logins.
func TestSessionReadsSpareTheSignInBuckets(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	e.UseLimits("", nil)
	for i := range 30 {
		r := e.Do("GET", "/api/auth/me", a.Token, nil).Must(t, http.StatusOK)
		if got := r.Header.Get("X-RateLimit-Limit"); got != "100" {
			t.Fatalf("read %d charged to a bucket of %s, want the JWT bucket's 100", i+1, got)
		}
	}
	r := e.Login("ann@acme.test", apitest.Password).Must(t, http.StatusOK)
	if got := r.Header.Get("X-RateLimit-Remaining"); got != "9" {
		t.Fatalf("the login's tightest bucket has %s left, want 9 of the auth or login bucket's 10", got)
	}
}
