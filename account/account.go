// Package account holds the rules of identity: registering, passwords and
// their recovery, e-mail confirmation, invitations and API keys. Handlers
// and the admin CLI call it; it validates its own input (a *valid.Error
// names each bad field) and keeps everything in the store.
package account

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"garrison/actor"
	"garrison/audit"
	"garrison/credential"
	"garrison/fault"
	"garrison/mail"
	"garrison/store"
	"garrison/valid"
)

// Lifetimes of single-use tokens.
const (
	verifyTokenTTL = time.Hour
	inviteTTL      = 7 * 24 * time.Hour
)

// The refusals of identity, each with what the client is told.
var (
	// ErrBadLogin: unknown address or wrong password, never saying which.
	ErrBadLogin = fault.New(fault.Unauthorized, "Invalid email or password")
	// ErrUnverifiedSender: an account that has not confirmed its own address
	// may not make Garrison mail others.
	ErrUnverifiedSender = fault.New(fault.EmailUnverified,
		"Confirm your e-mail address (POST /api/auth/verify-email) before inviting others")
	// ErrRegistrationClosed: the appliance takes no sign-ups.
	ErrRegistrationClosed = fault.New(fault.RegistrationClosed,
		"Registration is closed on this appliance; its operator creates organizations (garrison org create)")
	// ErrInviteRequired: the appliance takes sign-ups by invitation only.
	ErrInviteRequired = fault.New(fault.RegistrationClosed,
		"Registration on this appliance needs an invitation: send the invite_token an admin's invitation mail carries")
)

// Registration modes (--registration).
const (
	RegistrationOpen   = "open"
	RegistrationInvite = "invite"
	RegistrationClosed = "closed"
)

// RegistrationModes are the modes, for flags.
var RegistrationModes = []string{RegistrationOpen, RegistrationInvite, RegistrationClosed}

// Passwords is what the rules need of credential.Hasher.
type Passwords interface {
	Hash(ctx context.Context, password string) (string, error)
	Verify(ctx context.Context, password, encoded string) (ok, rehash bool, err error)
	// VerifyNobody spends what Verify spends, for an account that does not exist.
	VerifyNobody(ctx context.Context, password string) error
}

// Accounts applies the rules over the store.
type Accounts struct {
	store     *store.Store
	passwords Passwords
	sessions  SessionCodec
	keyUse    *KeyUse
	mail      *mail.Mailer
	now       func() time.Time
	log       *slog.Logger
	// defaultPlan is new organizations' plan.
	defaultPlan string
	// registration is who may sign up: open, invite or closed.
	registration string
}

// Config is what the account rules need.
type Config struct {
	Store     *store.Store
	Passwords Passwords
	// Sessions signs and verifies session tokens.
	Sessions SessionCodec
	// KeyUse remembers API keys' last use (default: a tracker of its own,
	// which nothing writes down).
	KeyUse *KeyUse
	Mailer *mail.Mailer
	Now    func() time.Time
	Log    *slog.Logger
	// DefaultPlan is new organizations' plan (default starter).
	DefaultPlan string
	// Registration is who may sign up (RegistrationModes; default open).
	Registration string
}

// New builds the account rules.
func New(c Config) *Accounts {
	if c.KeyUse == nil {
		c.KeyUse = NewKeyUse(KeyUseConfig{Store: c.Store, Log: c.Log})
	}
	return &Accounts{store: c.Store, passwords: c.Passwords, sessions: c.Sessions, keyUse: c.KeyUse, mail: c.Mailer,
		now: c.Now, log: c.Log, defaultPlan: cmp.Or(c.DefaultPlan, PlanStarter), registration: cmp.Or(c.Registration, RegistrationOpen)}
}

// Registration is who may sign up: RegistrationOpen, RegistrationInvite
// or RegistrationClosed.
func (a *Accounts) Registration() string { return a.registration }

func checkPassword(p *valid.Problems, field, password string) {
	if msg := credential.PasswordProblem(password); msg != "" {
		p.Add(field, msg)
	}
}

// Registration is a request for an account.
type Registration struct {
	Email, Password, Name string
	Org                   string // optional: the new organization's name
	InviteToken           string // optional: join the inviting organization instead
}

// Registered is what a registration made: the account, or, for an address
// that an unconfirmed account made through another organization's
// invitation holds, the claim waiting for the mailbox to confirm it.
type Registered struct {
	User  store.User
	Claim *store.EmailClaim
}

