package apitest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"garrison/account"
	"garrison/store"
)

// sessions is an in-memory account.SessionCodec: a token is an opaque
// random name for its claims. The claims and their checks (lifetime,
// token_version, denylist, refresh limit) are the real ones. Tokens are
// kept for the whole test binary, so they outlive a restart as signed
// tokens do.
type sessions struct {
	now      func() time.Time
	ttl, max time.Duration
}

var issued = struct {
	mu      sync.Mutex
	byToken map[string]account.SessionClaims
}{byToken: map[string]account.SessionClaims{}}

func newSessions(now func() time.Time, ttl, max time.Duration) *sessions {
	return &sessions{now: now, ttl: ttl, max: max}
}

func random() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *sessions) Issue(u store.User, authTime time.Time) (account.SessionToken, error) {
	now := s.now()
	exp := now.Add(s.ttl)
	if limit := authTime.Add(s.max); exp.After(limit) {
		exp = limit
	}
	exp = time.Unix(exp.Unix(), 0).UTC()
	token := "session-" + random()
	issued.mu.Lock()
	defer issued.mu.Unlock()
	issued.byToken[token] = account.SessionClaims{UserID: u.ID, OrgID: u.OrgID, TokenID: random(), Version: u.TokenVersion,
		ExpiresAt: exp, AuthTime: time.Unix(authTime.Unix(), 0).UTC()}
	return account.SessionToken{Token: token, ExpiresAt: exp}, nil
}

var errUnknownToken = errors.New("unknown session token")

func (s *sessions) Verify(token string) (account.SessionClaims, error) {
	issued.mu.Lock()
	c, ok := issued.byToken[token]
	issued.mu.Unlock()
	switch {
	case !ok:
		return c, errUnknownToken
	case !s.now().Before(c.ExpiresAt):
		return c, account.ErrSessionExpired
	}
	return c, nil
}

func (s *sessions) MaxSession() time.Duration { return s.max }
