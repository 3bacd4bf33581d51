package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

func TestUnauthorizedMessages(t *testing.T) {
	e := newTestEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	expiring := e.Do("POST", "/api/api-keys", admin.Token, map[string]string{
		"name": "short", "scope": "read", "expires_at": e.clock.Now().Add(time.Hour).Format(time.RFC3339)}).
		Must(t, http.StatusCreated).Str("data", "key")
	revoked := e.Do("POST", "/api/api-keys", admin.Token, map[string]string{"name": "gone", "scope": "read"}).Must(t, http.StatusCreated)
	e.Do("DELETE", "/api/api-keys/"+revoked.Str("data", "id"), admin.Token, nil).Must(t, http.StatusOK)
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
		{"revoked key", "Bearer " + revoked.Str("data", "key"), "Invalid API key"},
		{"expired key", "Bearer " + expiring, "API key expired"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.DoHeaders("GET", "/api/org", nil, map[string]string{"Authorization": tc.header})
			r.WantError(t, http.StatusUnauthorized, "unauthorized", tc.want)
			if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate = %q", r.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

func TestCredentialInQueryStringIgnored(t *testing.T) {
	e := newTestEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.Do("GET", "/api/org?access_token="+admin.Token, "", nil).
		WantError(t, http.StatusUnauthorized, "unauthorized", "No authorization token provided")
}

func TestJWTExpiry(t *testing.T) {
	e := newTestEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.clock.Advance(24*time.Hour - time.Second)
	e.Do("GET", "/api/auth/me", admin.Token, nil).Must(t, http.StatusOK)
	e.clock.Advance(time.Second)
	e.Do("GET", "/api/auth/me", admin.Token, nil).
		WantError(t, http.StatusUnauthorized, "unauthorized", "Token expired. Please log in again.")
}

func TestJWTTTLFlag(t *testing.T) {
	e := newTestEnv(t, func(c *config) { c.jwtTTL = time.Hour })
	r := e.Register("ann@acme.test", "Acme")
	e.clock.Advance(time.Hour)
	e.Do("GET", "/api/auth/me", r.Token, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "Token expired. Please log in again.")
}

// forge re-signs nothing: it swaps parts of a real token to build attacks.
func forge(header, payload map[string]any, sig string) string {
	h, _ := json.Marshal(header)
	p, _ := json.Marshal(payload)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(p) + "." + sig
}

func TestJWTForgeries(t *testing.T) {
	e := newTestEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	parts := strings.Split(admin.Token, ".")
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
		"four segments":          admin.Token + ".x",
		"two segments":           parts[0] + "." + parts[1],
		"signature from another": parts[0] + "." + parts[1] + "." + strings.Split(e.Register("bob@other.test", "Other").Token, ".")[2],
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
		bump  func(e *testEnv, a apitest.Account)
		extra int // how many tokens the bump itself hands out, still valid
	}{
		{"change-password", func(e *testEnv, a apitest.Account) {
			r := e.Do("POST", "/api/auth/change-password", a.Token, map[string]string{
				"current_password": apitest.Password, "new_password": "a brand new passphrase"}).Must(e.T, http.StatusOK)
			e.Do("GET", "/api/auth/me", r.Str("token"), nil).Must(e.T, http.StatusOK)
		}, 1},
		{"logout-all", func(e *testEnv, a apitest.Account) {
			e.Do("POST", "/api/auth/logout-all", a.Token, nil).Must(e.T, http.StatusOK)
		}, 0},
		{"reset", func(e *testEnv, a apitest.Account) {
			e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{
				"token": e.ResetToken(a.Email), "new_password": "a brand new passphrase"}).Must(e.T, http.StatusOK)
		}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t) // the bump closures report through e.T: this subtest
			a := e.Register("ann@acme.test", "Acme")
			second := e.Login(a.Email, apitest.Password).Must(t, http.StatusOK).Str("token")
			key := e.APIKey(a, "read")
			tc.bump(e, a)
			for _, tok := range []string{a.Token, second} {
				e.Do("GET", "/api/auth/me", tok, nil).WantError(t, http.StatusUnauthorized, "unauthorized", invalidated)
			}
			// API keys belong to the organization: a user's sessions ending leaves them working.
			e.Do("GET", "/api/org", key, nil).Must(t, http.StatusOK)
		})
	}
}

func TestLogoutEndsOnlyThatToken(t *testing.T) {
	e := newTestEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	other := e.Login(a.Email, apitest.Password).Must(t, http.StatusOK).Str("token")
	e.Do("POST", "/api/auth/logout", a.Token, nil).Must(t, http.StatusOK)
	e.Do("GET", "/api/auth/me", a.Token, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "Token invalidated. Please log in again.")
	e.Do("GET", "/api/auth/me", other, nil).Must(t, http.StatusOK)
}

func TestRefresh(t *testing.T) {
	e := newTestEnv(t, func(c *config) { c.sessionMax = 48 * time.Hour })
	a := e.Register("ann@acme.test", "Acme")
	e.clock.Advance(time.Hour)
	r := e.Do("POST", "/api/auth/refresh", a.Token, nil).Must(t, http.StatusOK)
	fresh := r.Str("token")
	if fresh == "" || fresh == a.Token || r.Str("data", "token") != fresh {
		t.Fatalf("refresh answer: %s", r.Raw)
	}
	if got, want := r.Str("expires_at"), e.clock.Now().Add(24*time.Hour).Format(time.RFC3339); got != want {
		t.Errorf("expires_at %s, want %s", got, want)
	}
	e.Do("GET", "/api/auth/me", a.Token, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "Token invalidated. Please log in again.")
	e.Do("GET", "/api/auth/me", fresh, nil).Must(t, http.StatusOK)

	// A chain of refreshes cannot outlive --session-max from the login.
	e.clock.Advance(23 * time.Hour)
	fresh = e.Do("POST", "/api/auth/refresh", fresh, nil).Must(t, http.StatusOK).Str("token")
	e.clock.Advance(23 * time.Hour)
	last := e.Do("POST", "/api/auth/refresh", fresh, nil).Must(t, http.StatusOK)
	if got, want := last.Str("expires_at"), e.clock.Now().Add(time.Hour).Format(time.RFC3339); got != want {
		t.Errorf("last token expires %s, want the session end %s", got, want)
	}
	e.clock.Advance(time.Hour)
	e.Do("POST", "/api/auth/refresh", last.Str("token"), nil).WantError(t, http.StatusUnauthorized, "unauthorized", "Token expired. Please log in again.")
}

func TestSessionRoutesRefuseAPIKeys(t *testing.T) {
	e := newTestEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(a, "admin")
	for _, path := range []string{"/api/auth/me", "/api/user/profile"} {
		e.Do("GET", path, key, nil).WantError(t, http.StatusForbidden, "forbidden", "")
	}
	for _, path := range []string{"/api/auth/logout", "/api/auth/logout-all", "/api/auth/refresh", "/api/auth/change-password"} {
		e.Do("POST", path, key, map[string]string{}).WantError(t, http.StatusForbidden, "forbidden", "")
	}
}

func TestDeletedUserTokenRejected(t *testing.T) {
	e := newTestEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	m := e.Member(admin, "bob@acme.test", "member")
	e.Do("DELETE", "/api/org/members/"+m.ID, admin.Token, nil).Must(t, http.StatusOK)
	e.Do("GET", "/api/auth/me", m.Token, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "Invalid token")
}
