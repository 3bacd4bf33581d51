package handlers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"garrison/actor"
	"garrison/store"
)

// Access is what a route demands of its caller.
type Access int

const (
	Public  Access = iota // no credential
	Read                  // any credential; API keys of every scope
	Write                 // write or admin key; any user
	Admin                 // admin key; admin user
	Session               // a user's session token (JWT), any role; API keys refused
	Webhook               // an API key of write scope; webhook receipt is not rate limited
)

func (a Access) String() string {
	return [...]string{"public", "read", "write", "admin", "session", "write"}[a]
}

// Principal is the authenticated caller of a request: the actor (a person
// with a session or an API key) and what its credential carries.
type Principal struct {
	actor.Actor
	Plan string

	// Sessions only.
	ViaCookie bool // the console's session cookie, not a bearer token
	User      store.User
	TokenID   string
	ExpiresAt time.Time
	AuthTime  time.Time
}

// level is the highest Access the principal holds.
func (p Principal) level() Access {
	if p.Kind == actor.Person {
		if p.Role == actor.RoleAdmin {
			return Admin
		}
		return Write
	}
	switch p.Scope {
	case actor.ScopeAdmin:
		return Admin
	case actor.ScopeWrite:
		return Write
	}
	return Read
}

func principalFrom(ctx context.Context) Principal {
	if st := stateOf(ctx); st != nil && st.principal != nil {
		return *st.principal
	}
	return Principal{}
}

// bearer extracts the credential of an Authorization header. Credentials in
// the query string are never looked at.
func bearer(r *http.Request) (string, error) {
	h := r.Header.Values("Authorization")
	if len(h) == 0 || (len(h) == 1 && strings.TrimSpace(h[0]) == "") {
		return "", Unauthorized(MsgNoToken)
	}
	scheme, value, ok := strings.Cut(h[0], " ")
	if len(h) > 1 || !ok || !strings.EqualFold(scheme, "Bearer") || value == "" || strings.ContainsAny(value, " \t") {
		return "", Unauthorized(MsgBadTokenFormat)
	}
	return value, nil
}

// authorize checks that p may do what a route with access a demands.
func authorize(p Principal, a Access) error {
	switch {
	case a == Session && p.Kind != actor.Person:
		return forbidden("This endpoint needs a user session token; API keys cannot use it")
	case a == Session:
		return nil
	case a == Webhook && p.Kind != actor.Key:
		return forbidden("Webhooks take an API key of write scope, not a session token")
	case a == Webhook:
		a = Write
	}
	if p.level() >= a {
		return nil
	}
	if p.Kind == actor.Key {
		return forbidden("Insufficient permissions. Required scope: " + a.String())
	}
	return forbidden("Insufficient permissions. Required role: " + a.String())
}
