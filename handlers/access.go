package handlers

import (
	"context"

	"garrison/account"
	"garrison/actor"
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

// Principal is the authenticated caller of a request: who its credential
// speaks for, and whether it came as the console's cookie.
type Principal struct {
	account.Credential
	ViaCookie bool // the console's session cookie, not a bearer token
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
