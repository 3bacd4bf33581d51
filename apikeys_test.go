package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var keyFormat = regexp.MustCompile(`^svc_live_[A-Za-z0-9]{32}$`)

func TestAPIKeyLifecycle(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	created := e.do("POST", "/api/api-keys", admin.token, map[string]string{"name": "SIEM export", "scope": "write"}).must(t, http.StatusCreated)
	key, id := created.str("data", "key"), created.str("data", "id")
	if !keyFormat.MatchString(key) || !strings.HasPrefix(id, "key_") || created.str("data", "prefix") != key[:13] {
		t.Fatalf("created: %s", created.raw)
	}

	e.do("GET", "/api/org", key, nil).must(t, http.StatusOK)
	list := e.do("GET", "/api/api-keys", admin.token, nil).must(t, http.StatusOK)
	if bytes.Contains(list.raw, []byte(key)) || bytes.Contains(list.raw, []byte(`"key"`)) {
		t.Fatalf("list shows the secret again: %s", list.raw)
	}
	got := list.list()[0].(map[string]any)
	if got["id"] != id || got["status"] != "active" || got["last_used_at"] == nil || list.body["pagination"].(map[string]any)["total"] != float64(1) {
		t.Fatalf("listed: %s", list.raw)
	}
	// No file of the data directory (database, WAL) holds the plaintext key.
	files, _ := filepath.Glob(filepath.Join(e.app.dataDir(t), "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(key)) || bytes.Contains(b, []byte(key[13:])) {
			t.Fatalf("%s holds the plaintext key", filepath.Base(f))
		}
	}
	if len(files) < 2 {
		t.Fatalf("scanned only %v", files)
	}

	e.do("DELETE", "/api/api-keys/"+id, admin.token, nil).must(t, http.StatusOK)
	e.do("GET", "/api/org", key, nil).wantError(t, http.StatusUnauthorized, "unauthorized", "Invalid API key")
	e.do("GET", "/api/auth/me", admin.token, nil).must(t, http.StatusOK) // revocation never touches sessions
	if s := e.do("GET", "/api/api-keys", admin.token, nil).list()[0].(map[string]any)["status"]; s != "revoked" {
		t.Fatalf("status after revoke: %v", s)
	}
}

func TestAPIKeyValidation(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	now := e.clock.Now()
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
			e.do("POST", "/api/api-keys", admin.token, tc.body).wantFields(t, tc.fields...)
		})
	}
	if total := e.do("GET", "/api/api-keys", admin.token, nil).body["pagination"].(map[string]any)["total"]; total != float64(0) {
		t.Fatalf("refused requests stored keys: %v", total)
	}
}

func TestAPIKeyExpiry(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	r := e.do("POST", "/api/api-keys", admin.token, map[string]string{"name": "90 days", "scope": "read",
		"expires_at": e.clock.Now().Add(90 * 24 * time.Hour).Format(time.RFC3339)}).must(t, http.StatusCreated)
	key := r.str("data", "key")
	e.clock.Advance(90*24*time.Hour - time.Second)
	e.do("GET", "/api/org", key, nil).must(t, http.StatusOK)
	e.clock.Advance(time.Second)
	e.do("GET", "/api/org", key, nil).wantError(t, http.StatusUnauthorized, "unauthorized", "API key expired")
	fresh := e.login(admin.email, testPassword).must(t, http.StatusOK).str("token")
	if s := e.do("GET", "/api/api-keys", fresh, nil).list()[0].(map[string]any)["status"]; s != "expired" {
		t.Fatalf("status %v", s)
	}
}

func TestAPIKeyLastUsed(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	key := e.apiKey(admin, "read")
	lastUsed := func() string {
		return e.do("GET", "/api/api-keys", admin.token, nil).list()[0].(map[string]any)["last_used_at"].(string)
	}
	e.do("GET", "/api/org", key, nil).must(t, http.StatusOK)
	first := lastUsed()
	if first != e.clock.Now().Format(time.RFC3339) {
		t.Fatalf("last_used_at %s", first)
	}
	e.clock.Advance(2 * time.Minute)
	e.do("GET", "/api/org", key, nil).must(t, http.StatusOK)
	if got := lastUsed(); got != e.clock.Now().Format(time.RFC3339) {
		t.Fatalf("last_used_at not advanced: %s", got)
	}
}

func TestAPIKeyOtherOrganization(t *testing.T) {
	e := newTestEnv(t)
	acme := e.register("ann@acme.test", "Acme")
	other := e.register("olga@other.test", "Other")
	id := e.do("POST", "/api/api-keys", acme.token, map[string]string{"name": "k", "scope": "read"}).must(t, http.StatusCreated).str("data", "id")
	missing := e.do("DELETE", "/api/api-keys/key_doesnotexist", other.token, nil)
	foreign := e.do("DELETE", "/api/api-keys/"+id, other.token, nil)
	foreign.wantError(t, http.StatusNotFound, "not_found", "Resource not found")
	if string(missing.raw) != string(foreign.raw) {
		t.Fatalf("another organization's key answers differently from a missing one:\n%s\n%s", missing.raw, foreign.raw)
	}
	if n := len(e.do("GET", "/api/api-keys", other.token, nil).list()); n != 0 {
		t.Fatalf("other organization lists %d keys", n)
	}
	if s := e.do("GET", "/api/api-keys", acme.token, nil).list()[0].(map[string]any)["status"]; s != "active" {
		t.Fatalf("key changed by another organization: %v", s)
	}
}

func TestAPIKeyCLI(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	member := e.member(admin, "bob@acme.test", "member")
	dataDir := e.app.dataDir(t)
	run := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := runCLI(t, append([]string{"apikey", "create", "--data", dataDir}, args...), &out, &errOut)
		return strings.TrimSpace(out.String()), err
	}
	key, err := run("--email", admin.email, "--name", "from cli", "--scope", "write", "--expires-at", "2027-01-01T00:00:00Z")
	if err != nil || !keyFormat.MatchString(key) {
		t.Fatalf("apikey create: %q %v", key, err)
	}
	r := e.do("GET", "/api/api-keys", admin.token, nil).list()[0].(map[string]any)
	if r["name"] != "from cli" || r["scope"] != "write" || r["expires_at"] != "2027-01-01T00:00:00Z" {
		t.Fatalf("listed: %v", r)
	}
	e.do("GET", "/api/org", key, nil).must(t, http.StatusOK)
	for name, args := range map[string][]string{
		"member email":  {"--email", member.email, "--name", "x", "--scope", "read"},
		"unknown email": {"--email", "nobody@acme.test", "--name", "x", "--scope", "read"},
		"bad scope":     {"--email", admin.email, "--name", "x", "--scope", "root"},
		"bad expiry":    {"--email", admin.email, "--name", "x", "--scope", "read", "--expires-at", "soon"},
	} {
		if out, err := run(args...); err == nil || out != "" {
			t.Errorf("%s: accepted (%q)", name, out)
		}
	}
}
