package handlers_test

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

var keyFormat = regexp.MustCompile(`^svc_live_[A-Za-z0-9]{32}$`)

func TestAPIKeyLifecycle(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	created := e.Do("POST", "/api/api-keys", admin.Token, map[string]string{"name": "SIEM export", "scope": "write"}).Must(t, http.StatusCreated)
	key, id := created.Str("data", "key"), created.Str("data", "id")
	if !keyFormat.MatchString(key) || !strings.HasPrefix(id, "key_") || created.Str("data", "prefix") != key[:13] {
		t.Fatalf("created: %s", created.Raw)
	}

	e.Do("GET", "/api/org", key, nil).Must(t, http.StatusOK)
	list := e.Do("GET", "/api/api-keys", admin.Token, nil).Must(t, http.StatusOK)
	if bytes.Contains(list.Raw, []byte(key)) || bytes.Contains(list.Raw, []byte(`"key"`)) {
		t.Fatalf("list shows the secret again: %s", list.Raw)
	}
	got := list.Get("data", "0")
	if !got.Get("id").Is(id) || got.Get("status").Str() != "active" || got.Get("last_used_at").IsNull() || list.Get("pagination", "total").Float() != 1 {
		t.Fatalf("listed: %s", list.Raw)
	}
	// Nothing stored (SQLite's database and WAL, or every PostgreSQL
	// table) holds the plaintext key.
	stored := e.Stored(t)
	for where, b := range stored {
		if bytes.Contains(b, []byte(key)) || bytes.Contains(b, []byte(key[13:])) {
			t.Fatalf("%s holds the plaintext key", where)
		}
	}
	if len(stored) < 2 {
		t.Fatalf("scanned only %d places", len(stored))
	}

	e.Do("DELETE", "/api/api-keys/"+id, admin.Token, nil).Must(t, http.StatusOK)
	e.Do("GET", "/api/org", key, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "Invalid API key")
	e.Do("GET", "/api/auth/me", admin.Token, nil).Must(t, http.StatusOK) // revocation never touches sessions
	if s := e.Do("GET", "/api/api-keys", admin.Token, nil).Get("data", "0", "status"); s.Str() != "revoked" {
		t.Fatalf("status after revoke: %v", s)
	}
}

func TestAPIKeyValidation(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	now := e.Clock.Now()
	tests := []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"missing", map[string]any{}, []string{"name", "scope"}},
		{"bad scope", map[string]any{"name": "k", "scope": "root"}, []string{"scope"}},
		{"past expiry", map[string]any{"name": "k", "scope": "read", "expires_at": now.Add(-time.Minute).Format(time.RFC3339)}, []string{"expires_at"}},
		{"expiry not RFC 3339", map[string]any{"name": "k", "scope": "read", "expires_at": "tomorrow"}, []string{"expires_at"}},
		{"expiry a number", map[string]any{"name": "k", "scope": "read", "expires_at": 12}, []string{"expires_at"}},
		{"expiry too far", map[string]any{"name": "k", "scope": "read", "expires_at": now.AddDate(11, 0, 0).Format(time.RFC3339)}, []string{"expires_at"}},
		{"org_id injection", map[string]any{"name": "k", "scope": "read", "org_id": "org_other"}, []string{"org_id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.Do("POST", "/api/api-keys", admin.Token, tc.body).WantFields(t, tc.fields...)
		})
	}
	if total := e.Do("GET", "/api/api-keys", admin.Token, nil).Get("pagination", "total"); !total.Is(0) {
		t.Fatalf("refused requests stored keys: %v", total)
	}
}

func TestAPIKeyExpiry(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	r := e.Do("POST", "/api/api-keys", admin.Token, map[string]string{"name": "90 days", "scope": "read",
		"expires_at": e.Clock.Now().Add(90 * 24 * time.Hour).Format(time.RFC3339)}).Must(t, http.StatusCreated)
	key := r.Str("data", "key")
	e.Clock.Advance(90*24*time.Hour - time.Second)
	e.Do("GET", "/api/org", key, nil).Must(t, http.StatusOK)
	e.Clock.Advance(time.Second)
	e.Do("GET", "/api/org", key, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "API key expired")
	fresh := e.Login(admin.Email, apitest.Password).Must(t, http.StatusOK).Str("token")
	if s := e.Do("GET", "/api/api-keys", fresh, nil).Get("data", "0", "status"); s.Str() != "expired" {
		t.Fatalf("status %v", s)
	}
}

func TestAPIKeyLastUsed(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "read")
	lastUsed := func() string {
		return e.Do("GET", "/api/api-keys", admin.Token, nil).Get("data", "0", "last_used_at").MustStr(t)
	}
	e.Do("GET", "/api/org", key, nil).Must(t, http.StatusOK)
	first := lastUsed()
	if first != e.Clock.Now().Format(time.RFC3339) {
		t.Fatalf("last_used_at %s", first)
	}
	e.Clock.Advance(2 * time.Minute)
	e.Do("GET", "/api/org", key, nil).Must(t, http.StatusOK)
	if got := lastUsed(); got != e.Clock.Now().Format(time.RFC3339) {
		t.Fatalf("last_used_at not advanced: %s", got)
	}
}

func TestAPIKeyOtherOrganization(t *testing.T) {
	e := newEnv(t)
	acme := e.Register("ann@acme.test", "Acme")
	other := e.Register("olga@other.test", "Other")
	id := e.Do("POST", "/api/api-keys", acme.Token, map[string]string{"name": "k", "scope": "read"}).Must(t, http.StatusCreated).Str("data", "id")
	missing := e.Do("DELETE", "/api/api-keys/key_doesnotexist", other.Token, nil)
	foreign := e.Do("DELETE", "/api/api-keys/"+id, other.Token, nil)
	foreign.WantError(t, http.StatusNotFound, "not_found", "Resource not found")
	if string(missing.Raw) != string(foreign.Raw) {
		t.Fatalf("another organization's key answers differently from a missing one:\n%s\n%s", missing.Raw, foreign.Raw)
	}
	if n := len(e.Do("GET", "/api/api-keys", other.Token, nil).List()); n != 0 {
		t.Fatalf("other organization lists %d keys", n)
	}
	if s := e.Do("GET", "/api/api-keys", acme.Token, nil).Get("data", "0", "status"); s.Str() != "active" {
		t.Fatalf("key changed by another organization: %v", s)
	}
}
