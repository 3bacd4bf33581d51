package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRegisterValidation(t *testing.T) {
	e := newTestEnv(t)
	e.register("taken@acme.test", "Acme")
	good := func(edit func(map[string]any)) map[string]any {
		b := map[string]any{"email": "new@acme.test", "password": testPassword, "name": "New User"}
		edit(b)
		return b
	}
	tests := []struct {
		name   string
		body   any
		fields []string
	}{
		{"empty body", nil, []string{"email", "password", "name"}},
		{"bad email", good(func(b map[string]any) { b["email"] = "not-an-address" }), []string{"email"}},
		{"display-name email", good(func(b map[string]any) { b["email"] = "Ann <ann@acme.test>" }), []string{"email"}},
		{"short password", good(func(b map[string]any) { b["password"] = "elevenchars" }), []string{"password"}},
		{"long password", good(func(b map[string]any) { b["password"] = strings.Repeat("x", 257) }), []string{"password"}},
		{"common password", good(func(b map[string]any) { b["password"] = "password1234" }), []string{"password"}},
		{"blank name", good(func(b map[string]any) { b["name"] = "" }), []string{"name"}},
		{"control char in name", good(func(b map[string]any) { b["name"] = "Ann\nBcc: x" }), []string{"name"}},
		{"number as name", good(func(b map[string]any) { b["name"] = 7 }), []string{"name"}},
		{"role injection", good(func(b map[string]any) { b["role"] = "admin" }), []string{"role"}},
		{"org_id injection", good(func(b map[string]any) { b["org_id"] = "org_x" }), []string{"org_id"}},
		{"case variant of a field", good(func(b map[string]any) { b["Email"] = "x@acme.test" }), []string{"Email"}},
		{"bad invite", good(func(b map[string]any) { b["invite_token"] = "nope" }), []string{"invite_token"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.do("POST", "/api/auth/register", "", tc.body).wantFields(t, tc.fields...)
		})
	}
	t.Run("taken email", func(t *testing.T) {
		e.do("POST", "/api/auth/register", "", good(func(b map[string]any) { b["email"] = "TAKEN@acme.test" })).
			wantError(t, http.StatusConflict, "conflict", "")
	})
	t.Run("nothing stored by refusals", func(t *testing.T) {
		e.login("new@acme.test", testPassword).wantError(t, http.StatusUnauthorized, "unauthorized", "Invalid email or password")
	})
}

func TestRegisterAnswer(t *testing.T) {
	e := newTestEnv(t)
	r := e.do("POST", "/api/auth/register", "", map[string]string{
		"email": "Ann@Acme.test", "password": testPassword, "name": "Ann"}).must(t, http.StatusCreated)
	if r.body["success"] != true || r.str("token") == "" || r.str("data", "token") != r.str("token") {
		t.Fatalf("register answer: %s", r.raw)
	}
	u := r.body["user"].(map[string]any)
	if u["email"] != "ann@acme.test" || u["role"] != "admin" || u["org"] != "acme.test" || u["plan"] != "starter" ||
		!strings.HasPrefix(u["id"].(string), "usr_") || !strings.HasPrefix(u["org_id"].(string), "org_") {
		t.Fatalf("user: %v", u)
	}
	for _, secret := range []string{"password", "hash", "token_version", "pbkdf2"} {
		if strings.Contains(string(r.raw), secret) {
			t.Errorf("answer mentions %q: %s", secret, r.raw)
		}
	}
	if got := e.mails("ann@acme.test"); len(got) != 1 || !strings.Contains(got[0].Body, "https://garrison.test/verify-email?token=") {
		t.Fatalf("verification mail: %+v", got)
	}
}

func TestDefaultPlanFlag(t *testing.T) {
	e := newTestEnv(t, func(c *config) { c.defaultPlan = "pro" })
	a := e.register("ann@acme.test", "Acme")
	if got := e.do("GET", "/api/org", a.token, nil).must(t, http.StatusOK).str("data", "plan"); got != "pro" {
		t.Fatalf("plan %q", got)
	}
}

func TestLogin(t *testing.T) {
	e := newTestEnv(t)
	e.register("ann@acme.test", "Acme")
	tests := []struct {
		name, email, password string
		status                int
	}{
		{"right", "ann@acme.test", testPassword, http.StatusOK},
		{"address in other case", "ANN@acme.test", testPassword, http.StatusOK},
		{"wrong password", "ann@acme.test", "wrong password!!", http.StatusUnauthorized},
		{"unknown address", "nobody@acme.test", testPassword, http.StatusUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.login(tc.email, tc.password)
			if tc.status == http.StatusOK {
				r.must(t, http.StatusOK)
				if r.str("token") == "" || r.str("expires_at") == "" || r.str("user", "role") != "admin" || r.str("data", "user", "org") != "Acme" {
					t.Fatalf("login answer: %s", r.raw)
				}
				return
			}
			r.wantError(t, http.StatusUnauthorized, "unauthorized", "Invalid email or password")
		})
	}
	t.Run("unknown and wrong answer alike", func(t *testing.T) {
		a := e.login("nobody@acme.test", testPassword)
		b := e.login("ann@acme.test", "wrong password!!")
		if string(a.raw) != string(b.raw) {
			t.Fatalf("bodies differ:\n%s\n%s", a.raw, b.raw)
		}
	})
	t.Run("missing fields", func(t *testing.T) {
		e.do("POST", "/api/auth/login", "", map[string]string{}).wantFields(t, "email", "password")
	})
}

