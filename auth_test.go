package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestUnauthorizedMessages(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	expiring := e.do("POST", "/api/api-keys", admin.token, map[string]string{
		"name": "short", "scope": "read", "expires_at": e.clock.Now().Add(time.Hour).Format(time.RFC3339)}).
		must(t, http.StatusCreated).str("data", "key")
	revoked := e.do("POST", "/api/api-keys", admin.token, map[string]string{"name": "gone", "scope": "read"}).must(t, http.StatusCreated)
	e.do("DELETE", "/api/api-keys/"+revoked.str("data", "id"), admin.token, nil).must(t, http.StatusOK)
	e.clock.Advance(2 * time.Hour)

	tests := []struct {
		name   string
		header string
		want   string
	}{
		{"no header", "", "No authorization token provided"},
		{"basic scheme", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Invalid token format"},
		{"bearer without value", "Bearer", "Invalid token format"},
		{"bearer and space", "Bearer ", "Invalid token format"},
		{"two values", "Bearer a b", "Invalid token format"},
		{"garbage token", "Bearer not-a-jwt", "Invalid token"},
		{"unknown key", "Bearer svc_live_" + strings.Repeat("A", 32), "Invalid API key"},
		{"malformed key", "Bearer svc_live_short", "Invalid API key"},
		{"revoked key", "Bearer " + revoked.str("data", "key"), "Invalid API key"},
		{"expired key", "Bearer " + expiring, "API key expired"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.doHeaders("GET", "/api/org", nil, map[string]string{"Authorization": tc.header})
			r.wantError(t, http.StatusUnauthorized, "unauthorized", tc.want)
			if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate = %q", r.header.Get("WWW-Authenticate"))
			}
		})
	}
}

func TestCredentialInQueryStringIgnored(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	e.do("GET", "/api/org?access_token="+admin.token, "", nil).
		wantError(t, http.StatusUnauthorized, "unauthorized", "No authorization token provided")
}

func TestJWTExpiry(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	e.clock.Advance(24*time.Hour - time.Second)
	e.do("GET", "/api/auth/me", admin.token, nil).must(t, http.StatusOK)
	e.clock.Advance(time.Second)
	e.do("GET", "/api/auth/me", admin.token, nil).
		wantError(t, http.StatusUnauthorized, "unauthorized", "Token expired. Please log in again.")
}

func TestJWTTTLFlag(t *testing.T) {
	e := newTestEnv(t, func(c *config) { c.jwtTTL = time.Hour })
	r := e.register("ann@acme.test", "Acme")
	e.clock.Advance(time.Hour)
	e.do("GET", "/api/auth/me", r.token, nil).wantError(t, http.StatusUnauthorized, "unauthorized", "Token expired. Please log in again.")
}

// forge re-signs nothing: it swaps parts of a real token to build attacks.
func forge(header, payload map[string]any, sig string) string {
	h, _ := json.Marshal(header)
	p, _ := json.Marshal(payload)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(p) + "." + sig
}

func TestJWTForgeries(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	parts := strings.Split(admin.token, ".")
	payloadJSON, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var payload map[string]any
	json.Unmarshal(payloadJSON, &payload)
	elevated := map[string]any{}
	for k, v := range payload {
		elevated[k] = v
	}
	elevated["exp"] = float64(e.clock.Now().Add(1000 * time.Hour).Unix())

	tests := map[string]string{
		"alg none":               forge(map[string]any{"alg": "none", "typ": "JWT"}, payload, ""),
		"alg NoNe":               forge(map[string]any{"alg": "NoNe", "typ": "JWT"}, payload, ""),
		"alg HS512":              forge(map[string]any{"alg": "HS512", "typ": "JWT"}, payload, parts[2]),
		"alg RS256":              forge(map[string]any{"alg": "RS256", "typ": "JWT"}, payload, parts[2]),
		"kid header":             forge(map[string]any{"alg": "HS256", "typ": "JWT", "kid": "../../jwt.key"}, payload, parts[2]),
		"jku header":             forge(map[string]any{"alg": "HS256", "typ": "JWT", "jku": "http://127.0.0.1:1/k"}, payload, parts[2]),
		"empty signature":        parts[0] + "." + parts[1] + ".",
		"payload changed":        parts[0] + "." + base64.RawURLEncoding.EncodeToString(mustJSON(elevated)) + "." + parts[2],
		"signature bit flipped":  parts[0] + "." + parts[1] + "." + flipLast(parts[2]),
		"padding added":          parts[0] + "." + parts[1] + "." + parts[2] + "=",
		"CRLF inside":            parts[0] + "." + parts[1][:10] + "\r\n" + parts[1][10:] + "." + parts[2],
		"four segments":          admin.token + ".x",
		"two segments":           parts[0] + "." + parts[1],
		"signature from another": parts[0] + "." + parts[1] + "." + strings.Split(e.register("bob@other.test", "Other").token, ".")[2],
	}
	for name, token := range tests {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", e.srv.URL+"/api/auth/me", nil)
			req.Header["Authorization"] = []string{"Bearer " + token}
			res, err := e.srv.Client().Do(req)
			if err != nil {
				return // the client refused to send it: nothing was accepted
			}
			res.Body.Close()
			if res.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", res.StatusCode)
			}
		})
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func flipLast(s string) string {
	c := s[len(s)-2]
	if c == 'A' {
		c = 'B'
	} else {
		c = 'A'
	}
	return s[:len(s)-2] + string(c) + s[len(s)-1:]
}

