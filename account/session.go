package account

import (
	"cmp"
	"context"
	"errors"
	"time"

	"garrison/actor"
	"garrison/credential"
	"garrison/fault"
	"garrison/store"
	"garrison/valid"
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

// SessionCodec signs and verifies session tokens (the HS256 token of the
// root package's auth.go); authTime is when the user last gave their
// password, which bounds how long refreshes can go on.
type SessionCodec interface {
	Issue(u store.User, authTime time.Time) (SessionToken, error)
	Verify(token string) (SessionClaims, error)
	// MaxSession is how long after authTime a refresh is still allowed.
	MaxSession() time.Duration
}

// Why a credential is refused: the exact 401 messages the API promises
// (docs/api.md).
var (
	ErrTokenExpired     = fault.New(fault.Unauthorized, "Token expired. Please log in again.")
	ErrTokenInvalid     = fault.New(fault.Unauthorized, "Invalid token")
	ErrTokenInvalidated = store.ErrSessionEnded // "Token invalidated. Please log in again."
	ErrKeyInvalid       = fault.New(fault.Unauthorized, "Invalid API key")
	ErrKeyExpired       = fault.New(fault.Unauthorized, "API key expired")
	// ErrIssueByHeader: a session token is signed for the token's own
	// organization; another is reached by switching, which is audited.
	ErrIssueByHeader = fault.New(fault.Invalid, "Invalid request: a session token is not signed for X-Garrison-Org's organization; "+
		"switch with POST /api/auth/switch-org")
	// ErrOrgUnreachable: an organization the credential may not act in
	// answers as one that does not exist.
	ErrOrgUnreachable = fault.New(fault.NotFound, "Organization not found")
)

// keyTouchInterval is how fine an API key's last use is kept.
const keyTouchInterval = time.Minute

// Credential is who a verified credential speaks for: the actor, its
// organization's plan and, for a session, the user and the token.
type Credential struct {
	actor.Actor
	Plan string
	// OrgKind is the kind of the organization acted in (store.Org*).
	OrgKind string

	// Sessions only.
	User store.User
	// ByHeader: the session acts in another organization than its token's
	// active one, for this request only (X-Garrison-Org).
	ByHeader  bool
	TokenID   string
	ExpiresAt time.Time
	AuthTime  time.Time
}

// Authenticate verifies a bearer credential (an API key or a session
// token) and says who it speaks for, acting in orgID when it is given (the
// request's X-Garrison-Org) or else in the credential's own organization
// (a session token's active one, a key's). A session's user, token
// version, revocation and reach and a key's revocation and expiry are read
// on every call, so a change takes effect from the next request. An
// organization the credential may not act in is ErrOrgUnreachable, as
// one that does not exist.
func (a *Accounts) Authenticate(ctx context.Context, value, orgID string) (Credential, error) {
	if credential.LooksLikeAPIKey(value) {
		return a.apiKey(ctx, value, orgID)
	}
	c, err := a.sessions.Verify(value)
	if errors.Is(err, ErrSessionExpired) {
		return Credential{}, ErrTokenExpired
	}
	if err != nil {
		return Credential{}, ErrTokenInvalid
	}
	active := cmp.Or(orgID, c.OrgID)
	u, revoked, err := a.store.SessionUser(ctx, c.UserID, active, c.TokenID)
	switch {
	case errors.Is(err, store.ErrNotFound) && orgID != "" && orgID != c.OrgID:
		return Credential{}, ErrOrgUnreachable
	case errors.Is(err, store.ErrNotFound):
		return Credential{}, ErrTokenInvalid
	case err != nil:
		return Credential{}, err
	}
	if revoked || u.TokenVersion != c.Version {
		return Credential{}, ErrTokenInvalidated
	}
	return Credential{Actor: personIn(u), Plan: u.Plan, OrgKind: u.OrgKind, User: u, ByHeader: active != c.OrgID,
		TokenID: c.TokenID, ExpiresAt: c.ExpiresAt, AuthTime: c.AuthTime}, nil
}

// personIn is the actor of a user acting in their User's organization.
func personIn(u store.User) actor.Actor {
	return actor.Actor{Kind: actor.Person, OrgID: u.OrgID, ID: u.ID, Role: u.Role, Via: u.Via}
}

func (a *Accounts) apiKey(ctx context.Context, value, orgID string) (Credential, error) {
	if !credential.WellFormedAPIKey(value) {
		return Credential{}, ErrKeyInvalid
	}
	k, err := a.store.APIKeyByHash(ctx, credential.Hash(value))
	if errors.Is(err, store.ErrNotFound) {
		return Credential{}, ErrKeyInvalid
	}
	if err != nil {
		return Credential{}, err
	}
	now := a.now()
	switch KeyStatus(k, now) {
	case KeyRevoked:
		return Credential{}, ErrKeyInvalid
	case KeyExpired:
		return Credential{}, ErrKeyExpired
	}
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= keyTouchInterval {
		a.keyUse.Seen(k.ID, now) // written down in the background: a read never writes
	}
	c := Credential{Actor: actor.Actor{Kind: actor.Key, OrgID: k.OrgID, ID: k.ID, Scope: k.Scope}, Plan: k.Plan, OrgKind: k.OrgKind}
	if orgID == "" || orgID == k.OrgID {
		return c, nil
	}
	// A provider's key acts in any of its clients; a client's or a
	// standalone organization's key never leaves its own.
	client, err := a.store.Client(ctx, store.ClientScope{ProviderID: k.OrgID}, orgID)
	if errors.Is(err, store.ErrNotFound) {
		return Credential{}, ErrOrgUnreachable
	}
	if err != nil {
		return Credential{}, err
	}
	c.OrgID, c.Via, c.Plan, c.OrgKind = client.ID, k.OrgID, client.Plan, client.Kind
	return c, nil
}

// IssueSession signs a session token for u; authTime is when u last gave
// their password.
func (a *Accounts) IssueSession(u store.User, authTime time.Time) (SessionToken, error) {
	return a.sessions.Issue(u, authTime)
}

// Refresh retires a session's token for a new one of the same sign-in. The
// chain of refreshes ends MaxSession after the password was last given; a
// token refreshed or ended concurrently is ErrTokenInvalidated.
func (a *Accounts) Refresh(ctx context.Context, c Credential) (SessionToken, error) {
	if c.ByHeader {
		return SessionToken{}, ErrIssueByHeader
	}
	if a.now().After(c.AuthTime.Add(a.sessions.MaxSession())) {
		return SessionToken{}, ErrTokenExpired
	}
	if err := a.store.RevokeSession(ctx, c.TokenID, c.ExpiresAt); err != nil {
		return SessionToken{}, err
	}
	return a.sessions.Issue(c.User, c.AuthTime)
}

// Logout ends a session; ending it twice is still ended.
func (a *Accounts) Logout(ctx context.Context, c Credential) error {
	if err := a.store.RevokeSession(ctx, c.TokenID, c.ExpiresAt); err != nil && !errors.Is(err, store.ErrSessionEnded) {
		return err
	}
	return nil
}

// LogoutAll ends every session of the credential's user.
func (a *Accounts) LogoutAll(ctx context.Context, c Credential) error {
	return a.store.EndSessions(ctx, c.User.ID)
}

// SwitchOrg signs a session token of the same sign-in acting in another
// organization the user may act in (a membership, or a client their
// provider staff membership reaches); any other is ErrOrgUnreachable.
func (a *Accounts) SwitchOrg(ctx context.Context, c Credential, orgID string) (store.User, SessionToken, error) {
	if orgID == "" {
		return store.User{}, SessionToken{}, valid.Field("org_id", "is required")
	}
	u, err := a.store.UserIn(ctx, c.User.ID, orgID)
	if errors.Is(err, store.ErrNotFound) {
		return store.User{}, SessionToken{}, ErrOrgUnreachable
	}
	if err != nil {
		return store.User{}, SessionToken{}, err
	}
	if a.now().After(c.AuthTime.Add(a.sessions.MaxSession())) {
		return store.User{}, SessionToken{}, ErrTokenExpired
	}
	tok, err := a.sessions.Issue(u, c.AuthTime)
	return u, tok, err
}
