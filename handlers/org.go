package handlers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"garrison/credential"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

const inviteTTL = 7 * 24 * time.Hour

func (a *API) getOrg(w http.ResponseWriter, r *http.Request) error {
	org, err := a.Store.Org(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newOrgView(org))
	return nil
}

type inviteView struct {
	ID         string  `json:"id"`
	Email      string  `json:"email"`
	Role       string  `json:"role"`
	Status     string  `json:"status"`
	Token      string  `json:"token,omitempty"` // only in the answer that creates it
	ExpiresAt  string  `json:"expires_at"`
	AcceptedAt *string `json:"accepted_at"`
	CreatedAt  string  `json:"created_at"`
}

func (a *API) newInviteView(inv store.Invite) inviteView {
	status := "pending"
	switch {
	case inv.AcceptedAt != nil:
		status = "accepted"
	case !a.Now().Before(inv.ExpiresAt):
		status = "expired"
	}
	return inviteView{ID: inv.ID, Email: inv.Email, Role: inv.Role, Status: status, ExpiresAt: timestamp.Format(inv.ExpiresAt),
		AcceptedAt: timestamp.Optional(inv.AcceptedAt), CreatedAt: timestamp.Format(inv.CreatedAt)}
}

type inviteRequest struct {
	Email string `json:"email"`
	Role  string `json:"role"`
}

func validRole(role string) bool { return role == store.RoleAdmin || role == store.RoleMember }

func (a *API) createInvite(w http.ResponseWriter, r *http.Request) error {
	var req inviteRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	req.Email = strings.ToLower(strings.TrimSpace(req.Email))
	if req.Role == "" {
		req.Role = store.RoleMember
	}
	var p valid.Problems
	p.Check(valid.Email(req.Email), "email", "must be a valid e-mail address")
	p.Check(validRole(req.Role), "role", "must be admin or member")
	if err := p.Err(); err != nil {
		return err
	}
	pr := principalFrom(r.Context())
	if err := a.requireVerifiedSender(r.Context(), pr); err != nil {
		return err
	}
	org, err := a.Store.Org(r.Context(), pr.OrgID)
	if err != nil {
		return err
	}
	token, hash := credential.NewToken()
	inv, err := a.Store.CreateInvite(r.Context(), store.Invite{OrgID: pr.OrgID, Email: req.Email, Role: req.Role,
		TokenHash: hash, InvitedBy: pr.User.ID, ExpiresAt: a.Now().Add(inviteTTL)},
		a.inviteMail(req.Email, org.Name, req.Role, token))
	if err != nil {
		return err
	}
	a.MailQueued()
	view := a.newInviteView(inv)
	view.Token = token
	writeData(w, http.StatusCreated, view)
	return nil
}

func (a *API) listInvites(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	invites, total, err := a.Store.Invites(r.Context(), principalFrom(r.Context()).OrgID, page)
	if err != nil {
		return err
	}
	views := make([]inviteView, len(invites))
	for i, inv := range invites {
		views[i] = a.newInviteView(inv)
	}
	writeList(w, views, total, page)
	return nil
}

func (a *API) listMembers(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	members, total, err := a.Store.Members(r.Context(), principalFrom(r.Context()).OrgID, page)
	if err != nil {
		return err
	}
	views := make([]userView, len(members))
	for i, u := range members {
		views[i] = newUserView(u)
	}
	writeList(w, views, total, page)
	return nil
}

type memberUpdateRequest struct {
	Role string `json:"role"`
}

func (a *API) updateMember(w http.ResponseWriter, r *http.Request) error {
	var req memberUpdateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if !validRole(req.Role) {
		return valid.Field("role", "must be admin or member")
	}
	u, err := a.Store.SetMemberRole(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"), req.Role)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newUserView(u))
	return nil
}

func (a *API) deleteMember(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	err := a.Store.DeleteMember(r.Context(), principalFrom(r.Context()).OrgID, id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, struct {
		ID      string `json:"id"`
		Removed bool   `json:"removed"`
	}{id, true})
	return nil
}

// requireVerifiedSender keeps unconfirmed accounts from making Garrison mail
// arbitrary addresses: a user must have confirmed their own address, an API
// key's organization must have a confirmed admin.
func (a *API) requireVerifiedSender(ctx context.Context, p Principal) error {
	verified := p.Kind == KindSession && p.User.EmailVerifiedAt != nil
	if p.Kind == KindAPIKey {
		n, err := a.Store.VerifiedAdmins(ctx, p.OrgID)
		if err != nil {
			return err
		}
		verified = n > 0
	}
	if verified {
		return nil
	}
	return &Error{Status: http.StatusForbidden, Code: CodeEmailUnverified,
		Message: "Confirm your e-mail address (POST /api/auth/verify-email) before inviting others"}
}
