// Package actor names who acts in an organization (a person with a role,
// an organization's API key with a scope, or Garrison itself) and holds
// the one rule of what each sees: a member sees what is theirs; admins,
// keys and Garrison see the whole organization. Handlers and the store
// both ask it, so the rule is written once.
package actor

// Kind is how an actor acts.
type Kind uint8

const (
	// Person is a user with a session, acting with their role.
	Person Kind = iota + 1
	// Key is an organization's API key, acting with its scope.
	Key
	// System is Garrison itself: its agents and background work.
	System
)

// A person's roles in an organization. A technician is a provider's staff
// member who acts in its clients (seeing each whole) without managing the
// provider.
const (
	RoleAdmin      = "admin"
	RoleTechnician = "technician"
	RoleMember     = "member"
)

// Roles lists the roles, the strongest first.
var Roles = []string{RoleAdmin, RoleTechnician, RoleMember}

// An API key's scopes.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
	ScopeAdmin = "admin"
)

// Scopes lists the scopes, the narrowest first.
var Scopes = []string{ScopeRead, ScopeWrite, ScopeAdmin}

// SystemID names Garrison itself in histories.
const SystemID = "garrison"

// Actor is who acts, in one organization.
type Actor struct {
	Kind  Kind
	OrgID string
	// ID is the user's or the key's id: what records name the actor by.
	ID    string
	Role  string // a person's
	Scope string // a key's
	// Via is the provider whose admin, technician or key acts in OrgID, a
	// client of it; "" when the actor belongs to OrgID.
	Via string
}

// Garrison is the system acting in an organization (an agent, a loop).
func Garrison(orgID string) Actor { return Actor{Kind: System, OrgID: orgID, ID: SystemID} }

// SeesOrganization reports whether the actor sees all of its organization's
// records: admins, technicians, keys and Garrison do; a member sees their
// own.
func (a Actor) SeesOrganization() bool { return a.Kind != Person || a.Role != RoleMember }

// Owner is the user whose own records the actor is limited to, "" when it
// sees the whole organization.
func (a Actor) Owner() string {
	if a.SeesOrganization() {
		return ""
	}
	return a.ID
}