// Register creates the account (and its organization, unless invited),
// queues the confirmation mail and returns the new user. An address held by
// an unconfirmed account that another organization's invitation made is
// claimed instead (store/claims.go): the account is made when the mailbox
// confirms.
func (a *Accounts) Register(ctx context.Context, r Registration) (Registered, error) {
	switch {
	case a.registration == RegistrationClosed:
		return Registered{}, ErrRegistrationClosed
	case a.registration == RegistrationInvite && r.InviteToken == "":
		return Registered{}, ErrInviteRequired
	}
	r.Email = valid.NormalEmail(r.Email)
	var p valid.Problems
	p.Check(valid.Email(r.Email), "email", "must be a valid e-mail address")
	checkPassword(&p, "password", r.Password)
	p.Check(valid.Name(r.Name), "name", "must be 1 to 100 printable characters")
	p.Check(r.Org == "" || valid.Name(r.Org), "org", "must be 1 to 100 printable characters")
	p.Check(r.InviteToken == "" || r.Org == "", "org", "cannot be given with invite_token: the invite names the organization")
	if err := p.Err(); err != nil {
		return Registered{}, err
	}
	orgName := r.Org
	if orgName == "" {
		orgName = valid.EmailDomain(r.Email)
	}
	hash, err := a.passwords.Hash(ctx, r.Password)
	if err != nil {
		return Registered{}, err
	}
	token, tokenHash := credential.NewToken()
	acc := store.NewAccount{
		Email: r.Email, Name: r.Name, PasswordHash: hash, OrgName: orgName, Plan: a.defaultPlan,
		Verify:     store.UserToken{Hash: tokenHash, Purpose: store.PurposeVerify, ExpiresAt: a.now().Add(verifyTokenTTL)},
		VerifyMail: a.mail.Verify(r.Email, token),
	}
	if r.InviteToken != "" {
		acc.InviteHash = credential.Hash(r.InviteToken)
	}
	u, err := a.store.Register(ctx, acc)
	var existing store.User // the address's account, when an invitation's password is not its
	if errors.Is(err, store.ErrEmailTaken) && r.InviteToken != "" {
		// The address's own account accepts with its own password: the
		// same person joins another organization.
		joined, ok, joinErr := a.join(ctx, r, acc.InviteHash)
		if ok || joinErr != nil {
			u, err = joined, joinErr
		} else {
			existing = joined
		}
	}
	var claim *store.EmailClaim
	if errors.Is(err, store.ErrEmailTaken) {
		acc.VerifyMail = a.mail.Claim(r.Email, token)
		c, claimErr := a.store.ClaimEmail(ctx, acc)
		if claimErr == nil {
			claim, err = &c, nil
		} else if !errors.Is(claimErr, store.ErrEmailTaken) {
			err = claimErr
		}
	}
	if errors.Is(err, store.ErrEmailTaken) && existing.ID != "" {
		// Neither the account's password nor a claim of its address: a
		// wrong password, answered and counted as a sign-in's.
		return Registered{User: existing}, ErrBadLogin
	}
	if errors.Is(err, store.ErrInvalidToken) {
		return Registered{}, valid.Field("invite_token", "is invalid, expired, already used, or for another e-mail address")
	}
	if err != nil {
		return Registered{}, err
	}
	a.mail.Notify()
	return Registered{User: u, Claim: claim}, nil
}

// join adds the address's account to the invitation's organization when
// the password is that account's; ok is false, with the account, when it
// is not.
func (a *Accounts) join(ctx context.Context, r Registration, inviteHash []byte) (store.User, bool, error) {
	existing, err := a.store.UserByEmail(ctx, r.Email)
	if err != nil {
		return store.User{}, false, err
	}
	ok, _, err := a.passwords.Verify(ctx, r.Password, existing.PasswordHash)
	if err != nil || !ok {
		return existing, false, err
	}
	u, err := a.store.JoinOrg(ctx, existing.ID, inviteHash)
	return u, err == nil, err
}

