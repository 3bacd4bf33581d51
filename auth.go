package main

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"garrison/account"
	"garrison/store"
)

// jwtHeader is the only header Garrison issues or accepts: HS256, nothing
// else. Comparing bytes refuses "none", other algorithms and kid/jku/x5u/
// jwk/crit headers without parsing any of them.
var jwtHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

const (
	maxTokenLen    = 4096
	sessionPurpose = "session"
	secretFileName = "jwt.key"
	minSecretBytes = 32
	// iatLeeway tolerates a little clock difference on iat only.
	iatLeeway = 60 * time.Second
)

// errTokenMalformed is every refusal of a token that is not genuine.
var errTokenMalformed = errors.New("malformed or forged token")

// claims of a session token. auth_time is when the password was last
// given; pur keeps tokens of other purposes from ever passing as sessions.
type claims struct {
	Sub      string `json:"sub"`
	Org      string `json:"org"`
	Ver      int64  `json:"ver"`
	JTI      string `json:"jti"`
	Iat      int64  `json:"iat"`
	Exp      int64  `json:"exp"`
	AuthTime int64  `json:"auth_time"`
	Purpose  string `json:"pur"`
}

// jwtCodec signs and verifies session tokens with a key derived from the
// server secret for this one purpose.
type jwtCodec struct {
	key        []byte
	ttl        time.Duration
	maxSession time.Duration
	now        func() time.Time
	scratch    sync.Pool // of *verifyScratch
}

// verifyScratch is what checking one token needs, reused: every
// authenticated request checks one, and a fresh HMAC costs two hash
// states and the key schedule.
type verifyScratch struct {
	mac     hash.Hash
	token   []byte // the token's bytes, for the decoder and the MAC
	payload []byte
	sig     [sha256.Size]byte
	sum     [sha256.Size]byte
}

func newJWTCodec(secret []byte, ttl, maxSession time.Duration, now func() time.Time) (*jwtCodec, error) {
	if len(secret) < minSecretBytes {
		return nil, fmt.Errorf("jwt secret is %d bytes; at least %d are required", len(secret), minSecretBytes)
	}
	key, err := hkdf.Key(sha256.New, secret, nil, "garrison session token v1", 32)
	if err != nil {
		return nil, fmt.Errorf("derive session key: %w", err)
	}
	j := &jwtCodec{key: key, ttl: ttl, maxSession: maxSession, now: now}
	j.scratch.New = func() any { return &verifyScratch{mac: hmac.New(sha256.New, key)} }
	return j, nil
}

// Issue signs a session token for u (account.SessionCodec).
func (j *jwtCodec) Issue(u store.User, authTime time.Time) (account.SessionToken, error) {
	now := j.now()
	exp := now.Add(j.ttl)
	if limit := authTime.Add(j.maxSession); exp.After(limit) {
		exp = limit // no token outlives the session it belongs to
	}
	jti := make([]byte, 16)
	rand.Read(jti)
	payload, err := json.Marshal(claims{Sub: u.ID, Org: u.OrgID, Ver: u.TokenVersion, JTI: hex.EncodeToString(jti),
		Iat: now.Unix(), Exp: exp.Unix(), AuthTime: authTime.Unix(), Purpose: sessionPurpose})
	if err != nil {
		return account.SessionToken{}, fmt.Errorf("encode claims: %w", err)
	}
	signingInput := jwtHeader + "." + base64.RawURLEncoding.EncodeToString(payload)
	return account.SessionToken{Token: signingInput + "." + j.sign(signingInput), ExpiresAt: time.Unix(exp.Unix(), 0).UTC()}, nil
}

// MaxSession implements account.SessionCodec.
func (j *jwtCodec) MaxSession() time.Duration { return j.maxSession }

func (j *jwtCodec) sign(signingInput string) string {
	mac := hmac.New(sha256.New, j.key)
	mac.Write([]byte(signingInput))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

var strictBase64 = base64.RawURLEncoding.Strict()

// Verify checks a token's form, signature, purpose and lifetime, in that
// order: nothing in an unsigned payload is looked at (account.SessionCodec).
func (j *jwtCodec) Verify(token string) (account.SessionClaims, error) {
	c, err := j.verify(token)
	if err != nil {
		return account.SessionClaims{}, err
	}
	return account.SessionClaims{UserID: c.Sub, OrgID: c.Org, TokenID: c.JTI, Version: c.Ver,
		ExpiresAt: time.Unix(c.Exp, 0).UTC(), AuthTime: time.Unix(c.AuthTime, 0).UTC()}, nil
}

func (j *jwtCodec) verify(token string) (claims, error) {
	if len(token) > maxTokenLen {
		return claims{}, errTokenMalformed
	}
	for i := 0; i < len(token); i++ {
		// base64url and the two dots only; the decoder alone would skip CR/LF.
		c := token[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return claims{}, errTokenMalformed
		}
	}
	header, rest, ok := strings.Cut(token, ".")
	if !ok || header != jwtHeader {
		return claims{}, errTokenMalformed
	}
	payloadPart, sigPart, ok := strings.Cut(rest, ".")
	if !ok || strings.Contains(sigPart, ".") {
		return claims{}, errTokenMalformed
	}
	if len(sigPart) != strictBase64.EncodedLen(sha256.Size) {
		return claims{}, errTokenMalformed
	}
	v := j.scratch.Get().(*verifyScratch)
	defer j.scratch.Put(v)
	v.token = append(v.token[:0], token...)
	signed := len(header) + 1 + len(payloadPart)
	if n, err := strictBase64.Decode(v.sig[:], v.token[signed+1:]); err != nil || n != sha256.Size {
		return claims{}, errTokenMalformed
	}
	v.mac.Reset()
	v.mac.Write(v.token[:signed])
	if !hmac.Equal(v.sig[:], v.mac.Sum(v.sum[:0])) {
		return claims{}, errTokenMalformed
	}
	v.payload = slices.Grow(v.payload[:0], strictBase64.DecodedLen(len(payloadPart)))
	n, err := strictBase64.Decode(v.payload[:cap(v.payload)], v.token[len(header)+1:signed])
	if err != nil {
		return claims{}, errTokenMalformed
	}
	var c claims
	if err := json.Unmarshal(v.payload[:n], &c); err != nil {
		return claims{}, errTokenMalformed
	}
	now := j.now()
	if c.Purpose != sessionPurpose || c.Sub == "" || c.Org == "" || c.JTI == "" || c.Exp <= 0 || c.Iat <= 0 ||
		time.Unix(c.Iat, 0).After(now.Add(iatLeeway)) {
		return claims{}, errTokenMalformed
	}
	if !now.Before(time.Unix(c.Exp, 0)) {
		return claims{}, account.ErrSessionExpired
	}
	return c, nil
}

// loadSecret reads the signing secret from the data directory, creating it
// with 256 random bits on first start. A short secret refuses to start.
func loadSecret(dataDir string) ([]byte, error) {
	path := filepath.Join(dataDir, secretFileName)
	text, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		secret := make([]byte, minSecretBytes)
		rand.Read(secret)
		if err := os.WriteFile(path, []byte(hex.EncodeToString(secret)+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("write jwt secret: %w", err)
		}
		return secret, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read jwt secret: %w", err)
	}
	secret, err := hex.DecodeString(strings.TrimSpace(string(text)))
	if err != nil {
		return nil, fmt.Errorf("jwt secret %s: not hex: %w", path, err)
	}
	if len(secret) < minSecretBytes {
		return nil, fmt.Errorf("jwt secret %s holds %d bytes; at least %d are required", path, len(secret), minSecretBytes)
	}
	return secret, nil
}
