package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// TestGuessingCannotLockTheOwnerOut replays the lockout attack at the
// default limits: ten wrong passwords from anywhere used to make the
// owner's right password answer 429 from every address, and a sustained
// attack from a few addresses refused about half of the owner's logins.
// Guessing stays slow (per address and client, and per address from
// clients the account never signed in from), and the owner signs in.
func TestGuessingCannotLockTheOwnerOut(t *testing.T) {
	e := proxiedEnv(t)
	e.Register("ann@acme.test", "Acme")
	e.UseLimits("auth=100000/1m", loopback) // the shared /auth/ bucket is another test's
	owner := "10.0.0.5"
	login := func(ip, password string) apitest.Response {
		return e.from(ip, "POST", "/api/auth/login", "", map[string]string{"email": "ann@acme.test", "password": password})
	}
	login(owner, apitest.Password).Must(t, http.StatusOK) // the owner's usual address

	// Ten wrong passwords from ten addresses spend the account's bucket.
	for i := range 10 {
		login(fmt.Sprintf("10.9.0.%d", i), "wrong password!!").Must(t, http.StatusUnauthorized)
	}
	login("10.9.1.1", "wrong password!!").WantError(t, http.StatusTooManyRequests, "rate_limited", "")
	login("10.9.1.2", apitest.Password).WantError(t, http.StatusTooManyRequests, "rate_limited", "") // a new address waits
	login(owner, apitest.Password).Must(t, http.StatusOK)                                            // the owner does not

	// A sustained attack from six addresses: every one of the owner's 20
	// logins, spread over two and a half minutes, gets through.
	attackers := []string{"198.51.100.1", "198.51.100.2", "198.51.100.3", "203.0.113.4", "203.0.113.5", "203.0.113.6"}
	refused, guessed := 0, 0
	for round := range 20 {
		for _, ip := range attackers {
			if r := login(ip, "guess"+fmt.Sprint(round)); r.Status == http.StatusUnauthorized {
				guessed++
			}
		}
		if r := login(owner, apitest.Password); r.Status != http.StatusOK {
			refused++
			t.Logf("owner refused in round %d: %s", round, strings.TrimSpace(string(r.Raw)))
		}
		e.Clock.Advance(7 * time.Second)
	}
	if refused != 0 {
		t.Fatalf("%d of the owner's 20 logins refused", refused)
	}
	// Guessing stayed slow: the account's bucket (10 a minute, from
	// unknown clients) held the six addresses to about ten guesses a minute.
	if guessed > 40 {
		t.Fatalf("%d guesses checked in two minutes", guessed)
	}

	// One address alone is held by its own buckets, known or not.
	e.Clock.Advance(time.Minute)
	for i := range 20 {
		if r := login(owner, "wrong password!!"); r.Status == http.StatusTooManyRequests {
			if i != 10 {
				t.Fatalf("the owner's address throttled after %d failures, want 10", i)
			}
			return
		}
	}
	t.Fatal("one address guessing was never throttled")
}

// TestBadCredentialsDoNotLockOutGoodOnes: a hundred invalid keys from one
// address spend its failed-credential bucket; further invalid ones are
// refused with 429, but a valid key or session from the same address
// still passes.
func TestBadCredentialsDoNotLockOutGoodOnes(t *testing.T) {
	e := proxiedEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "read")
	e.UseLimits("", loopback)
	bad := "svc_live_" + strings.Repeat("Z", 32)
	for range 100 {
		e.from("10.0.0.1", "GET", "/api/org", bad, nil).Must(t, http.StatusUnauthorized)
	}
	e.from("10.0.0.1", "GET", "/api/org", bad, nil).WantError(t, http.StatusTooManyRequests, "rate_limited", "")
	e.from("10.0.0.1", "GET", "/api/org", key, nil).Must(t, http.StatusOK)
	e.from("10.0.0.1", "GET", "/api/org", admin.Token, nil).Must(t, http.StatusOK)
}