// Login checks an address and password. Unknown addresses cost the same
// time as wrong passwords, and both are ErrBadLogin; with a wrong password
// for an existing account, that account comes back beside ErrBadLogin, so
// its organization's audit log can record the attempt (it is not signed
// in). A hash made with fewer iterations than today's is upgraded on the
// way.
func (a *Accounts) Login(ctx context.Context, email, password string) (store.User, error) {
	var p valid.Problems
	p.Check(email != "", "email", "is required")
	p.Check(password != "", "password", "is required")
	if err := p.Err(); err != nil {
		return store.User{}, err
	}
	u, err := a.store.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		if err := a.passwords.VerifyNobody(ctx, password); err != nil {
			return store.User{}, err
		}
		return store.User{}, ErrBadLogin
	}
	if err != nil {
		return store.User{}, err
	}
	ok, rehash, err := a.passwords.Verify(ctx, password, u.PasswordHash)
	if err != nil {
		return store.User{}, err
	}
	if !ok {
		return u, ErrBadLogin
	}
	if rehash {
		if hash, err := a.passwords.Hash(ctx, password); err == nil {
			if err := a.store.SetPassword(ctx, u.ID, hash, false); err != nil {
				a.log.WarnContext(ctx, "upgrade password hash", "user_id", u.ID, "err", err)
			}
		}
	}
	return u, nil
}

// ChangePassword replaces the user's password after checking the current
// one; every session of the user ends. It returns the user as now stored,
// acting in the organization u acts in.
func (a *Accounts) ChangePassword(ctx context.Context, who Credential, current, next string) (store.User, error) {
	u := who.User
	if who.ByHeader {
		return u, ErrIssueByHeader
	}
	var p valid.Problems
	p.Check(current != "", "current_password", "is required")
	checkPassword(&p, "new_password", next)
	p.Check(next != current, "new_password", "must differ from the current password")
	if err := p.Err(); err != nil {
		return u, err
	}
	ok, _, err := a.passwords.Verify(ctx, current, u.PasswordHash)
	if err != nil {
		return u, err
	}
	if !ok {
		return u, valid.Field("current_password", "is incorrect")
	}
	hash, err := a.passwords.Hash(ctx, next)
	if err != nil {
		return u, err
	}
	if err := a.store.SetPassword(ctx, u.ID, hash, true); err != nil {
		return u, err
	}
	return a.store.UserIn(ctx, u.ID, u.OrgID)
}

// RequestReset queues a reset for an address, existing or not; the mailer
// turns it into a token and a mail, so this answers the same either way.
func (a *Accounts) RequestReset(ctx context.Context, email string) error {
	email = valid.NormalEmail(email)
	if !valid.Email(email) {
		return valid.Field("email", "must be a valid e-mail address")
	}
	if err := a.store.QueueResetRequest(ctx, email); err != nil {
		return err
	}
	a.mail.Notify()
	return nil
}

var errTokenUnusable = valid.Field("token", "is invalid, expired or already used")

// ConfirmReset sets a new password with a reset token; every session of
// the user ends.
func (a *Accounts) ConfirmReset(ctx context.Context, token, password string) (store.User, error) {
	var p valid.Problems
	p.Check(token != "", "token", "is required")
	checkPassword(&p, "new_password", password)
	if err := p.Err(); err != nil {
		return store.User{}, err
	}
	// Refuse a bad token before hashing: anonymous callers get no free CPU.
	tokenHash := credential.Hash(token)
	usable, err := a.store.UserTokenValid(ctx, tokenHash, store.PurposeReset)
	if err != nil {
		return store.User{}, err
	}
	if !usable {
		return store.User{}, errTokenUnusable
	}
	hash, err := a.passwords.Hash(ctx, password)
	if err != nil {
		return store.User{}, err
	}
	u, err := a.store.ResetPassword(ctx, tokenHash, hash)
	if errors.Is(err, store.ErrInvalidToken) || errors.Is(err, store.ErrNotFound) {
		return store.User{}, errTokenUnusable
	}
	return u, err
}

// VerifyEmail confirms the address a verification token was sent to.
func (a *Accounts) VerifyEmail(ctx context.Context, token string) (store.User, error) {
	if token == "" {
		return store.User{}, valid.Field("token", "is required")
	}
	u, err := a.store.VerifyEmail(ctx, credential.Hash(token))
	if errors.Is(err, store.ErrInvalidToken) || errors.Is(err, store.ErrNotFound) {
		u, err = a.confirmClaim(ctx, token)
	}
	if errors.Is(err, store.ErrInvalidToken) || errors.Is(err, store.ErrNotFound) {
		return u, errTokenUnusable
	}
	return u, err
}

