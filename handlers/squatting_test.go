package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// squat is the attack: an organization invites an address it does not
// own, reads the token from its own answer and registers the address.
func squat(t *testing.T, e *env, victim string) apitest.Account {
	t.Helper()
	mallory := e.Register("mallory@evil.test", "Evil")
	e.Verify(mallory)
	inv := e.Do("POST", "/api/org/invites", mallory.Token, map[string]string{"email": victim}).Must(t, http.StatusCreated)
	r := e.Do("POST", "/api/auth/register", "", map[string]any{"email": victim, "password": "mallory's own password",
		"name": "Not Vic", "invite_token": inv.Str("data", "token")}).Must(t, http.StatusCreated)
	return apitest.Account{Token: r.Str("token"), ID: r.Str("user", "id"), OrgID: r.Str("user", "org_id"), Email: victim}
}

// claimToken is the token of the newest claim mail to an address.
func claimToken(t *testing.T, e *env, to string) string {
	t.Helper()
	for _, m := range e.Mails(to) {
		if strings.Contains(m.Body, "another organization's invitation made") {
			return apitest.TokenInLink.FindStringSubmatch(m.Body)[1]
		}
	}
	t.Fatalf("no claim mail to %s", to)
	return ""
}

func TestNoEmailSquatting(t *testing.T) {
	const victim = "vic@acme.test"
	register := func(e *env, body map[string]any) apitest.Response {
		body["email"], body["name"] = victim, "Vic"
		if body["password"] == nil {
			body["password"] = apitest.Password
		}
		return e.Do("POST", "/api/auth/register", "", body)
	}

	t.Run("the owner's own sign-up takes the address over", func(t *testing.T) {
		e := newEnv(t)
		squatter := squat(t, e, victim)
		r := register(e, map[string]any{"org": "Acme"}).Must(t, http.StatusAccepted)
		if r.Str("data", "status") != "confirmation_pending" || r.Str("data", "email") != victim || r.Get("token").Str() != "" {
			t.Fatalf("a claim's answer: %s", r.Raw)
		}
		// Until the mailbox confirms, nothing changes.
		e.Do("GET", "/api/auth/me", squatter.Token, nil).Must(t, http.StatusOK)
		e.Login(victim, apitest.Password).Must(t, http.StatusUnauthorized)

		v := e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": claimToken(t, e, victim)}).Must(t, http.StatusOK)
		if v.Str("data", "email") != victim || !v.Get("data", "email_verified").Bool() || v.Str("data", "org_id") == squatter.OrgID {
			t.Fatalf("the confirmed claim: %s", v.Raw)
		}
		e.Do("GET", "/api/auth/me", squatter.Token, nil).Must(t, http.StatusUnauthorized)
		e.Login(victim, "mallory's own password").Must(t, http.StatusUnauthorized)
		me := e.Login(victim, apitest.Password).Must(t, http.StatusOK)
		if me.Str("user", "org_id") != v.Str("data", "org_id") || me.Str("user", "role") != "admin" {
			t.Fatalf("the owner signs in to their own organization: %s", me.Raw)
		}
		// The squatter's organization is told, by the log, what happened.
		mallory := e.Login("mallory@evil.test", apitest.Password).Must(t, http.StatusOK).Str("token")
		entry := e.Do("GET", "/api/audit-log?action=org.member_remove", mallory, nil).Must(t, http.StatusOK).Get("data").At(0)
		if entry.Get("actor").Str() != "system" || entry.Get("target").Str() != squatter.ID ||
			entry.Get("detail", "reason").Str() != "address_claimed" {
			t.Fatalf("the squatter's organization's log: %v", entry)
		}
		if n := e.Do("GET", "/api/org/members", mallory, nil).Must(t, http.StatusOK).Get("pagination", "total").Int(); n != 1 {
			t.Fatalf("%d members left in the squatter's organization, want its admin", n)
		}
	})

	t.Run("the owner's real organization can invite them and they join it", func(t *testing.T) {
		e := newEnv(t)
		squatter := squat(t, e, victim)
		boss := e.Register("boss@acme.test", "Acme")
		e.Verify(boss)
		inv := e.Do("POST", "/api/org/invites", boss.Token, map[string]string{"email": victim, "role": "admin"}).Must(t, http.StatusCreated)
		register(e, map[string]any{"invite_token": inv.Str("data", "token")}).Must(t, http.StatusAccepted)
		v := e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": claimToken(t, e, victim)}).Must(t, http.StatusOK)
		if v.Str("data", "org_id") != boss.OrgID || v.Str("data", "role") != "admin" {
			t.Fatalf("the owner joined %s as %s, want the inviting organization as admin", v.Str("data", "org_id"), v.Str("data", "role"))
		}
		e.Do("GET", "/api/auth/me", squatter.Token, nil).Must(t, http.StatusUnauthorized)
		if got := e.Do("GET", "/api/org/invites", boss.Token, nil).Must(t, http.StatusOK).Get("data").At(0).Get("status").Str(); got != "accepted" {
			t.Fatalf("the invitation is %s", got)
		}
	})

	t.Run("what still holds an address", func(t *testing.T) {
		e := newEnv(t)
		// A confirmed account, and an unconfirmed one made by sign-up (it
		// owns an organization and its data), keep their address.
		vic := e.Register(victim, "Acme")
		register(e, map[string]any{"org": "Other"}).WantError(t, http.StatusConflict, "conflict", "This e-mail address already has a Garrison account")
		e.Verify(vic)
		register(e, map[string]any{"org": "Other"}).WantError(t, http.StatusConflict, "conflict", "This e-mail address already has a Garrison account")
		// Another organization may invite the account to join it, but its
		// token (which the inviter sees) joins nobody without the account's
		// own password.
		mallory := e.Register("mallory@evil.test", "Evil")
		e.Verify(mallory)
		inv := e.Do("POST", "/api/org/invites", mallory.Token, map[string]string{"email": victim}).Must(t, http.StatusCreated)
		register(e, map[string]any{"invite_token": inv.Str("data", "token"), "password": "mallory's guess 123"}).
			WantError(t, http.StatusUnauthorized, "unauthorized", "Invalid email or password")
		if findAudit(t, e, vic.Token, "auth.login_failed").Get("detail", "user").Str() != vic.ID {
			t.Fatal("the guess is not on the account's organization's log")
		}
		if n := len(e.Do("GET", "/api/org/members", mallory.Token, nil).Must(t, http.StatusOK).List()); n != 1 {
			t.Fatalf("the inviter's organization has %d members, want its own one", n)
		}
		e.Do("POST", "/api/org/invites", vic.Token, map[string]string{"email": victim}).
			WantError(t, http.StatusConflict, "conflict", "This address's account is already a member of this organization")
	})

	t.Run("a claim is confirmed once and a bad invitation is refused", func(t *testing.T) {
		e := newEnv(t)
		squat(t, e, victim)
		register(e, map[string]any{"invite_token": "not-a-token"}).WantFields(t, "invite_token")
		register(e, map[string]any{"org": "Acme"}).Must(t, http.StatusAccepted)
		first := claimToken(t, e, victim)
		register(e, map[string]any{"org": "Acme Two", "password": "another long password"}).Must(t, http.StatusAccepted)
		second := claimToken(t, e, victim)
		e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": second}).Must(t, http.StatusOK)
		// Confirming one closes the others.
		e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": first}).WantFields(t, "token")
		e.Login(victim, "another long password").Must(t, http.StatusOK)
	})

	t.Run("five claims wait at most: a sixth drops the oldest", func(t *testing.T) {
		e := newEnv(t)
		squat(t, e, victim)
		var tokens []string
		for range 6 {
			register(e, map[string]any{"org": "Acme"}).Must(t, http.StatusAccepted)
			tokens = append(tokens, claimToken(t, e, victim))
		}
		e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": tokens[0]}).WantFields(t, "token")
		e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": tokens[1]}).Must(t, http.StatusOK)
	})

	t.Run("an expired claim confirms nothing", func(t *testing.T) {
		e := newEnv(t)
		squatter := squat(t, e, victim)
		register(e, map[string]any{"org": "Acme"}).Must(t, http.StatusAccepted)
		e.Clock.Advance(2 * time.Hour)
		e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": claimToken(t, e, victim)}).WantFields(t, "token")
		e.Do("GET", "/api/auth/me", squatter.Token, nil).Must(t, http.StatusOK)
	})
}
