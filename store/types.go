package store

import (
	"time"
)

// Purposes of one-time user tokens.
const (
	PurposeReset  = "reset"
	PurposeVerify = "verify"
)

// Page selects a window of a list.
type Page struct {
	Limit  int
	Offset int
}

// Org is an organization: the tenant every other record belongs to.
type Org struct {
	ID        string
	Name      string
	Plan      string // in force: a client's provider's unless it has its own
	Members   int
	CreatedAt time.Time
	// Kind is OrgStandalone, OrgProvider or OrgClient; a client names its
	// provider, and whether its plan is its own (PlanOwn) or the provider's.
	Kind       string
	ProviderID string
	PlanOwn    bool
}

// Kinds of organization.
const (
	OrgStandalone = "standalone" // as every organization was before providers
	OrgProvider   = "provider"   // an MSP with client organizations under it
	OrgClient     = "client"     // one provider's client
)

// User is an account. OrgName and Plan come from its organization.
type User struct {
	ID              string
	OrgID           string
	OrgName         string
	Plan            string
	Email           string
	Name            string
	Role            string
	PasswordHash    string
	TokenVersion    int64
	EmailVerifiedAt *time.Time
	CreatedAt       time.Time
	Origin          string // how the membership came to be: Origin*
	// OrgKind and ProviderID describe OrgID (ProviderID: a client's
	// provider). Via is the provider through whose staff membership the
	// user acts in OrgID, a client; "" when the user is OrgID's member.
	OrgKind    string
	ProviderID string
	Via        string
}

// How an account came to be.
const (
	OriginSignup    = "signup"     // registered, making its organization
	OriginInvite    = "invite"     // accepted a person's invitation
	OriginKeyInvite = "key_invite" // accepted an invitation an API key made
	OriginOperator  = "operator"   // made by the appliance's operator (garrison org create)
)

// Origins lists every origin.
var Origins = []string{OriginSignup, OriginInvite, OriginKeyInvite, OriginOperator}

// APIKey is an organization's key. Only the SHA-256 of the secret is stored.
type APIKey struct {
	ID         string
	OrgID      string
	Plan       string // the organization's plan, filled on lookup by hash
	OrgKind    string // the organization's kind, likewise
	Name       string
	Scope      string
	Hash       []byte
	Prefix     string
	CreatedBy  string
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	LastUsedAt *time.Time
	CreatedAt  time.Time
}

// Invite lets an e-mail address join an organization with a role.
type Invite struct {
	ID         string
	OrgID      string
	Email      string
	Role       string
	TokenHash  []byte
	InvitedBy  string // the user; "" when an API key made it
	ByKey      string // the API key that made it, if one did
	ExpiresAt  time.Time
	AcceptedAt *time.Time
	CreatedAt  time.Time
}

// Mail is a message for the outbox.
type Mail struct {
	ID      int64
	To      string
	Subject string
	Body    string
}

// UserToken is a single-use reset or verification token, stored hashed.
type UserToken struct {
	Hash      []byte
	Purpose   string
	ExpiresAt time.Time
}
