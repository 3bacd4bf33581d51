package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestInvites(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	key := e.apiKey(admin, "admin")
	t.Run("unconfirmed senders cannot invite", func(t *testing.T) {
		for _, cred := range []string{admin.token, key} {
			e.do("POST", "/api/org/invites", cred, map[string]string{"email": "x@acme.test"}).
				wantError(t, http.StatusForbidden, "email_unverified", "")
		}
		if len(e.mails("x@acme.test")) != 0 {
			t.Fatal("an unconfirmed sender got mail out")
		}
	})
	e.verify(admin)
	e.do("POST", "/api/org/invites", key, map[string]string{"email": "k@acme.test"}).must(t, http.StatusCreated)
	inv := e.do("POST", "/api/org/invites", admin.token, map[string]string{"email": "Bob@Acme.test", "role": "member"}).must(t, http.StatusCreated)
	token := inv.str("data", "token")
	if token == "" || !strings.HasPrefix(inv.str("data", "id"), "inv_") || inv.str("data", "status") != "pending" {
		t.Fatalf("invite: %s", inv.raw)
	}
	if e.mailToken("bob@acme.test") != token {
		t.Fatal("invite mail does not carry the token")
	}
	if bytes.Contains(e.do("GET", "/api/org/invites", admin.token, nil).must(t, http.StatusOK).raw, []byte(token)) {
		t.Fatal("invite token shown again")
	}

	register := func(email, tok string) response {
		return e.do("POST", "/api/auth/register", "", map[string]string{"email": email, "password": testPassword, "name": "Bob", "invite_token": tok})
	}
	register("eve@evil.test", token).wantFields(t, "invite_token") // another address cannot use it
	e.do("POST", "/api/auth/register", "", map[string]string{"email": "bob@acme.test", "password": testPassword, "name": "Bob",
		"invite_token": token, "org": "Mine"}).wantFields(t, "org")
	bob := register("bob@acme.test", token).must(t, http.StatusCreated)
	if bob.str("user", "org_id") != admin.orgID || bob.str("user", "role") != "member" {
		t.Fatalf("invited user: %s", bob.raw)
	}
	register("bob2@acme.test", token).wantFields(t, "invite_token") // single use
	status := ""
	for _, inv := range e.do("GET", "/api/org/invites", admin.token, nil).list() {
		if m := inv.(map[string]any); m["email"] == "bob@acme.test" {
			status = m["status"].(string)
		}
	}
	if status != "accepted" {
		t.Fatalf("bob's invite status %q", status)
	}

	t.Run("expired", func(t *testing.T) {
		late := e.do("POST", "/api/org/invites", admin.token, map[string]string{"email": "late@acme.test"}).must(t, http.StatusCreated)
		if late.str("data", "role") != "member" {
			t.Fatalf("default role: %s", late.raw)
		}
		e.clock.Advance(7 * 24 * time.Hour)
		register("late@acme.test", late.str("data", "token")).wantFields(t, "invite_token")
	})
	t.Run("validation", func(t *testing.T) {
		fresh := e.login(admin.email, testPassword).str("token")
		e.do("POST", "/api/org/invites", fresh, map[string]string{"email": "x", "role": "owner"}).wantFields(t, "email", "role")
		e.do("POST", "/api/org/invites", fresh, map[string]string{"email": "bob@acme.test"}).wantError(t, http.StatusConflict, "conflict", "")
	})
}

