package handlers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// TestNoClimbFromAKey replays the attack: an admin API key invites an admin
// address it controls, registers it with the token in the answer, demotes
// the real admin and deletes the organization. Every link is now closed,
// and each refusal is on the audit log.
func TestNoClimbFromAKey(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.Verify(admin)
	key := e.APIKey(admin, "admin")

	// A key's invitation cannot make an admin.
	e.Do("POST", "/api/org/invites", key, map[string]string{"email": "mallory@evil.test", "role": "admin"}).
		WantError(t, http.StatusForbidden, "forbidden", "An API key's invitation cannot make an admin; an admin invites admins from their session")
	// A member it invites cannot be made admin by the key.
	inv := e.Do("POST", "/api/org/invites", key, map[string]string{"email": "mallory@evil.test", "role": "member"}).Must(t, http.StatusCreated)
	r := e.Do("POST", "/api/auth/register", "", map[string]any{"email": "mallory@evil.test", "password": apitest.Password, "name": "M",
		"invite_token": inv.Str("data", "token")}).Must(t, http.StatusCreated)
	mallory := apitest.Account{Token: r.Str("token"), ID: r.Str("user", "id"), Email: "mallory@evil.test"}
	needsPerson := "Changing who is an admin, and deleting the organization, need an admin's session, not an API key"
	e.Do("PATCH", "/api/org/members/"+mallory.ID, key, map[string]string{"role": "admin"}).WantError(t, http.StatusForbidden, "forbidden", needsPerson)
	e.Do("PATCH", "/api/org/members/"+admin.ID, key, map[string]string{"role": "member"}).WantError(t, http.StatusForbidden, "forbidden", needsPerson)
	e.Do("DELETE", "/api/org/members/"+admin.ID, key, nil).WantError(t, http.StatusForbidden, "forbidden", needsPerson)
	e.Do("DELETE", "/api/org", key, map[string]string{"confirm": "Acme"}).WantError(t, http.StatusForbidden, "forbidden", needsPerson)

	// Even promoted by the real admin, an account made through a key's
	// invitation cannot leave itself the only admin.
	e.Do("PATCH", "/api/org/members/"+mallory.ID, admin.Token, map[string]string{"role": "admin"}).Must(t, http.StatusOK)
	e.Do("PATCH", "/api/org/members/"+admin.ID, mallory.Token, map[string]string{"role": "member"}).WantError(t, http.StatusConflict, "conflict", "")
	e.Do("DELETE", "/api/org/members/"+admin.ID, mallory.Token, nil).WantError(t, http.StatusConflict, "conflict", "")

	// Refusals are recorded with who tried.
	var denied int
	for _, en := range e.Do("GET", "/api/audit-log?action=access.denied", admin.Token, nil).Must(t, http.StatusOK).Get("data").MustList(t) {
		if en.Get("actor").Str() == keyID(t, e, admin, key) {
			denied++
		}
	}
	if denied != 5 {
		t.Fatalf("%d of the key's refusals on the audit log, want 5", denied)
	}
}

// keyID is the id of the organization's key whose secret is key.
func keyID(t *testing.T, e *env, admin apitest.Account, key string) string {
	t.Helper()
	for _, k := range e.Do("GET", "/api/api-keys", admin.Token, nil).Must(t, http.StatusOK).Get("data").MustList(t) {
		if len(key) > 10 && k.Get("prefix").Str() != "" && key[:len(k.Get("prefix").Str())] == k.Get("prefix").Str() {
			return k.Get("id").MustStr(t)
		}
	}
	t.Fatal("no such key")
	return ""
}

// TestAdminChangesNeedARecentPassword: granting or taking away admin,
// removing an admin and deleting the organization need a password given in
// the last ten minutes; POST /auth/reauthenticate gives one.
func TestAdminChangesNeedARecentPassword(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	bob := e.Member(admin, "bob@acme.test", "member")
	e.Clock.Advance(11 * time.Minute)

	e.Do("PATCH", "/api/org/members/"+bob.ID, admin.Token, map[string]string{"role": "admin"}).
		WantError(t, http.StatusForbidden, "reauthentication_required", "")
	e.Do("DELETE", "/api/org", admin.Token, map[string]string{"confirm": "Acme"}).WantError(t, http.StatusForbidden, "reauthentication_required", "")
	e.Do("PATCH", "/api/org/members/"+bob.ID, admin.Token, map[string]string{"role": "member"}).Must(t, http.StatusOK) // no admin changes hands

	e.Do("POST", "/api/auth/reauthenticate", admin.Token, map[string]string{"password": "not my password"}).WantFields(t, "password")
	e.Do("POST", "/api/auth/reauthenticate", bob.Token, map[string]string{}).WantFields(t, "password")
	fresh := e.Do("POST", "/api/auth/reauthenticate", admin.Token, map[string]string{"password": apitest.Password}).Must(t, http.StatusOK).Str("token")
	e.Do("GET", "/api/auth/me", admin.Token, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "Token invalidated. Please log in again.")
	e.Do("PATCH", "/api/org/members/"+bob.ID, fresh, map[string]string{"role": "admin"}).Must(t, http.StatusOK)

	// The role change says what it was and what it became.
	entries := e.Do("GET", "/api/audit-log?action=org.member_update", fresh, nil).Must(t, http.StatusOK).Get("data").MustList(t)
	if len(entries) != 2 || entries[0].Get("detail", "role_from").Str() != "member" || entries[0].Get("detail", "role_to").Str() != "admin" ||
		entries[1].Get("detail", "role_from").Str() != "member" || entries[1].Get("detail", "role_to").Str() != "member" {
		t.Fatalf("role changes on the log: %v", entries)
	}
	if n := len(e.Do("GET", "/api/audit-log?action=auth.reauthenticate", fresh, nil).Must(t, http.StatusOK).Get("data").MustList(t)); n != 1 {
		t.Fatalf("%d reauthentications on the log", n)
	}
}

