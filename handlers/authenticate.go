package handlers

import (
	"context"
	"errors"
	"time"

	"garrison/account"
	"garrison/actor"
	"garrison/credential"
	"garrison/store"
)

// SessionToken is a freshly issued session token.
type SessionToken struct {
	Token     string
	ExpiresAt time.Time
}

// SessionClaims are what a verified session token says.
type SessionClaims struct {
	UserID, OrgID, TokenID string
	Version                int64 // the user's token_version when issued
	ExpiresAt, AuthTime    time.Time
}

// ErrSessionExpired is SessionCodec.Verify's error for a genuine token past
// its lifetime; any other error means the token is not genuine.
var ErrSessionExpired = errors.New("session token expired")

// SessionCodec signs and verifies session tokens; authTime is when the user
// last gave their password, which bounds how long refreshes can go on.
type SessionCodec interface {
	Issue(u store.User, authTime time.Time) (SessionToken, error)
	Verify(token string) (SessionClaims, error)
	// MaxSession is how long after authTime a refresh is still allowed.
	MaxSession() time.Duration
}

// authenticator turns a bearer credential into a Principal, answering each
// failure with the message the API promises for it (docs/api.md).
type authenticator struct {
	store    *store.Store
	sessions SessionCodec
	keyUse   *account.KeyUse
	now      func() time.Time
}

// keyTouchInterval is how fine last_used_at is kept.
const keyTouchInterval = time.Minute

func (a *authenticator) authenticate(ctx context.Context, value string) (Principal, error) {
	if credential.LooksLikeAPIKey(value) {
		return a.apiKey(ctx, value)
	}
	c, err := a.sessions.Verify(value)
	if errors.Is(err, ErrSessionExpired) {
		return Principal{}, Unauthorized(MsgTokenExpired)
	}
	if err != nil {
		return Principal{}, Unauthorized(MsgInvalidToken)
	}
	u, revoked, err := a.store.SessionUser(ctx, c.UserID, c.TokenID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && u.OrgID != c.OrgID) {
		return Principal{}, Unauthorized(MsgInvalidToken)
	}
	if err != nil {
		return Principal{}, err
	}
	if revoked || u.TokenVersion != c.Version {
		return Principal{}, Unauthorized(MsgTokenInvalidated)
	}
	return Principal{Actor: actor.Actor{Kind: actor.Person, OrgID: u.OrgID, ID: u.ID, Role: u.Role}, Plan: u.Plan, User: u, TokenID: c.TokenID,
		ExpiresAt: c.ExpiresAt, AuthTime: c.AuthTime}, nil
}

func (a *authenticator) apiKey(ctx context.Context, value string) (Principal, error) {
	if !credential.WellFormedAPIKey(value) {
		return Principal{}, Unauthorized(MsgInvalidAPIKey)
	}
	k, err := a.store.APIKeyByHash(ctx, credential.Hash(value))
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, Unauthorized(MsgInvalidAPIKey)
	}
	if err != nil {
		return Principal{}, err
	}
	now := a.now()
	if k.RevokedAt != nil {
		return Principal{}, Unauthorized(MsgInvalidAPIKey)
	}
	if k.ExpiresAt != nil && !now.Before(*k.ExpiresAt) {
		return Principal{}, Unauthorized(MsgAPIKeyExpired)
	}
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= keyTouchInterval {
		a.keyUse.Seen(k.ID, now) // written down in the background: a read never writes
	}
	return Principal{Actor: actor.Actor{Kind: actor.Key, OrgID: k.OrgID, ID: k.ID, Scope: k.Scope}, Plan: k.Plan}, nil
}
