package handlers_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

func TestInvites(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "admin")
	t.Run("unconfirmed senders cannot invite", func(t *testing.T) {
		for _, cred := range []string{admin.Token, key} {
			e.Do("POST", "/api/org/invites", cred, map[string]string{"email": "x@acme.test"}).
				WantError(t, http.StatusForbidden, "email_unverified", "")
		}
		if len(e.Mails("x@acme.test")) != 0 {
			t.Fatal("an unconfirmed sender got mail out")
		}
	})
	e.Verify(admin)
	e.Do("POST", "/api/org/invites", key, map[string]string{"email": "k@acme.test"}).Must(t, http.StatusCreated)
	inv := e.Do("POST", "/api/org/invites", admin.Token, map[string]string{"email": "Bob@Acme.test", "role": "member"}).Must(t, http.StatusCreated)
	token := inv.Str("data", "token")
	if token == "" || !strings.HasPrefix(inv.Str("data", "id"), "inv_") || inv.Str("data", "status") != "pending" {
		t.Fatalf("invite: %s", inv.Raw)
	}
	if e.MailToken("bob@acme.test") != token {
		t.Fatal("invite mail does not carry the token")
	}
	if bytes.Contains(e.Do("GET", "/api/org/invites", admin.Token, nil).Must(t, http.StatusOK).Raw, []byte(token)) {
		t.Fatal("invite token shown again")
	}

	register := func(email, tok string) apitest.Response {
		return e.Do("POST", "/api/auth/register", "", map[string]string{"email": email, "password": apitest.Password, "name": "Bob", "invite_token": tok})
	}
	register("eve@evil.test", token).WantFields(t, "invite_token") // another address cannot use it
	e.Do("POST", "/api/auth/register", "", map[string]string{"email": "bob@acme.test", "password": apitest.Password, "name": "Bob",
		"invite_token": token, "org": "Mine"}).WantFields(t, "org")
	bob := register("bob@acme.test", token).Must(t, http.StatusCreated)
	if bob.Str("user", "org_id") != admin.OrgID || bob.Str("user", "role") != "member" {
		t.Fatalf("invited user: %s", bob.Raw)
	}
	register("bob2@acme.test", token).WantFields(t, "invite_token") // single use
	status := ""
	for _, inv := range e.Do("GET", "/api/org/invites", admin.Token, nil).Get("data").List() {
		if m := inv.MustObject(t); m.Get("email").Str() == "bob@acme.test" {
			status = m.Get("status").MustStr(t)
		}
	}
	if status != "accepted" {
		t.Fatalf("bob's invite status %q", status)
	}

	t.Run("expired", func(t *testing.T) {
		late := e.Do("POST", "/api/org/invites", admin.Token, map[string]string{"email": "late@acme.test"}).Must(t, http.StatusCreated)
		if late.Str("data", "role") != "member" {
			t.Fatalf("default role: %s", late.Raw)
		}
		e.Clock.Advance(7 * 24 * time.Hour)
		register("late@acme.test", late.Str("data", "token")).WantFields(t, "invite_token")
	})
	t.Run("validation", func(t *testing.T) {
		fresh := e.Login(admin.Email, apitest.Password).Str("token")
		e.Do("POST", "/api/org/invites", fresh, map[string]string{"email": "x", "role": "owner"}).WantFields(t, "email", "role")
		e.Do("POST", "/api/org/invites", fresh, map[string]string{"email": "bob@acme.test"}).WantError(t, http.StatusConflict, "conflict", "")
	})
}

func TestMembers(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	bob := e.Member(admin, "bob@acme.test", "member")
	outsider := e.Register("olga@other.test", "Other")

	list := e.Do("GET", "/api/org/members", bob.Token, nil).Must(t, http.StatusOK)
	if len(list.List()) != 2 || list.Get("pagination", "total").Float() != 2 {
		t.Fatalf("members: %s", list.Raw)
	}
	page := e.Do("GET", "/api/org/members?limit=1", admin.Token, nil).Must(t, http.StatusOK)
	if p := page.Get("pagination"); len(page.List()) != 1 || p.Get("next_offset").Float() != 1 || p.Get("limit").Float() != 1 {
		t.Fatalf("page: %s", page.Raw)
	}
	if p := e.Do("GET", "/api/org/members?offset=1", admin.Token, nil).Get("pagination").MustObject(t); !p.Get("next_offset").IsNull() {
		t.Fatalf("last page next_offset: %v", p)
	}
	for _, q := range []string{"limit=-1", "limit=abc", "offset=-5", "offset=1.5"} {
		field := strings.SplitN(q, "=", 2)[0]
		e.Do("GET", "/api/org/members?"+q, admin.Token, nil).WantFields(t, field)
	}
	if p := e.Do("GET", "/api/org/members?limit=5000", admin.Token, nil).Get("pagination"); p.Get("limit").Float() != 200 {
		t.Fatalf("limit not clamped: %v", p)
	}

	t.Run("another organization's member is not found", func(t *testing.T) {
		e.Do("PATCH", "/api/org/members/"+bob.ID, outsider.Token, map[string]string{"role": "admin"}).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
		e.Do("DELETE", "/api/org/members/"+bob.ID, outsider.Token, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
		e.Do("GET", "/api/auth/me", bob.Token, nil).Must(t, http.StatusOK)
	})
	t.Run("bad role", func(t *testing.T) {
		e.Do("PATCH", "/api/org/members/"+bob.ID, admin.Token, map[string]string{"role": "owner"}).WantFields(t, "role")
	})
	t.Run("last admin cannot be demoted or removed", func(t *testing.T) {
		e.Do("PATCH", "/api/org/members/"+admin.ID, admin.Token, map[string]string{"role": "member"}).WantError(t, http.StatusConflict, "conflict", "")
		e.Do("DELETE", "/api/org/members/"+admin.ID, admin.Token, nil).WantError(t, http.StatusConflict, "conflict", "")
	})
	t.Run("promotion takes effect on the next request", func(t *testing.T) {
		e.Do("POST", "/api/api-keys", bob.Token, map[string]string{"name": "k", "scope": "read"}).WantError(t, http.StatusForbidden, "forbidden", "")
		r := e.Do("PATCH", "/api/org/members/"+bob.ID, admin.Token, map[string]string{"role": "admin"}).Must(t, http.StatusOK)
		if r.Str("data", "role") != "admin" {
			t.Fatalf("promote: %s", r.Raw)
		}
		e.Do("POST", "/api/api-keys", bob.Token, map[string]string{"name": "k", "scope": "read"}).Must(t, http.StatusCreated)
		// With two admins, one may step down; then the other is the last.
		e.Do("PATCH", "/api/org/members/"+admin.ID, admin.Token, map[string]string{"role": "member"}).Must(t, http.StatusOK)
		e.Do("DELETE", "/api/org/members/"+bob.ID, bob.Token, nil).WantError(t, http.StatusConflict, "conflict", "")
	})
	t.Run("removed member", func(t *testing.T) {
		carol := e.Member(bob, "carol@acme.test", "member")
		e.Do("DELETE", "/api/org/members/"+carol.ID, bob.Token, nil).Must(t, http.StatusOK)
		e.Login(carol.Email, apitest.Password).WantError(t, http.StatusUnauthorized, "unauthorized", "Invalid email or password")
		e.Do("DELETE", "/api/org/members/"+carol.ID, bob.Token, nil).WantError(t, http.StatusNotFound, "not_found", "")
	})
}
