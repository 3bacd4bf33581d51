package handlers

import (
	"garrison/store"
	"garrison/timestamp"
)

// userView is a user as the API shows it: never the hash or token_version.
type userView struct {
	ID            string  `json:"id"`
	Email         string  `json:"email"`
	Name          string  `json:"name"`
	Role          string  `json:"role"`
	Org           string  `json:"org"`
	OrgID         string  `json:"org_id"`
	Plan          string  `json:"plan"`
	EmailVerified bool    `json:"email_verified"`
	VerifiedAt    *string `json:"email_verified_at"`
	CreatedAt     string  `json:"created_at"`
}

func newUserView(u store.User) userView {
	return userView{ID: u.ID, Email: u.Email, Name: u.Name, Role: u.Role, Org: u.OrgName, OrgID: u.OrgID,
		Plan: u.Plan, EmailVerified: u.EmailVerifiedAt != nil, VerifiedAt: timestamp.Optional(u.EmailVerifiedAt),
		CreatedAt: timestamp.Format(u.CreatedAt)}
}

type orgView struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Plan      string `json:"plan"`
	Members   int    `json:"members_count"`
	CreatedAt string `json:"created_at"`
	Kind      string `json:"kind"` // standalone, provider or client
}

func newOrgView(o store.Org) orgView {
	return orgView{ID: o.ID, Name: o.Name, Plan: o.Plan, Members: o.Members, CreatedAt: timestamp.Format(o.CreatedAt), Kind: o.Kind}
}
