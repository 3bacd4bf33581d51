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
	Plan      string
	Members   int
	CreatedAt time.Time
}

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
}

// APIKey is an organization's key. Only the SHA-256 of the secret is stored.
type APIKey struct {
	ID         string
	OrgID      string
	Plan       string // the organization's plan, filled on lookup by hash
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
	InvitedBy  string
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