func TestMembers(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	bob := e.member(admin, "bob@acme.test", "member")
	outsider := e.register("olga@other.test", "Other")

	list := e.do("GET", "/api/org/members", bob.token, nil).must(t, http.StatusOK)
	if len(list.list()) != 2 || list.body["pagination"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("members: %s", list.raw)
	}
	page := e.do("GET", "/api/org/members?limit=1", admin.token, nil).must(t, http.StatusOK)
	if p := page.body["pagination"].(map[string]any); len(page.list()) != 1 || p["next_offset"] != float64(1) || p["limit"] != float64(1) {
		t.Fatalf("page: %s", page.raw)
	}
	if p := e.do("GET", "/api/org/members?offset=1", admin.token, nil).body["pagination"].(map[string]any); p["next_offset"] != nil {
		t.Fatalf("last page next_offset: %v", p)
	}
	for _, q := range []string{"limit=-1", "limit=abc", "offset=-5", "offset=1.5"} {
		field := strings.SplitN(q, "=", 2)[0]
		e.do("GET", "/api/org/members?"+q, admin.token, nil).wantFields(t, field)
	}
	if p := e.do("GET", "/api/org/members?limit=5000", admin.token, nil).body["pagination"].(map[string]any); p["limit"] != float64(200) {
		t.Fatalf("limit not clamped: %v", p)
	}

	t.Run("another organization's member is not found", func(t *testing.T) {
		e.do("PATCH", "/api/org/members/"+bob.id, outsider.token, map[string]string{"role": "admin"}).wantError(t, http.StatusNotFound, "not_found", "Resource not found")
		e.do("DELETE", "/api/org/members/"+bob.id, outsider.token, nil).wantError(t, http.StatusNotFound, "not_found", "Resource not found")
		e.do("GET", "/api/auth/me", bob.token, nil).must(t, http.StatusOK)
	})
	t.Run("bad role", func(t *testing.T) {
		e.do("PATCH", "/api/org/members/"+bob.id, admin.token, map[string]string{"role": "owner"}).wantFields(t, "role")
	})
	t.Run("last admin cannot be demoted or removed", func(t *testing.T) {
		e.do("PATCH", "/api/org/members/"+admin.id, admin.token, map[string]string{"role": "member"}).wantError(t, http.StatusConflict, "conflict", "")
		e.do("DELETE", "/api/org/members/"+admin.id, admin.token, nil).wantError(t, http.StatusConflict, "conflict", "")
	})
	t.Run("promotion takes effect on the next request", func(t *testing.T) {
		e.do("POST", "/api/api-keys", bob.token, map[string]string{"name": "k", "scope": "read"}).wantError(t, http.StatusForbidden, "forbidden", "")
		r := e.do("PATCH", "/api/org/members/"+bob.id, admin.token, map[string]string{"role": "admin"}).must(t, http.StatusOK)
		if r.str("data", "role") != "admin" {
			t.Fatalf("promote: %s", r.raw)
		}
		e.do("POST", "/api/api-keys", bob.token, map[string]string{"name": "k", "scope": "read"}).must(t, http.StatusCreated)
		// With two admins, one may step down; then the other is the last.
		e.do("PATCH", "/api/org/members/"+admin.id, admin.token, map[string]string{"role": "member"}).must(t, http.StatusOK)
		e.do("DELETE", "/api/org/members/"+bob.id, bob.token, nil).wantError(t, http.StatusConflict, "conflict", "")
	})
	t.Run("removed member", func(t *testing.T) {
		carol := e.member(bob, "carol@acme.test", "member")
		e.do("DELETE", "/api/org/members/"+carol.id, bob.token, nil).must(t, http.StatusOK)
		e.login(carol.email, testPassword).wantError(t, http.StatusUnauthorized, "unauthorized", "Invalid email or password")
		e.do("DELETE", "/api/org/members/"+carol.id, bob.token, nil).wantError(t, http.StatusNotFound, "not_found", "")
	})
}

func TestOrgAndPlanCLI(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	member := e.member(admin, "bob@acme.test", "member")
	org := e.do("GET", "/api/org", admin.token, nil).must(t, http.StatusOK).data()
	if org["name"] != "Acme" || org["plan"] != "starter" || org["members_count"] != float64(2) || org["id"] != admin.orgID {
		t.Fatalf("org: %v", org)
	}
	var out bytes.Buffer
	if err := runCLI(t, []string{"org", "set-plan", "--data", e.app.dataDir(t), "--email", admin.email, "--plan", "pro"}, &out, &out); err != nil {
		t.Fatalf("set-plan: %v (%s)", err, out.String())
	}
	// The running server sees it on the very next request.
	if p := e.do("GET", "/api/org", member.token, nil).str("data", "plan"); p != "pro" {
		t.Fatalf("plan after set-plan: %q", p)
	}
	for name, args := range map[string][]string{
		"member email": {"--email", member.email, "--plan", "ultimate"},
		"bad plan":     {"--email", admin.email, "--plan", "gold"},
	} {
		if err := runCLI(t, append([]string{"org", "set-plan", "--data", e.app.dataDir(t)}, args...), &out, &out); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if p := e.do("GET", "/api/org", admin.token, nil).str("data", "plan"); p != "pro" {
		t.Fatalf("refused set-plan changed the plan: %q", p)
	}
}
