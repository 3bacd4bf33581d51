package handlers_test

import (
	"net/http"
	"testing"

	"garrison/handlers/apitest"
)

// TestOneMailboxOneAccount: the spellings of one address (IDNA, Unicode
// normal forms, case) are one account; look-alikes and invisible
// characters are refused before anything is stored.
func TestOneMailboxOneAccount(t *testing.T) {
	e := newEnv(t)
	register := func(email string) apitest.Response {
		return e.Do("POST", "/api/auth/register", "", map[string]string{"email": email, "password": apitest.Password, "name": "Ann"})
	}
	r := register("Ann@Düp.example").Must(t, http.StatusCreated)
	if r.Str("user", "email") != "ann@xn--dp-xka.example" || r.Str("user", "org") != "düp.example" {
		t.Fatalf("stored as %q in %q", r.Str("user", "email"), r.Str("user", "org"))
	}
	t.Run("other spellings are taken", func(t *testing.T) {
		for _, email := range []string{"ann@xn--dp-xka.example", "ann@du\u0308p.example", "ANN@DÜP.EXAMPLE", "ann@ｄüp．example"} {
			register(email).WantError(t, http.StatusConflict, "conflict", "")
		}
	})
	t.Run("every spelling signs in", func(t *testing.T) {
		for _, email := range []string{"ann@xn--dp-xka.example", "ann@du\u0308p.example", "ann@düp.example"} {
			e.Login(email, apitest.Password).Must(t, http.StatusOK)
		}
	})
	refused := []struct{ why, email string }{
		{"zero-width space in the domain", "ann@d\u200büp.example"},
		{"zero-width joiner in the local part", "a\u200dnn@düp.example"},
		{"bidi override", "ann@\u202eelpmaxe.test"},
		{"soft hyphen", "ann@düp\u00ad.example"},
		{"Latin and Cyrillic in one label", "ann@p\u0430ypal.example"},
		{"IP literal", "ann@[192.0.2.1]"},
		{"bare IP address", "ann@192.0.2.1"},
		{"broken Punycode", "ann@xn--.example"},
	}
	for _, tc := range refused {
		t.Run("refused: "+tc.why, func(t *testing.T) {
			register(tc.email).WantFields(t, "email")
			e.Do("POST", "/api/auth/reset-request", "", map[string]string{"email": tc.email}).WantFields(t, "email")
		})
	}
	t.Run("invites use the same form", func(t *testing.T) {
		e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": e.MailToken("ann@xn--dp-xka.example")}).Must(t, http.StatusOK)
		login := e.Login("ann@düp.example", apitest.Password).Must(t, http.StatusOK)
		e.Do("POST", "/api/org/invites", login.Str("token"), map[string]string{"email": "Bob@Düp.example"}).Must(t, http.StatusCreated)
		if len(e.Mails("bob@xn--dp-xka.example")) != 1 {
			t.Fatal("the invite mail is not addressed in the normal form")
		}
		e.Do("POST", "/api/org/invites", login.Str("token"), map[string]string{"email": "bob@d\u200büp.example"}).WantFields(t, "email")
	})
}
