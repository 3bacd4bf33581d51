package account

import (
	"context"
	"time"

	"garrison/actor"
	"garrison/fault"
	"garrison/valid"
)

// ReauthWindow is how long after a person last gave their password they
// may change who holds an organization's powers: grant or take away admin,
// remove an admin, delete the organization.
const ReauthWindow = 10 * time.Minute

// The refusals of actions that change who holds an organization's powers.
var (
	// ErrNeedsPerson: an API key cannot change who the admins are, nor
	// delete the organization; a leaked key must not climb to a person's
	// powers.
	ErrNeedsPerson = fault.New(fault.Forbidden, "Changing who is an admin, and deleting the organization, need an admin's session, not an API key")
	// ErrReauthRequired: the session's password is older than ReauthWindow.
	ErrReauthRequired = fault.New(fault.ReauthRequired, "Confirm your password first (POST /api/auth/reauthenticate): changing who is an admin, "+
		"and deleting the organization, need a password given within the last "+ReauthWindow.String())
	// ErrKeyInviteAdmin: an invitation an API key makes cannot make an admin.
	ErrKeyInviteAdmin = fault.New(fault.Forbidden, "An API key's invitation cannot make an admin; an admin invites admins from their session")
)

// requireFreshPerson refuses, to anyone but a person who gave their
// password within ReauthWindow (or the appliance's operator), an action
// that changes who holds the organization's powers.
func (a *Accounts) requireFreshPerson(who Credential) error {
	switch who.Kind {
	case actor.System:
		return nil // the operator at the appliance's shell
	case actor.Person:
		if a.now().Sub(who.AuthTime) > ReauthWindow {
			return ErrReauthRequired
		}
		return nil
	}
	return ErrNeedsPerson
}

// ErrWrongPassword refuses a reauthentication with another password than
// the account's; the session itself stays valid.
var ErrWrongPassword = &fault.Error{Code: fault.Invalid, Message: "Invalid request: password is not this account's password",
	Fields: []string{"password"}}

// Reauthenticate confirms a session's password again and trades the session
// for one whose password was just given, for the actions that need one
// (ReauthWindow). The old token stops working.
func (a *Accounts) Reauthenticate(ctx context.Context, who Credential, password string) (SessionToken, error) {
	if who.ByHeader {
		return SessionToken{}, ErrIssueByHeader
	}
	if password == "" {
		return SessionToken{}, valid.Field("password", "is required")
	}
	ok, _, err := a.passwords.Verify(ctx, password, who.User.PasswordHash)
	if err != nil {
		return SessionToken{}, err
	}
	if !ok {
		return SessionToken{}, ErrWrongPassword
	}
	if err := a.store.RevokeSession(ctx, who.TokenID, who.ExpiresAt); err != nil {
		return SessionToken{}, err
	}
	return a.sessions.Issue(who.User, a.now())
}
