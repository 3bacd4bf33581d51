package account

import (
	"context"
	"strings"

	"garrison/actor"
	"garrison/fault"
	"garrison/store"
	"garrison/valid"
)

// MaxAssignedClients bounds one person's list of assigned clients.
const MaxAssignedClients = 1000

// ErrNotProviderStaff: the caller acts in no provider, or is a provider's
// member rather than its admin or technician, so it reaches no clients.
var ErrNotProviderStaff = fault.New(fault.Forbidden, "Only a provider's admins, technicians and API keys, acting in the provider, work with its clients")

// ClientScope is the view of the provider's clients the credential has:
// its provider is the organization it acts in; a person sees the clients
// assigned to them (all when none are), a key all of them. A client's
// users and a provider's members have none.
func ClientScope(who Credential) (store.ClientScope, error) {
	if who.Via != "" || who.OrgKind == store.OrgClient || (who.Kind == actor.Person && who.Role == actor.RoleMember) {
		return store.ClientScope{}, ErrNotProviderStaff
	}
	sc := store.ClientScope{ProviderID: who.OrgID}
	if who.Kind == actor.Person {
		sc.UserID = who.ID
	}
	return sc, nil
}

// NewClient is a request for a client organization.
type NewClient struct {
	Name string
	Plan string // "": the provider's
	// AdminEmail, optional, is invited as the client's first admin.
	AdminEmail string
}

// ClientCreated is a new client with its first admin's invitation.
type ClientCreated struct {
	Client      store.Org
	Invite      *store.Invite
	InviteToken string
}

// CreateClient creates a client organization under who's organization,
// which becomes a provider with its first client, and invites its first
// admin. An API key may create a client but not invite its admin (a key's
// invitation never makes an admin).
func (a *Accounts) CreateClient(ctx context.Context, who Credential, r NewClient) (ClientCreated, error) {
	if _, err := ClientScope(who); err != nil {
		return ClientCreated{}, err
	}
	r.AdminEmail = valid.NormalEmail(r.AdminEmail)
	var p valid.Problems
	p.Check(valid.Name(r.Name), "name", "must be 1 to 100 printable characters")
	p.Check(r.Plan == "" || ValidPlan(r.Plan), "plan", "must be "+strings.Join(Plans, ", ")+", or left out for the provider's")
	p.Check(r.AdminEmail == "" || valid.Email(r.AdminEmail), "admin_email", "must be a valid e-mail address")
	if err := p.Err(); err != nil {
		return ClientCreated{}, err
	}
	inv := Invitation{Email: r.AdminEmail, Role: actor.RoleAdmin}
	if r.AdminEmail != "" {
		if who.Kind != actor.Person {
			return ClientCreated{}, ErrKeyInviteAdmin
		}
		inv.InvitedBy, inv.SenderVerified = who.ID, who.User.EmailVerifiedAt != nil
		if !inv.SenderVerified {
			return ClientCreated{}, ErrUnverifiedSender
		}
	}
	client, err := a.store.CreateClient(ctx, store.NewClient{ProviderID: who.OrgID, Name: r.Name, Plan: r.Plan, Creator: who.ID})
	if err != nil {
		return ClientCreated{}, err
	}
	out := ClientCreated{Client: client}
	if r.AdminEmail == "" {
		return out, nil
	}
	inv.OrgID = client.ID
	invite, token, err := a.Invite(ctx, inv)
	if err != nil {
		return out, err
	}
	out.Invite, out.InviteToken = &invite, token
	return out, nil
}

// Clients lists the clients who reaches, by name.
func (a *Accounts) Clients(ctx context.Context, who Credential) ([]store.Org, error) {
	sc, err := ClientScope(who)
	if err != nil {
		return nil, err
	}
	return a.store.Clients(ctx, sc)
}

// Client is one client who reaches; any other organization is
// store.ErrNotFound.
func (a *Accounts) Client(ctx context.Context, who Credential, clientID string) (store.Org, error) {
	sc, err := ClientScope(who)
	if err != nil {
		return store.Org{}, err
	}
	return a.store.Client(ctx, sc, clientID)
}

// RenameClient gives a client who reaches a new name.
func (a *Accounts) RenameClient(ctx context.Context, who Credential, clientID, name string) (store.Org, error) {
	if !valid.Name(name) {
		return store.Org{}, valid.Field("name", "must be 1 to 100 printable characters")
	}
	if _, err := a.Client(ctx, who, clientID); err != nil {
		return store.Org{}, err
	}
	return a.store.RenameOrg(ctx, clientID, name)
}

// DeleteClient offboards a client who reaches as DeleteOrg deletes an
// organization: confirmed by its exact name, by a person who gave their
// password within ReauthWindow.
func (a *Accounts) DeleteClient(ctx context.Context, who Credential, clientID string, confirm *string) (store.Org, error) {
	if _, err := a.Client(ctx, who, clientID); err != nil {
		return store.Org{}, err
	}
	in := who
	in.OrgID = clientID
	return a.DeleteOrg(ctx, in, confirm)
}

// AssignClients sets the clients a provider's admin or technician reaches
// (none: all of them). An id that is not the provider's client is
// store.ErrNotFound.
func (a *Accounts) AssignClients(ctx context.Context, who Credential, userID string, clientIDs []string) error {
	if _, err := ClientScope(who); err != nil {
		return err
	}
	if len(clientIDs) > MaxAssignedClients {
		return valid.Field("client_ids", "must list at most 1000 clients")
	}
	if clientIDs == nil {
		return valid.Field("client_ids", "is required: a list of client ids, empty for all clients")
	}
	return a.store.SetMemberClients(ctx, who.OrgID, userID, clientIDs)
}

// AssignedClients says whether a provider's member reaches all its
// clients and, when not, the ones assigned to them.
func (a *Accounts) AssignedClients(ctx context.Context, who Credential, userID string) (all bool, ids []string, err error) {
	if _, err := ClientScope(who); err != nil {
		return false, nil, err
	}
	return a.store.MemberClients(ctx, who.OrgID, userID)
}

// Reach is where a person may act: their memberships and the clients
// their provider staff memberships reach.
type Reach struct {
	Memberships []store.Membership
	Clients     []store.Org
}

// ReachOf lists the organizations the user may act in.
func (a *Accounts) ReachOf(ctx context.Context, userID string) (Reach, error) {
	ms, err := a.store.Memberships(ctx, userID)
	if err != nil {
		return Reach{}, err
	}
	r := Reach{Memberships: ms}
	for _, m := range ms {
		if m.Org.Kind != store.OrgProvider || m.Role == actor.RoleMember {
			continue
		}
		cs, err := a.store.Clients(ctx, store.ClientScope{ProviderID: m.Org.ID, UserID: userID})
		if err != nil {
			return Reach{}, err
		}
		r.Clients = append(r.Clients, cs...)
	}
	return r, nil
}
