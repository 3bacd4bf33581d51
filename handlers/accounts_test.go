package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

func TestRegisterValidation(t *testing.T) {
	e := newEnv(t)
	e.Register("taken@acme.test", "Acme")
	good := func(edit func(map[string]any)) map[string]any {
		b := map[string]any{"email": "new@acme.test", "password": apitest.Password, "name": "New User"}
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
			e.Do("POST", "/api/auth/register", "", tc.body).WantFields(t, tc.fields...)
		})
	}
	t.Run("taken email", func(t *testing.T) {
		e.Do("POST", "/api/auth/register", "", good(func(b map[string]any) { b["email"] = "TAKEN@acme.test" })).
			WantError(t, http.StatusConflict, "conflict", "")
	})
	t.Run("nothing stored by refusals", func(t *testing.T) {
		e.Login("new@acme.test", apitest.Password).WantError(t, http.StatusUnauthorized, "unauthorized", "Invalid email or password")
	})
}

func TestRegisterAnswer(t *testing.T) {
	e := newEnv(t)
	r := e.Do("POST", "/api/auth/register", "", map[string]string{
		"email": "Ann@Acme.test", "password": apitest.Password, "name": "Ann"}).Must(t, http.StatusCreated)
	if r.Body["success"] != true || r.Str("token") == "" || r.Str("data", "token") != r.Str("token") {
		t.Fatalf("register answer: %s", r.Raw)
	}
	u := r.Get("user")
	if u.Get("email").Str() != "ann@acme.test" || u.Get("role").Str() != "admin" || u.Get("org").Str() != "acme.test" || u.Get("plan").Str() != "starter" ||
		!strings.HasPrefix(u.Get("id").Str(), "usr_") || !strings.HasPrefix(u.Get("org_id").Str(), "org_") {
		t.Fatalf("user: %v", u)
	}
	for _, secret := range []string{"password", "hash", "token_version", "pbkdf2"} {
		if strings.Contains(string(r.Raw), secret) {
			t.Errorf("answer mentions %q: %s", secret, r.Raw)
		}
	}
	if got := e.Mails("ann@acme.test"); len(got) != 1 || !strings.Contains(got[0].Body, "https://garrison.test/verify-email?token=") {
		t.Fatalf("verification mail: %+v", got)
	}
}

func TestLogin(t *testing.T) {
	e := newEnv(t)
	e.Register("ann@acme.test", "Acme")
	tests := []struct {
		name, email, password string
		status                int
	}{
		{"right", "ann@acme.test", apitest.Password, http.StatusOK},
		{"address in other case", "ANN@acme.test", apitest.Password, http.StatusOK},
		{"wrong password", "ann@acme.test", "wrong password!!", http.StatusUnauthorized},
		{"unknown address", "nobody@acme.test", apitest.Password, http.StatusUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Login(tc.email, tc.password)
			if tc.status == http.StatusOK {
				r.Must(t, http.StatusOK)
				if r.Str("token") == "" || r.Str("expires_at") == "" || r.Str("user", "role") != "admin" || r.Str("data", "user", "org") != "Acme" {
					t.Fatalf("login answer: %s", r.Raw)
				}
				return
			}
			r.WantError(t, http.StatusUnauthorized, "unauthorized", "Invalid email or password")
		})
	}
	t.Run("unknown and wrong answer alike", func(t *testing.T) {
		a := e.Login("nobody@acme.test", apitest.Password)
		b := e.Login("ann@acme.test", "wrong password!!")
		if string(a.Raw) != string(b.Raw) {
			t.Fatalf("bodies differ:\n%s\n%s", a.Raw, b.Raw)
		}
	})
	t.Run("missing fields", func(t *testing.T) {
		e.Do("POST", "/api/auth/login", "", map[string]string{}).WantFields(t, "email", "password")
	})
}