// TestNoSignInUnrecorded: no sign-in, right or wrong, is answered
// without its entry on the audit log: as the disk fills, each is either
// answered and recorded or refused as unavailable.
func TestNoSignInUnrecorded(t *testing.T) {
	apitest.SQLiteOnly(t, "it fills the disk through SQLite's page limit (PRAGMA max_page_count); PostgreSQL's disk-full error (53100) is mapped to 503 the same way, but this harness cannot fill its disk")
	e := newEnv(t)
	e.Register("ann@acme.test", "Acme")
	if err := e.Store.LimitPages(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	answered := map[string]int{}
	for _, password := range []string{"wrong password entirely", apitest.Password} {
		full := false
		for range 500 {
			r := e.Login("ann@acme.test", password)
			if r.Status == http.StatusServiceUnavailable {
				r.WantError(t, http.StatusServiceUnavailable, "unavailable", "")
				full = true
				break
			}
			answered[password]++
		}
		if !full {
			t.Fatal("the disk never filled")
		}
	}
	if err := e.Store.LimitPages(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	token := e.Login("ann@acme.test", apitest.Password).Must(t, http.StatusOK).Str("token")
	count := func(action string) int {
		return e.Do("GET", "/api/audit-log?limit=1&action="+action, token, nil).Must(t, http.StatusOK).Get("pagination", "total").Int()
	}
	if got, want := count("auth.login_failed"), answered["wrong password entirely"]; got != want {
		t.Errorf("%d refused sign-ins answered, %d on the log", want, got)
	}
	if got, want := count("auth.login"), answered[apitest.Password]+1; got != want {
		t.Errorf("%d sign-ins answered, %d on the log", want, got)
	}
}

// TestMoreChangesAudited: refused admin actions, policy adoption, asset and
// watchlist deletion and prospect imports are on the audit log, with what
// they were.
func TestMoreChangesAudited(t *testing.T) {
	e := newEnv(t, func(c *apitest.Config) { c.DefaultPlan = "pro" })
	admin := e.Register("ann@acme.test", "Acme")
	member := e.Member(admin, "bob@acme.test", "member")
	e.Do("GET", "/api/api-keys", member.Token, nil).Must(t, http.StatusForbidden)
	asset := e.Do("POST", "/api/assets", admin.Token, []map[string]any{{"hostname": "ws-07", "ip": "10.0.0.7"}}).Must(t, http.StatusCreated).
		Get("data").At(0).Get("id").MustStr(t)
	e.Do("DELETE", "/api/assets/"+asset, admin.Token, nil).Must(t, http.StatusOK)
	watch := e.Do("POST", "/api/cve-watchlist", admin.Token, map[string]string{"cve_id": "CVE-2021-44228"}).Must(t, http.StatusCreated).Str("data", "id")
	e.Do("DELETE", "/api/cve-watchlist/"+watch, admin.Token, nil).Must(t, http.StatusOK)
	e.Do("POST", "/api/compliance/templates/incident-response/adopt", admin.Token, nil).Must(t, http.StatusCreated)
	e.DoHeaders("POST", "/api/outreach/prospects", "company,domain\nSmith Dental,smith-dental.example\n",
		map[string]string{"Authorization": "Bearer " + admin.Token, "Content-Type": "text/csv"}).Must(t, http.StatusCreated)

	for _, tc := range []struct{ action, key, value string }{
		{"access.denied", "route", "GET /api/api-keys"},
		{"asset.delete", "hostname", "ws-07"},
		{"watchlist.remove", "cve_id", "CVE-2021-44228"},
		{"compliance.policy_adopt", "adopted", "now"},
		{"outreach.import", "created", "1"},
	} {
		entries := e.Do("GET", "/api/audit-log?action="+tc.action, admin.Token, nil).Must(t, http.StatusOK).Get("data").MustList(t)
		if len(entries) != 1 || entries[0].Get("detail", tc.key).Str() != tc.value {
			t.Errorf("%s on the log: %v", tc.action, entries)
		}
	}
}
