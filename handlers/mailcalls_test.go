package handlers_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"garrison/handlers/apitest"
)

// mailCall is the curl command a mail carries: its URL and JSON body.
var mailCall = regexp.MustCompile(`curl -X POST https://garrison\.test(/api/\S+) \\\n\s+-H 'Content-Type: application/json' -d '((?:[^']|'\\'')*)'`)

// callFromMail pastes the mail's command: the API call it names, with the
// placeholders filled in, must do what the mail says.
func callFromMail(t *testing.T, body string, fill map[string]string) (path string, req map[string]any) {
	t.Helper()
	m := mailCall.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no API call in the mail:\n%s", body)
	}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(m[2], `'\''`, `'`)), &req); err != nil {
		t.Fatalf("the mail's JSON: %v\n%s", err, m[2])
	}
	for k, v := range fill {
		if _, ok := req[k]; !ok {
			t.Fatalf("the mail's call has no %s: %s", k, m[2])
		}
		req[k] = v
	}
	return m[1], req
}

func TestMailsCarryTheirAPICall(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	t.Run("verify", func(t *testing.T) {
		path, req := callFromMail(t, e.Mails(admin.Email)[0].Body, nil)
		if path != "/api/auth/verify-email" {
			t.Fatalf("path %s", path)
		}
		e.Do("POST", path, "", req).Must(t, http.StatusOK)
	})
	t.Run("invite, to an address with an apostrophe", func(t *testing.T) {
		e.Do("POST", "/api/org/invites", admin.Token, map[string]string{"email": "o'brien@acme.test"}).Must(t, http.StatusCreated)
		path, req := callFromMail(t, e.Mails("o'brien@acme.test")[0].Body, map[string]string{"name": "Pat", "password": apitest.Password})
		if path != "/api/auth/register" || req["email"] != "o'brien@acme.test" {
			t.Fatalf("%s %v", path, req)
		}
		if r := e.Do("POST", path, "", req).Must(t, http.StatusCreated); r.Str("user", "org") != "Acme" {
			t.Fatalf("joined %s", r.Raw)
		}
	})
	t.Run("reset", func(t *testing.T) {
		e.ResetToken(admin.Email)
		path, req := callFromMail(t, e.Mails(admin.Email)[0].Body, map[string]string{"new_password": "a brand new passphrase"})
		if path != "/api/auth/reset-confirm" {
			t.Fatalf("path %s", path)
		}
		e.Do("POST", path, "", req).Must(t, http.StatusOK)
		e.Login(admin.Email, "a brand new passphrase").Must(t, http.StatusOK)
	})
}