// confirmClaim makes the account of a claim the mailbox confirmed; the
// account it took the address from goes on its organization's audit log as
// removed by the system.
func (a *Accounts) confirmClaim(ctx context.Context, token string) (store.User, error) {
	u, displaced, err := a.store.ConfirmClaim(ctx, credential.Hash(token))
	if err != nil || displaced == nil {
		return u, err
	}
	return u, audit.Record(ctx, a.store, store.AuditEntry{OrgID: displaced.OrgID, Actor: audit.SystemActor, Action: audit.MemberRemove,
		Target: displaced.UserID, Detail: map[string]string{"reason": "address_claimed", "email": u.Email}})
}

// RolesIn are the roles a person may hold in an organization of the kind:
// technician only in a provider (it acts in the provider's clients).
func RolesIn(kind string) []string {
	if kind == store.OrgProvider {
		return actor.Roles
	}
	return []string{actor.RoleAdmin, actor.RoleMember}
}

// checkRole refuses a role the organization's kind does not have.
func checkRole(p *valid.Problems, role, kind string) {
	roles := RolesIn(kind)
	p.Check(slices.Contains(roles, role), "role", "must be "+strings.Join(roles[:len(roles)-1], ", ")+" or "+roles[len(roles)-1])
}

// SetRole makes a user of who's organization an admin or a member and
// says the role it had. Granting or taking away admin needs a person who
// gave their password within ReauthWindow; the organization keeps an
// admin not made through an API key's invitation (store.ErrLastAdmin).
func (a *Accounts) SetRole(ctx context.Context, who Credential, userID, role string) (u store.User, previous string, err error) {
	org, err := a.store.Org(ctx, who.OrgID)
	if err != nil {
		return store.User{}, "", err
	}
	var p valid.Problems
	checkRole(&p, role, org.Kind)
	if err := p.Err(); err != nil {
		return store.User{}, "", err
	}
	cur, err := a.store.Member(ctx, who.OrgID, userID)
	if err != nil {
		return store.User{}, "", err
	}
	if role == actor.RoleAdmin || cur.Role == actor.RoleAdmin {
		if err := a.requireFreshPerson(who); err != nil {
			return store.User{}, "", err
		}
	}
	u, err = a.store.SetMemberRole(ctx, who.OrgID, userID, role)
	return u, cur.Role, err
}

// InviteStatus is pending, accepted or expired.
func InviteStatus(inv store.Invite, now time.Time) string {
	switch {
	case inv.AcceptedAt != nil:
		return "accepted"
	case !now.Before(inv.ExpiresAt):
		return "expired"
	}
	return "pending"
}

// Invitation is a request to invite someone into an organization.
type Invitation struct {
	OrgID     string
	InvitedBy string // the user, or "" for an API key
	// ByKey is the API key inviting, when a key does: its invitations
	// cannot make admins.
	ByKey string
	// SenderVerified: the inviting user has confirmed their own address.
	// For an API key, the organization needs a confirmed admin instead.
	SenderVerified bool
	Email, Role    string // Role defaults to member
}

// Invite records an invitation and queues its mail; the token is returned
// this once.
func (a *Accounts) Invite(ctx context.Context, in Invitation) (inv store.Invite, token string, err error) {
	in.Email = valid.NormalEmail(in.Email)
	if in.Role == "" {
		in.Role = actor.RoleMember
	}
	org, err := a.store.Org(ctx, in.OrgID)
	if err != nil {
		return inv, "", err
	}
	var p valid.Problems
	p.Check(valid.Email(in.Email), "email", "must be a valid e-mail address")
	checkRole(&p, in.Role, org.Kind)
	if err := p.Err(); err != nil {
		return inv, "", err
	}
	if in.ByKey != "" && in.Role == actor.RoleAdmin {
		return inv, "", ErrKeyInviteAdmin
	}
	if in.InvitedBy == "" && !in.SenderVerified {
		n, err := a.store.VerifiedAdmins(ctx, in.OrgID)
		if err != nil {
			return inv, "", err
		}
		in.SenderVerified = n > 0
	}
	if !in.SenderVerified {
		return inv, "", ErrUnverifiedSender
	}
	token, hash := credential.NewToken()
	inv, err = a.store.CreateInvite(ctx, store.Invite{OrgID: in.OrgID, Email: in.Email, Role: in.Role,
		TokenHash: hash, InvitedBy: in.InvitedBy, ByKey: in.ByKey, ExpiresAt: a.now().Add(inviteTTL)},
		a.mail.Invite(in.Email, org.Name, in.Role, token))
	if err != nil {
		return inv, "", err
	}
	a.mail.Notify()
	return inv, token, nil
}