func TestTokenVersionInvalidation(t *testing.T) {
	invalidated := "Token invalidated. Please log in again."
	tests := []struct {
		name  string
		bump  func(e *testEnv, a acct)
		extra int // how many tokens the bump itself hands out, still valid
	}{
		{"change-password", func(e *testEnv, a acct) {
			r := e.do("POST", "/api/auth/change-password", a.token, map[string]string{
				"current_password": testPassword, "new_password": "a brand new passphrase"}).must(e.t, http.StatusOK)
			e.do("GET", "/api/auth/me", r.str("token"), nil).must(e.t, http.StatusOK)
		}, 1},
		{"logout-all", func(e *testEnv, a acct) {
			e.do("POST", "/api/auth/logout-all", a.token, nil).must(e.t, http.StatusOK)
		}, 0},
		{"reset", func(e *testEnv, a acct) {
			e.do("POST", "/api/auth/reset-confirm", "", map[string]string{
				"token": e.resetToken(a.email), "new_password": "a brand new passphrase"}).must(e.t, http.StatusOK)
		}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t) // the bump closures report through e.t: this subtest
			a := e.register("ann@acme.test", "Acme")
			second := e.login(a.email, testPassword).must(t, http.StatusOK).str("token")
			key := e.apiKey(a, "read")
			tc.bump(e, a)
			for _, tok := range []string{a.token, second} {
				e.do("GET", "/api/auth/me", tok, nil).wantError(t, http.StatusUnauthorized, "unauthorized", invalidated)
			}
			// API keys belong to the organization: a user's sessions ending leaves them working.
			e.do("GET", "/api/org", key, nil).must(t, http.StatusOK)
		})
	}
}

func TestLogoutEndsOnlyThatToken(t *testing.T) {
	e := newTestEnv(t)
	a := e.register("ann@acme.test", "Acme")
	other := e.login(a.email, testPassword).must(t, http.StatusOK).str("token")
	e.do("POST", "/api/auth/logout", a.token, nil).must(t, http.StatusOK)
	e.do("GET", "/api/auth/me", a.token, nil).wantError(t, http.StatusUnauthorized, "unauthorized", "Token invalidated. Please log in again.")
	e.do("GET", "/api/auth/me", other, nil).must(t, http.StatusOK)
}

func TestRefresh(t *testing.T) {
	e := newTestEnv(t, func(c *config) { c.sessionMax = 48 * time.Hour })
	a := e.register("ann@acme.test", "Acme")
	e.clock.Advance(time.Hour)
	r := e.do("POST", "/api/auth/refresh", a.token, nil).must(t, http.StatusOK)
	fresh := r.str("token")
	if fresh == "" || fresh == a.token || r.str("data", "token") != fresh {
		t.Fatalf("refresh answer: %s", r.raw)
	}
	if got, want := r.str("expires_at"), e.clock.Now().Add(24*time.Hour).Format(time.RFC3339); got != want {
		t.Errorf("expires_at %s, want %s", got, want)
	}
	e.do("GET", "/api/auth/me", a.token, nil).wantError(t, http.StatusUnauthorized, "unauthorized", "Token invalidated. Please log in again.")
	e.do("GET", "/api/auth/me", fresh, nil).must(t, http.StatusOK)

	// A chain of refreshes cannot outlive --session-max from the login.
	e.clock.Advance(23 * time.Hour)
	fresh = e.do("POST", "/api/auth/refresh", fresh, nil).must(t, http.StatusOK).str("token")
	e.clock.Advance(23 * time.Hour)
	last := e.do("POST", "/api/auth/refresh", fresh, nil).must(t, http.StatusOK)
	if got, want := last.str("expires_at"), e.clock.Now().Add(time.Hour).Format(time.RFC3339); got != want {
		t.Errorf("last token expires %s, want the session end %s", got, want)
	}
	e.clock.Advance(time.Hour)
	e.do("POST", "/api/auth/refresh", last.str("token"), nil).wantError(t, http.StatusUnauthorized, "unauthorized", "Token expired. Please log in again.")
}

func TestSessionRoutesRefuseAPIKeys(t *testing.T) {
	e := newTestEnv(t)
	a := e.register("ann@acme.test", "Acme")
	key := e.apiKey(a, "admin")
	for _, path := range []string{"/api/auth/me", "/api/user/profile"} {
		e.do("GET", path, key, nil).wantError(t, http.StatusForbidden, "forbidden", "")
	}
	for _, path := range []string{"/api/auth/logout", "/api/auth/logout-all", "/api/auth/refresh", "/api/auth/change-password"} {
		e.do("POST", path, key, map[string]string{}).wantError(t, http.StatusForbidden, "forbidden", "")
	}
}

func TestDeletedUserTokenRejected(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	m := e.member(admin, "bob@acme.test", "member")
	e.do("DELETE", "/api/org/members/"+m.id, admin.token, nil).must(t, http.StatusOK)
	e.do("GET", "/api/auth/me", m.token, nil).wantError(t, http.StatusUnauthorized, "unauthorized", "Invalid token")
}
