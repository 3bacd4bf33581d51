package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// The limit server's token: HS256, verified by hand the way a careful
// implementation without a JWT library would, so its cost is the floor of
// what Garrison's session check could cost.

type claims struct {
	Sub string `json:"sub"`
	Org string `json:"org"`
	Exp int64  `json:"exp"`
}

var (
	b64       = base64.RawURLEncoding.Strict()
	jwtHeader = b64.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
)

// mintJWT signs c with secret.
func mintJWT(secret []byte, c claims) (string, error) {
	body, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	signing := jwtHeader + "." + b64.EncodeToString(body)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(signing))
	return signing + "." + b64.EncodeToString(mac.Sum(nil)), nil
}

var errBadToken = errors.New("invalid token")

// verifyJWT checks the header, the signature and the expiry of token.
func verifyJWT(secret []byte, token string, now time.Time) (claims, error) {
	var c claims
	header, rest, ok1 := strings.Cut(token, ".")
	payload, sig, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || header != jwtHeader {
		return c, errBadToken
	}
	got, err := b64.DecodeString(sig)
	if err != nil {
		return c, errBadToken
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(token[:len(header)+1+len(payload)]))
	if !hmac.Equal(got, mac.Sum(nil)) {
		return c, errBadToken
	}
	body, err := b64.DecodeString(payload)
	if err != nil || json.Unmarshal(body, &c) != nil {
		return c, errBadToken
	}
	if c.Exp <= now.Unix() || c.Org == "" {
		return c, errBadToken
	}
	return c, nil
}