func TestResetFlow(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	newPassword := "a brand new passphrase"

	known := e.Do("POST", "/api/auth/reset-request", "", map[string]string{"email": a.Email}).Must(t, http.StatusOK)
	unknown := e.Do("POST", "/api/auth/reset-request", "", map[string]string{"email": "nobody@acme.test"}).Must(t, http.StatusOK)
	alias := e.Do("POST", "/api/auth/reset-password", "", map[string]string{"email": "nobody@acme.test"}).Must(t, http.StatusOK)
	if string(known.Raw) != string(unknown.Raw) || string(unknown.Raw) != string(alias.Raw) {
		t.Fatalf("answers differ:\n%s\n%s\n%s", known.Raw, unknown.Raw, alias.Raw)
	}
	// Both did the same work: one queued request each, and no mail yet.
	var queued int
	e.Store.DB().QueryRow(`SELECT COUNT(*) FROM reset_requests`).Scan(&queued)
	if queued != 3 || len(e.Mails(a.Email)) != 1 {
		t.Fatalf("queued %d requests, %d mails before the worker", queued, len(e.Mails(a.Email)))
	}
	if err := e.Mailer.ProcessResetRequests(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(e.Mails("nobody@acme.test")) != 0 {
		t.Fatal("mail sent to an address without an account")
	}
	e.Store.DB().QueryRow(`SELECT COUNT(*) FROM reset_requests`).Scan(&queued)
	if queued != 0 {
		t.Fatalf("%d requests left in the queue", queued)
	}
	token := e.MailToken(a.Email)
	if !strings.Contains(e.Mails(a.Email)[0].Body, "https://garrison.test/reset-password?token=") {
		t.Fatal("reset link not built on --base-url")
	}

	e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": token, "new_password": "short"}).WantFields(t, "new_password")
	e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": "wrong", "new_password": newPassword}).WantFields(t, "token")
	e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": token, "new_password": newPassword}).Must(t, http.StatusOK)
	e.Login(a.Email, apitest.Password).WantError(t, http.StatusUnauthorized, "unauthorized", "Invalid email or password")
	e.Login(a.Email, newPassword).Must(t, http.StatusOK)
	t.Run("token reused", func(t *testing.T) {
		e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": token, "new_password": "yet another passphrase"}).WantFields(t, "token")
	})
	t.Run("token expired after an hour", func(t *testing.T) {
		late := e.ResetToken(a.Email)
		e.Clock.Advance(time.Hour)
		e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": late, "new_password": "yet another passphrase"}).WantFields(t, "token")
	})
	t.Run("newer request voids older", func(t *testing.T) {
		older := e.ResetToken(a.Email)
		newer := e.ResetToken(a.Email)
		e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": older, "new_password": "yet another passphrase"}).WantFields(t, "token")
		e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": newer, "new_password": "yet another passphrase"}).Must(t, http.StatusOK)
	})
	t.Run("bad address", func(t *testing.T) {
		e.Do("POST", "/api/auth/reset-request", "", map[string]string{"email": "nope"}).WantFields(t, "email")
	})
}

func TestVerifyEmail(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	token := e.MailToken(a.Email)
	e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": "bogus"}).WantFields(t, "token")
	e.Do("POST", "/api/auth/verify-email", "", map[string]string{}).WantFields(t, "token")
	r := e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": token}).Must(t, http.StatusOK)
	if r.Data()["email_verified"] != true {
		t.Fatalf("verify answer: %s", r.Raw)
	}
	if e.Do("GET", "/api/auth/me", a.Token, nil).Must(t, http.StatusOK).Data()["email_verified"] != true {
		t.Fatal("profile not verified")
	}
	e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": token}).WantFields(t, "token")
	// A verification token is not a reset token.
	e.Do("POST", "/api/auth/reset-confirm", "", map[string]string{"token": token, "new_password": "a brand new passphrase"}).WantFields(t, "token")
}

func TestVerifyTokenExpires(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	e.Clock.Advance(time.Hour)
	e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": e.MailToken(a.Email)}).WantFields(t, "token")
}

func TestChangePasswordFailures(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	tests := []struct {
		name   string
		body   map[string]string
		fields []string
	}{
		{"wrong current", map[string]string{"current_password": "not my password", "new_password": "a brand new passphrase"}, []string{"current_password"}},
		{"weak new", map[string]string{"current_password": apitest.Password, "new_password": "short"}, []string{"new_password"}},
		{"same as current", map[string]string{"current_password": apitest.Password, "new_password": apitest.Password}, []string{"new_password"}},
		{"missing", map[string]string{}, []string{"current_password", "new_password"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.Do("POST", "/api/auth/change-password", a.Token, tc.body).WantFields(t, tc.fields...)
			e.Do("GET", "/api/auth/me", a.Token, nil).Must(t, http.StatusOK) // nothing changed
		})
	}
}

func TestProfile(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	for _, path := range []string{"/api/auth/me", "/api/user/profile"} {
		d := e.Do("GET", path, a.Token, nil).Must(t, http.StatusOK).Get("data")
		org := d.Get("organization")
		if !d.Get("id").Is(a.ID) || d.Get("role").Str() != "admin" || !org.Get("id").Is(a.OrgID) || org.Get("name").Str() != "Acme" || org.Get("members_count").Float() != 1 {
			t.Fatalf("%s: %v", path, d)
		}
	}
}
