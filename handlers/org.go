package handlers

import (
	"math"
	"net/http"

	"garrison/actor"

	"garrison/account"
	"garrison/store"
	"garrison/timestamp"
)

// storageView is what an organization's events take of its quota.
type storageView struct {
	UsedBytes  int64  `json:"used_bytes"`
	QuotaBytes *int64 `json:"quota_bytes"` // null: no quota
	Quota      string `json:"quota"`       // "own" or "default"
}

func (a *API) getOrg(w http.ResponseWriter, r *http.Request) error {
	org, u, err := a.Accounts.OrgUsage(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	s := storageView{UsedBytes: u.Bytes, Quota: "default"}
	if u.QuotaSet {
		s.Quota = "own"
	}
	if u.Quota < math.MaxInt64 {
		s.QuotaBytes = &u.Quota
	}
	writeData(w, http.StatusOK, struct {
		orgView
		Storage storageView `json:"storage"`
	}{newOrgView(org), s})
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
	return inviteView{ID: inv.ID, Email: inv.Email, Role: inv.Role, Status: account.InviteStatus(inv, a.Now()), ExpiresAt: timestamp.Format(inv.ExpiresAt),
		AcceptedAt: timestamp.Optional(inv.AcceptedAt), CreatedAt: timestamp.Format(inv.CreatedAt)}
}

type inviteRequest struct {
	Email string `json:"email"`
	Role  string `json:"role,notempty"`
}

func (a *API) createInvite(w http.ResponseWriter, r *http.Request) error {
	var req inviteRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	in := account.Invitation{OrgID: p.OrgID, Email: req.Email, Role: req.Role}
	if p.Kind == actor.Person {
		in.InvitedBy, in.SenderVerified = p.User.ID, p.User.EmailVerifiedAt != nil
	} else {
		in.ByKey = p.ID
	}
	inv, token, err := a.Accounts.Invite(r.Context(), in)
	if err != nil {
		return err
	}
	auditTarget(r, inv.ID)
	auditDetail(r, "email", inv.Email)
	auditDetail(r, "role", inv.Role)
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
	invites, total, err := a.Accounts.Invites(r.Context(), principalFrom(r.Context()).OrgID, page)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(invites, a.newInviteView), total, page)
	return nil
}

func (a *API) listMembers(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	members, total, err := a.Accounts.Members(r.Context(), principalFrom(r.Context()).OrgID, page)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(members, newUserView), total, page)
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
	u, previous, err := a.Accounts.SetRole(r.Context(), principalFrom(r.Context()).Credential, r.PathValue("id"), req.Role)
	if err != nil {
		return err
	}
	auditDetail(r, "role_from", previous)
	auditDetail(r, "role_to", u.Role)
	auditDetail(r, "email", u.Email)
	writeData(w, http.StatusOK, newUserView(u))
	return nil
}

func (a *API) deleteMember(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	removed, err := a.Accounts.RemoveMember(r.Context(), principalFrom(r.Context()).Credential, id)
	if err != nil {
		return err
	}
	auditDetail(r, "email", removed.Email)
	auditDetail(r, "role", removed.Role)
	writeData(w, http.StatusOK, struct {
		ID      string `json:"id"`
		Removed bool   `json:"removed"`
	}{id, true})
	return nil
}

type deleteOrgRequest struct {
	Confirm *string `json:"confirm"`
}

// deleteOrg removes the caller's organization and all it owns (the rules
// are account.DeleteOrg's: an admin's recent session, the exact name).
func (a *API) deleteOrg(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	var req deleteOrgRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	deleted, err := a.Accounts.DeleteOrg(r.Context(), p.Credential, req.Confirm)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, map[string]any{"id": deleted.ID, "name": deleted.Name, "deleted": true})
	return nil
}
