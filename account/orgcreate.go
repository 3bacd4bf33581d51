package account

import (
	"context"
	"fmt"
	"strings"
	"time"

	"garrison/actor"
	"garrison/credential"
	"garrison/store"
	"garrison/valid"
)

// setPasswordTTL is how long a CLI-made admin's set-password token lasts.
const setPasswordTTL = 24 * time.Hour

// NewOrg is an organization the operator makes (garrison org create).
type NewOrg struct {
	Name, AdminEmail, AdminName, Plan string
	// Password of the admin; empty: a one-time set-password token is
	// issued instead (SetPasswordToken in the result).
	Password string
	// ProviderEmail makes a client of the provider of this admin's
	// (home) organization instead, taking the provider's plan unless Plan
	// is given; AdminEmail, then optional, is invited as its first admin.
	ProviderEmail string
}

// CreatedOrg is the organization and admin made, and, without a password,
// the token that sets it.
type CreatedOrg struct {
	Admin            store.User
	SetPasswordToken string
	SetPasswordUntil time.Time
	// A client's (ProviderEmail): the client and its admin's invitation.
	Client *ClientCreated
}

// CreateOrg makes an organization and its admin whatever the registration
// mode: the operator's way in to a closed appliance. The admin's address
// counts as confirmed (the operator vouches for it).
func (a *Accounts) CreateOrg(ctx context.Context, o NewOrg) (CreatedOrg, error) {
	if o.ProviderEmail != "" {
		return a.createClientByOperator(ctx, o)
	}
	o.AdminEmail = valid.NormalEmail(o.AdminEmail)
	if o.Plan == "" {
		o.Plan = a.defaultPlan
	}
	if o.AdminName == "" {
		o.AdminName = "Administrator"
	}
	var p valid.Problems
	p.Check(valid.Name(o.Name), "name", "must be 1 to 100 printable characters")
	p.Check(valid.Email(o.AdminEmail), "admin-email", "must be a valid e-mail address")
	p.Check(valid.Name(o.AdminName), "admin-name", "must be 1 to 100 printable characters")
	p.Check(ValidPlan(o.Plan), "plan", "must be "+strings.Join(Plans, ", "))
	if o.Password != "" {
		checkPassword(&p, "password", o.Password)
	}
	if err := p.Err(); err != nil {
		return CreatedOrg{}, err
	}
	password := o.Password
	if password == "" {
		password = credential.RandomText(32) // unusable until set with the token
	}
	hash, err := a.passwords.Hash(ctx, password)
	if err != nil {
		return CreatedOrg{}, err
	}
	verify, verifyHash := credential.NewToken()
	// The operator vouches for the address, so it needs no confirmation
	// mail: the admin hears of the account through the set-password mail,
	// or from the operator who chose the password.
	var notice store.Mail
	if o.Password != "" {
		notice = store.Mail{To: o.AdminEmail, Subject: "Your Garrison organization " + o.Name,
			Body: "The operator of this Garrison appliance made an administrator account of " + o.Name +
				" for this address, with a password they will give you.\n"}
	}
	u, err := a.store.Register(ctx, store.NewAccount{Email: o.AdminEmail, Name: o.AdminName, PasswordHash: hash, OrgName: o.Name, Plan: o.Plan,
		Origin:     store.OriginOperator,
		Verify:     store.UserToken{Hash: verifyHash, Purpose: store.PurposeVerify, ExpiresAt: a.now().Add(time.Hour)},
		VerifyMail: notice})
	if err != nil {
		return CreatedOrg{}, err
	}
	if u, err = a.store.VerifyEmail(ctx, credential.Hash(verify)); err != nil {
		return CreatedOrg{}, fmt.Errorf("confirm the admin's address: %w", err)
	}
	out := CreatedOrg{Admin: u}
	if o.Password == "" {
		token, tokenHash := credential.NewToken()
		until := a.now().Add(setPasswordTTL)
		if err := a.store.IssueResetToken(ctx, u.ID, store.UserToken{Hash: tokenHash, Purpose: store.PurposeReset, ExpiresAt: until},
			a.mail.SetPassword(o.AdminEmail, o.Name, token, setPasswordTTL, until)); err != nil {
			return CreatedOrg{}, err
		}
		out.SetPasswordToken, out.SetPasswordUntil = token, until
		a.mail.Notify()
	}
	return out, nil
}

// createClientByOperator makes a client of the provider of the admin with
// o.ProviderEmail (a standalone organization becomes a provider), as the
// operator, and invites o.AdminEmail as its first admin.
func (a *Accounts) createClientByOperator(ctx context.Context, o NewOrg) (CreatedOrg, error) {
	admin, err := a.AdminByEmail(ctx, o.ProviderEmail)
	if err != nil {
		return CreatedOrg{}, err
	}
	operator := Credential{Actor: actor.Garrison(admin.OrgID)}
	c, err := a.CreateClient(ctx, operator, NewClient{Name: o.Name, Plan: o.Plan})
	if err != nil || o.AdminEmail == "" {
		return CreatedOrg{Admin: admin, Client: &c}, err
	}
	inv, token, err := a.Invite(ctx, Invitation{OrgID: c.Client.ID, SenderVerified: true, Email: o.AdminEmail, Role: actor.RoleAdmin})
	if err != nil {
		return CreatedOrg{Admin: admin, Client: &c}, err
	}
	c.Invite, c.InviteToken = &inv, token
	return CreatedOrg{Admin: admin, Client: &c}, nil
}
