package account

import (
	"context"
	"errors"
	"strings"
	"time"

	"garrison/actor"
	"garrison/store"
	"garrison/valid"
)

// Org is an organization.
func (a *Accounts) Org(ctx context.Context, orgID string) (store.Org, error) {
	return a.store.Org(ctx, orgID)
}

// Members is a page of an organization's users, oldest first.
func (a *Accounts) Members(ctx context.Context, orgID string, p store.Page) ([]store.User, int, error) {
	return a.store.Members(ctx, orgID, p)
}

// Invites is a page of an organization's invitations.
func (a *Accounts) Invites(ctx context.Context, orgID string, p store.Page) ([]store.Invite, int, error) {
	return a.store.Invites(ctx, orgID, p)
}

// RemoveMember removes a user from who's organization and says who it
// was. Removing an admin needs a person who gave their password within
// ReauthWindow, and an admin not made through an API key's invitation
// stays (store.ErrLastAdmin).
func (a *Accounts) RemoveMember(ctx context.Context, who Credential, userID string) (store.User, error) {
	cur, err := a.store.Member(ctx, who.OrgID, userID)
	if err != nil {
		return store.User{}, err
	}
	if cur.Role == actor.RoleAdmin {
		if err := a.requireFreshPerson(who); err != nil {
			return store.User{}, err
		}
	}
	return cur, a.store.DeleteMember(ctx, who.OrgID, userID)
}

// RevokeKey revokes one of the organization's API keys from the next
// request on.
func (a *Accounts) RevokeKey(ctx context.Context, orgID, keyID string) (store.APIKey, error) {
	return a.store.RevokeAPIKey(ctx, orgID, keyID)
}

// SetStorageQuota sets an organization's storage quota in bytes (0: the
// appliance's default share of the disk).
func (a *Accounts) SetStorageQuota(ctx context.Context, orgID string, bytes int64) error {
	return a.store.SetStorageQuota(ctx, orgID, bytes)
}

// SetEventRetention gives the organization its own event retention (set
// false: the appliance's --retention again; keep 0: kept for good).
func (a *Accounts) SetEventRetention(ctx context.Context, orgID string, keep time.Duration, set bool) error {
	return a.store.SetOrgRetention(ctx, orgID, keep, set)
}

// EventRetention is the organization's own event retention, if it has one.
func (a *Accounts) EventRetention(ctx context.Context, orgID string) (keep time.Duration, set bool, err error) {
	return a.store.OrgRetention(ctx, orgID, 0)
}

// OrgUsage is an organization with what its events take of its quota.
func (a *Accounts) OrgUsage(ctx context.Context, orgID string) (store.Org, store.Usage, error) {
	org, err := a.store.Org(ctx, orgID)
	if err != nil {
		return org, store.Usage{}, err
	}
	u, err := a.store.Usage(ctx, orgID)
	return org, u, err
}

// ErrNoSuchAdmin: the admin CLI named an address that is no admin's.
var ErrNoSuchAdmin = errors.New("no admin with that e-mail address")

// AdminByEmail is the admin with the address: how the admin CLI names an
// organization.
func (a *Accounts) AdminByEmail(ctx context.Context, email string) (store.User, error) {
	u, err := a.store.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) || (err == nil && u.Role != actor.RoleAdmin) {
		return store.User{}, ErrNoSuchAdmin
	}
	return u, err
}

// SetPlanByAdmin moves the organization of the admin with the address to
// another plan; a running server applies it from the next request.
func (a *Accounts) SetPlanByAdmin(ctx context.Context, adminEmail, plan string) (store.Org, error) {
	if !ValidPlan(plan) {
		return store.Org{}, valid.Field("plan", "must be "+strings.Join(Plans, ", "))
	}
	org, err := a.store.SetPlanByAdmin(ctx, adminEmail, plan)
	if errors.Is(err, store.ErrNotFound) {
		return org, ErrNoSuchAdmin
	}
	return org, err
}

// DeleteOrg removes who's organization and everything it owns, confirmed
// by its exact name (confirm): the one confirmation rule of the API and
// the admin CLI. It needs a person who gave their password within
// ReauthWindow, or the operator. Its sessions and keys stop working at
// once.
func (a *Accounts) DeleteOrg(ctx context.Context, who Credential, confirm *string) (store.Org, error) {
	if err := a.requireFreshPerson(who); err != nil {
		return store.Org{}, err
	}
	orgID := who.OrgID
	org, err := a.store.Org(ctx, orgID)
	if err != nil {
		return org, err
	}
	if confirm == nil || *confirm != org.Name {
		return store.Org{}, valid.Field("confirm", "must be the organization's exact name, to confirm that everything it owns is deleted")
	}
	return a.store.DeleteOrg(ctx, orgID)
}
