package main

import (
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
	"garrison/store"
)

// FuzzJWTVerify: Verify never panics, and accepts only tokens in the exact
// form Issue produces, signed with the key.
func FuzzJWTVerify(f *testing.F) {
	clock := apitest.NewClock()
	codec, err := newJWTCodec([]byte(strings.Repeat("k", 32)), time.Hour, 24*time.Hour, clock.Now)
	if err != nil {
		f.Fatal(err)
	}
	good, err := codec.Issue(store.User{ID: "usr_1", OrgID: "org_1", TokenVersion: 3}, clock.Now())
	if err != nil {
		f.Fatal(err)
	}
	parts := strings.Split(good.Token, ".")
	f.Add(good.Token)
	f.Add(parts[0] + "." + parts[1] + ".")
	f.Add("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0." + parts[1] + ".")
	f.Add(good.Token + "=")
	f.Add(strings.Replace(good.Token, ".", "\r\n.", 1))
	f.Add("")
	f.Add("...")
	f.Fuzz(func(t *testing.T, token string) {
		c, err := codec.verify(token)
		if err != nil {
			return
		}
		header, rest, _ := strings.Cut(token, ".")
		payload, sig, _ := strings.Cut(rest, ".")
		if header != jwtHeader || sig != codec.sign(header+"."+payload) {
			t.Fatalf("accepted a token not signed by the key: %q", token)
		}
		if c.Purpose != sessionPurpose || c.Exp <= clock.Now().Unix() {
			t.Fatalf("accepted claims %+v", c)
		}
	})
}
