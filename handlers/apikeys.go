package handlers

import (
	"context"
	"net/http"
	"time"

	"garrison/credential"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// maxKeyLifetime bounds expires_at; a key meant to outlive it has no expiry.
const maxKeyLifetime = 10 * 365 * 24 * time.Hour

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
	status := "active"
	switch {
	case k.RevokedAt != nil:
		status = "revoked"
	case k.ExpiresAt != nil && !a.Now().Before(*k.ExpiresAt):
		status = "expired"
	}
	return apiKeyView{ID: k.ID, Name: k.Name, Scope: k.Scope, Prefix: k.Prefix, Status: status,
		ExpiresAt: timestamp.Optional(k.ExpiresAt), RevokedAt: timestamp.Optional(k.RevokedAt),
		LastUsedAt: timestamp.Optional(k.LastUsedAt), CreatedAt: timestamp.Format(k.CreatedAt)}
}

func (a *API) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	keys, total, err := a.Store.APIKeys(r.Context(), principalFrom(r.Context()).OrgID, page)
	if err != nil {
		return err
	}
	views := make([]apiKeyView, len(keys))
	for i, k := range keys {
		views[i] = a.newAPIKeyView(k)
	}
	writeList(w, views, total, page)
	return nil
}

type createAPIKeyRequest struct {
	Name      string  `json:"name"`
	Scope     string  `json:"scope"`
	ExpiresAt *string `json:"expires_at"`
}

// NewAPIKeySpec is a validated request for a key, shared by the API and the CLI.
type NewAPIKeySpec struct {
	Name      string
	Scope     string
	ExpiresAt *time.Time
}

// ParseAPIKeySpec validates a key's name, scope and optional RFC 3339 expiry.
func ParseAPIKeySpec(name, scope string, expiresAt *string, now time.Time) (NewAPIKeySpec, error) {
	var p valid.Problems
	p.Check(valid.Name(name), "name", "must be 1 to 100 printable characters")
	p.Check(scope == store.ScopeRead || scope == store.ScopeWrite || scope == store.ScopeAdmin, "scope", "must be one of read, write, admin")
	spec := NewAPIKeySpec{Name: name, Scope: scope}
	if expiresAt != nil {
		t, err := time.Parse(time.RFC3339, *expiresAt)
		switch {
		case err != nil:
			p.Add("expires_at", "must be an RFC 3339 timestamp")
		case !t.After(now):
			p.Add("expires_at", "must be in the future")
		case t.After(now.Add(maxKeyLifetime)):
			p.Add("expires_at", "must be within ten years; omit it for a key that does not expire")
		default:
			t = t.UTC()
			spec.ExpiresAt = &t
		}
	}
	return spec, p.Err()
}

// CreateAPIKey makes a key for an organization and returns it with its secret.
func CreateAPIKey(ctx context.Context, s *store.Store, orgID, createdBy string, spec NewAPIKeySpec) (store.APIKey, string, error) {
	key, hash, prefix := credential.NewAPIKey()
	k, err := s.CreateAPIKey(ctx, store.APIKey{OrgID: orgID, Name: spec.Name, Scope: spec.Scope,
		Hash: hash, Prefix: prefix, CreatedBy: createdBy, ExpiresAt: spec.ExpiresAt})
	return k, key, err
}

func (a *API) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var req createAPIKeyRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	spec, err := ParseAPIKeySpec(req.Name, req.Scope, req.ExpiresAt, a.Now())
	if err != nil {
		return err
	}
	p := principalFrom(r.Context())
	k, secret, err := CreateAPIKey(r.Context(), a.Store, p.OrgID, p.User.ID, spec)
	if err != nil {
		return err
	}
	view := a.newAPIKeyView(k)
	view.Key = secret
	writeData(w, http.StatusCreated, view)
	return nil
}

func (a *API) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	k, err := a.Store.RevokeAPIKey(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, a.newAPIKeyView(k))
	return nil
}
