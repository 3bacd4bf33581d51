package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/account"
	"garrison/handlers"
	"garrison/handlers/apitest"
)

// signed builds a token with any header and claims, correctly signed with
// the codec's key: what an attacker who guessed every rule but the key
// cannot make, and what each check must still refuse on its own.
func signed(j *jwtCodec, header string, claims map[string]any) string {
	payload, _ := json.Marshal(claims)
	input := base64.RawURLEncoding.EncodeToString([]byte(header)) + "." + base64.RawURLEncoding.EncodeToString(payload)
	return input + "." + j.sign(input)
}

func TestVerifyChecksEachClaim(t *testing.T) {
	clock := apitest.NewClock()
	j, _ := newJWTCodec([]byte(strings.Repeat("s", 32)), time.Hour, 24*time.Hour, clock.Now)
	now := clock.Now().Unix()
	good := func() map[string]any {
		return map[string]any{"sub": "usr_1", "org": "org_1", "ver": 0, "jti": "j1", "iat": now, "exp": now + 3600,
			"auth_time": now, "pur": "session"}
	}
	header := `{"alg":"HS256","typ":"JWT"}`
	if _, err := j.Verify(signed(j, header, good())); err != nil {
		t.Fatalf("a well-formed token is refused: %v", err)
	}
	edit := func(f func(map[string]any)) map[string]any { c := good(); f(c); return c }
	tests := map[string]struct {
		header string
		claims map[string]any
		want   error
	}{
		"alg none, valid MAC":       {`{"alg":"none","typ":"JWT"}`, good(), errTokenMalformed},
		"alg HS512, valid MAC":      {`{"alg":"HS512","typ":"JWT"}`, good(), errTokenMalformed},
		"kid header, valid MAC":     {`{"alg":"HS256","typ":"JWT","kid":"x"}`, good(), errTokenMalformed},
		"crit header, valid MAC":    {`{"alg":"HS256","crit":["exp"],"typ":"JWT"}`, good(), errTokenMalformed},
		"reset purpose":             {header, edit(func(c map[string]any) { c["pur"] = "reset" }), errTokenMalformed},
		"no purpose":                {header, edit(func(c map[string]any) { delete(c, "pur") }), errTokenMalformed},
		"issued in the future":      {header, edit(func(c map[string]any) { c["iat"] = now + 7200 }), errTokenMalformed},
		"no exp":                    {header, edit(func(c map[string]any) { delete(c, "exp") }), errTokenMalformed},
		"exp as a string":           {header, edit(func(c map[string]any) { c["exp"] = "later" }), errTokenMalformed},
		"no sub":                    {header, edit(func(c map[string]any) { delete(c, "sub") }), errTokenMalformed},
		"no jti":                    {header, edit(func(c map[string]any) { delete(c, "jti") }), errTokenMalformed},
		"expired":                   {header, edit(func(c map[string]any) { c["exp"] = now }), account.ErrSessionExpired},
		"iat within leeway is fine": {header, edit(func(c map[string]any) { c["iat"] = now + 30 }), nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := j.Verify(signed(j, tc.header, tc.claims)); !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("CR/LF inside the token", func(t *testing.T) {
		tok := signed(j, header, good())
		for _, bad := range []string{tok[:10] + "\r\n" + tok[10:], tok + "\n", " " + tok} {
			if _, err := j.Verify(bad); !errors.Is(err, errTokenMalformed) {
				t.Fatalf("%q: %v", bad, err)
			}
		}
	})
}

func TestTokenOfAnotherOrganizationRefused(t *testing.T) {
	e := newTestEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	now := e.clock.Now().Unix()
	tok := signed(e.jwt, `{"alg":"HS256","typ":"JWT"}`, map[string]any{"sub": a.ID, "org": "org_other", "ver": 0,
		"jti": "j1", "iat": now, "exp": now + 60, "auth_time": now, "pur": "session"})
	e.Do("GET", "/api/auth/me", tok, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "Invalid token")
}

func TestEmptyAuthorizationIsAbsent(t *testing.T) {
	e := newTestEnv(t)
	req, _ := http.NewRequest("GET", e.srv.URL+"/api/org", nil)
	req.Header["Authorization"] = []string{""}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	json.NewDecoder(res.Body).Decode(&body)
	if res.StatusCode != 401 || body["error"] != handlers.MsgNoToken {
		t.Fatalf("%d %v", res.StatusCode, body)
	}
}
