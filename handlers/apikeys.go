package handlers

import (
	"net/http"

	"garrison/account"
	"garrison/store"
	"garrison/timestamp"
)

type apiKeyView struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Scope      string  `json:"scope"`
	Prefix     string  `json:"prefix"`
	Status     string  `json:"status"`
	Key        string  `json:"key,omitempty"` // only in the answer that creates it
	ExpiresAt  *string `json:"expires_at"`
	RevokedAt  *string `json:"revoked_at"`
	LastUsedAt *string `json:"last_used_at"`
	CreatedAt  string  `json:"created_at"`
}

func (a *API) newAPIKeyView(k store.APIKey) apiKeyView {
	return apiKeyView{ID: k.ID, Name: k.Name, Scope: k.Scope, Prefix: k.Prefix, Status: account.KeyStatus(k, a.Now()),
		ExpiresAt: timestamp.Optional(k.ExpiresAt), RevokedAt: timestamp.Optional(k.RevokedAt),
		LastUsedAt: timestamp.Optional(k.LastUsedAt), CreatedAt: timestamp.Format(k.CreatedAt)}
}

func (a *API) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	keys, total, err := a.Accounts.Keys(r.Context(), principalFrom(r.Context()).OrgID, page)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(keys, a.newAPIKeyView), total, page)
	return nil
}

type createAPIKeyRequest struct {
	Name      string  `json:"name"`
	Scope     string  `json:"scope"`
	ExpiresAt *string `json:"expires_at"`
}

func (a *API) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var req createAPIKeyRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	k, secret, err := account.CreateKey(r.Context(), a.Store, account.NewKey{OrgID: p.OrgID, CreatedBy: p.User.ID,
		Name: req.Name, Scope: req.Scope, ExpiresAt: req.ExpiresAt}, a.Now())
	if err != nil {
		return err
	}
	auditTarget(r, k.ID)
	auditDetail(r, "name", k.Name)
	auditDetail(r, "scope", k.Scope)
	if k.ExpiresAt != nil {
		auditDetail(r, "expires_at", timestamp.Format(*k.ExpiresAt))
	}
	view := a.newAPIKeyView(k)
	view.Key = secret
	writeData(w, http.StatusCreated, view)
	return nil
}

func (a *API) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	k, err := a.Accounts.RevokeKey(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	auditDetail(r, "name", k.Name)
	auditDetail(r, "scope", k.Scope)
	writeData(w, http.StatusOK, a.newAPIKeyView(k))
	return nil
}