func TestResetFlow(t *testing.T) {
	e := newTestEnv(t)
	a := e.register("ann@acme.test", "Acme")
	newPassword := "a brand new passphrase"

	known := e.do("POST", "/api/auth/reset-request", "", map[string]string{"email": a.email}).must(t, http.StatusOK)
	unknown := e.do("POST", "/api/auth/reset-request", "", map[string]string{"email": "nobody@acme.test"}).must(t, http.StatusOK)
	alias := e.do("POST", "/api/auth/reset-password", "", map[string]string{"email": "nobody@acme.test"}).must(t, http.StatusOK)
	if string(known.raw) != string(unknown.raw) || string(unknown.raw) != string(alias.raw) {
		t.Fatalf("answers differ:\n%s\n%s\n%s", known.raw, unknown.raw, alias.raw)
	}
	// Both did the same work: one queued request each, and no mail yet.
	var queued int
	rawDB(t, e).QueryRow(`SELECT COUNT(*) FROM reset_requests`).Scan(&queued)
	if queued != 3 || len(e.mails(a.email)) != 1 {
		t.Fatalf("queued %d requests, %d mails before the worker", queued, len(e.mails(a.email)))
	}
	if err := e.app.mailer.ProcessResetRequests(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(e.mails("nobody@acme.test")) != 0 {
		t.Fatal("mail sent to an address without an account")
	}
	rawDB(t, e).QueryRow(`SELECT COUNT(*) FROM reset_requests`).Scan(&queued)
	if queued != 0 {
		t.Fatalf("%d requests left in the queue", queued)
	}
	token := e.mailToken(a.email)
	if !strings.Contains(e.mails(a.email)[0].Body, "https://garrison.test/reset-password?token=") {
		t.Fatal("reset link not built on --base-url")
	}

	e.do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": token, "new_password": "short"}).wantFields(t, "new_password")
	e.do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": "wrong", "new_password": newPassword}).wantFields(t, "token")
	e.do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": token, "new_password": newPassword}).must(t, http.StatusOK)
	e.login(a.email, testPassword).wantError(t, http.StatusUnauthorized, "unauthorized", "Invalid email or password")
	e.login(a.email, newPassword).must(t, http.StatusOK)
	t.Run("token reused", func(t *testing.T) {
		e.do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": token, "new_password": "yet another passphrase"}).wantFields(t, "token")
	})
	t.Run("token expired after an hour", func(t *testing.T) {
		late := e.resetToken(a.email)
		e.clock.Advance(time.Hour)
		e.do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": late, "new_password": "yet another passphrase"}).wantFields(t, "token")
	})
	t.Run("newer request voids older", func(t *testing.T) {
		older := e.resetToken(a.email)
		newer := e.resetToken(a.email)
		e.do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": older, "new_password": "yet another passphrase"}).wantFields(t, "token")
		e.do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": newer, "new_password": "yet another passphrase"}).must(t, http.StatusOK)
	})
	t.Run("bad address", func(t *testing.T) {
		e.do("POST", "/api/auth/reset-request", "", map[string]string{"email": "nope"}).wantFields(t, "email")
	})
}

func TestVerifyEmail(t *testing.T) {
	e := newTestEnv(t)
	a := e.register("ann@acme.test", "Acme")
	token := e.mailToken(a.email)
	e.do("POST", "/api/auth/verify-email", "", map[string]string{"token": "bogus"}).wantFields(t, "token")
	e.do("POST", "/api/auth/verify-email", "", map[string]string{}).wantFields(t, "token")
	r := e.do("POST", "/api/auth/verify-email", "", map[string]string{"token": token}).must(t, http.StatusOK)
	if r.data()["email_verified"] != true {
		t.Fatalf("verify answer: %s", r.raw)
	}
	if e.do("GET", "/api/auth/me", a.token, nil).must(t, http.StatusOK).data()["email_verified"] != true {
		t.Fatal("profile not verified")
	}
	e.do("POST", "/api/auth/verify-email", "", map[string]string{"token": token}).wantFields(t, "token")
	// A verification token is not a reset token.
	e.do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": token, "new_password": "a brand new passphrase"}).wantFields(t, "token")
}

func TestVerifyTokenExpires(t *testing.T) {
	e := newTestEnv(t)
	a := e.register("ann@acme.test", "Acme")
	e.clock.Advance(time.Hour)
	e.do("POST", "/api/auth/verify-email", "", map[string]string{"token": e.mailToken(a.email)}).wantFields(t, "token")
}

func TestChangePasswordFailures(t *testing.T) {
	e := newTestEnv(t)
	a := e.register("ann@acme.test", "Acme")
	tests := []struct {
		name   string
		body   map[string]string
		fields []string
	}{
		{"wrong current", map[string]string{"current_password": "not my password", "new_password": "a brand new passphrase"}, []string{"current_password"}},
		{"weak new", map[string]string{"current_password": testPassword, "new_password": "short"}, []string{"new_password"}},
		{"same as current", map[string]string{"current_password": testPassword, "new_password": testPassword}, []string{"new_password"}},
		{"missing", map[string]string{}, []string{"current_password", "new_password"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.do("POST", "/api/auth/change-password", a.token, tc.body).wantFields(t, tc.fields...)
			e.do("GET", "/api/auth/me", a.token, nil).must(t, http.StatusOK) // nothing changed
		})
	}
}

func TestProfile(t *testing.T) {
	e := newTestEnv(t)
	a := e.register("ann@acme.test", "Acme")
	for _, path := range []string{"/api/auth/me", "/api/user/profile"} {
		d := e.do("GET", path, a.token, nil).must(t, http.StatusOK).data()
		org := d["organization"].(map[string]any)
		if d["id"] != a.id || d["role"] != "admin" || org["id"] != a.orgID || org["name"] != "Acme" || org["members_count"] != float64(1) {
			t.Fatalf("%s: %v", path, d)
		}
	}
}
