package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"garrison/handlers/apitest"
)

func TestAuditLog(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.Do("POST", "/api/auth/login", "", map[string]string{"email": "ann@acme.test", "password": "wrong password here"}).
		WantError(t, http.StatusUnauthorized, "unauthorized", "")
	e.Do("POST", "/api/auth/login", "", map[string]string{"email": "nobody@acme.test", "password": "wrong password here"}).
		WantError(t, http.StatusUnauthorized, "unauthorized", "")
	e.Login("ann@acme.test", apitest.Password).Must(t, http.StatusOK)
	key := e.APIKey(admin, "admin")
	keyID := e.Do("GET", "/api/api-keys", admin.Token, nil).Must(t, http.StatusOK).Get("data", "0", "id").MustStr(t)
	started := e.Do("POST", "/api/compliance/audit", key, map[string]any{"framework": "cis"}).Must(t, http.StatusAccepted)
	e.Do("POST", "/api/compliance/audit", key, map[string]any{"framework": "iso"}).WantFields(t, "framework") // refused: not recorded
	e.Do("DELETE", "/api/api-keys/"+keyID, admin.Token, nil).Must(t, http.StatusOK)
	other := e.Register("zoe@other.test", "Other")

	list := e.Do("GET", "/api/audit-log?limit=100", admin.Token, nil).Must(t, http.StatusOK).Get("data").List()
	actions := map[string]apitest.JSON{}
	for _, m := range list {
		actions[m.Get("action").MustStr(t)] = m
	}
	for _, want := range []string{"auth.register", "auth.login_failed", "auth.login", "api_key.create", "compliance.audit", "api_key.revoke"} {
		if actions[want].IsNull() {
			t.Fatalf("no %s entry in %v", want, list)
		}
	}
	if len(list) != 6 {
		t.Fatalf("%d entries, want 6 (the refused request and the unknown address are not on the log): %v", len(list), list)
	}
	if a := actions["compliance.audit"]; !a.Get("actor").Is(keyID) || a.Get("ip").Is("") || a.Get("request_id").Is("") {
		t.Fatalf("entry by a key: %v", a)
	}
	// A creation names what it created.
	if a := actions["compliance.audit"]; !a.Get("target").Is(started.Str("data", "report_id")) ||
		!a.Get("detail").MustObject(t).Get("agent_run_id").Is(started.Str("data", "agent_run_id")) {
		t.Fatalf("the audit's entry names no report: %v (started %s)", a, started.Raw)
	}
	if a := actions["api_key.revoke"]; !a.Get("actor").Is(admin.ID) || !a.Get("target").Is(keyID) {
		t.Fatalf("revocation: %v", a)
	}
	if a := actions["api_key.create"]; !a.Get("target").Is(keyID) || !a.Get("detail").MustObject(t).Get("scope").Is("admin") {
		t.Fatalf("creation names no key: %v", a)
	}
	if a := actions["auth.login_failed"]; !a.Get("actor").Is("") || !a.Get("detail").MustObject(t).Get("user").Is(admin.ID) {
		t.Fatalf("failed login: %v", a)
	}
	// Filters; another organization sees only its own.
	if n := len(e.Do("GET", "/api/audit-log?action=auth.login_failed", admin.Token, nil).Must(t, http.StatusOK).List()); n != 1 {
		t.Fatalf("action filter: %d", n)
	}
	if n := len(e.Do("GET", "/api/audit-log?actor="+keyID, admin.Token, nil).Must(t, http.StatusOK).List()); n != 1 {
		t.Fatalf("actor filter: %d", n)
	}
	if n := len(e.Do("GET", "/api/audit-log?to=2000-01-01T00:00:00Z", admin.Token, nil).Must(t, http.StatusOK).List()); n != 0 {
		t.Fatalf("to filter: %d", n)
	}
	e.Do("GET", "/api/audit-log?from=yesterday", admin.Token, nil).WantFields(t, "from")
	e.Do("GET", "/api/audit-log?action=bogus", admin.Token, nil).WantFields(t, "action")
	e.Do("GET", "/api/audit-log?actor="+strings.Repeat("k", 65), admin.Token, nil).WantFields(t, "actor")
	e.Do("GET", "/api/audit-log?action=org.plan&actor=", admin.Token, nil).Must(t, http.StatusOK) // the CLI's; empty: no filter
	e.Do("GET", "/api/audit-log?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z", admin.Token, nil).WantFields(t, "from")
	if n := len(e.Do("GET", "/api/audit-log", other.Token, nil).Must(t, http.StatusOK).List()); n != 1 {
		t.Fatalf("the other organization's log: %d", n)
	}
	member := e.Member(admin, "bob@acme.test", "member")
	e.Do("GET", "/api/audit-log", member.Token, nil).WantError(t, http.StatusForbidden, "forbidden", "")
	// The organization's deletion is recorded, and kept.
	e.Do("DELETE", "/api/org", admin.Token, map[string]any{"confirm": "Acme"}).Must(t, http.StatusOK)
	var n int
	if err := e.Store.DB().QueryRow(`SELECT COUNT(*) FROM audit_log WHERE org_id = ? AND action = 'org.delete' AND actor = ?`, admin.OrgID, admin.ID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("deletion entry: %d %v", n, err)
	}
}

// TestAuditLogAccountRecovery: the public routes that change an account
// (reset, confirmation) are recorded with the account they acted on.
func TestAuditLogAccountRecovery(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": e.MailToken(admin.Email)}).Must(t, http.StatusOK)
	e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": e.ResetToken(admin.Email), "new_password": "a brand new passphrase"}).Must(t, http.StatusOK)
	e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": "spent-or-forged", "new_password": "a brand new passphrase"}).WantFields(t, "token")
	login := e.Login(admin.Email, "a brand new passphrase").Must(t, http.StatusOK)
	for _, action := range []string{"auth.verify_email", "auth.reset_password"} {
		list := e.Do("GET", "/api/audit-log?action="+action, login.Str("token"), nil).Must(t, http.StatusOK).Get("data").List()
		if len(list) != 1 || list[0].Get("actor").Str() != admin.ID {
			t.Fatalf("%s: %v", action, list)
		}
	}
}
