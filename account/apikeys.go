package account

import (
	"context"
	"time"

	"garrison/actor"
	"garrison/credential"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// maxKeyLifetime bounds expires_at; a key meant to outlive it has no expiry.
const maxKeyLifetime = 10 * 365 * 24 * time.Hour

// NewKey is a request for an API key, from the API or the admin CLI.
type NewKey struct {
	OrgID, CreatedBy string // CreatedBy: the user, or "" from the CLI
	Name, Scope      string
	ExpiresAt        *string // RFC 3339, optional
}

// CreateKey validates the request and makes the key; the secret is
// returned this once, and only its hash is stored.
func CreateKey(ctx context.Context, st *store.Store, req NewKey, now time.Time) (store.APIKey, string, error) {
	var p valid.Problems
	p.Check(valid.Name(req.Name), "name", "must be 1 to 100 printable characters")
	p.Check(req.Scope == actor.ScopeRead || req.Scope == actor.ScopeWrite || req.Scope == actor.ScopeAdmin, "scope", "must be one of read, write, admin")
	var expiresAt *time.Time
	if req.ExpiresAt != nil {
		t, err := timestamp.Parse(*req.ExpiresAt)
		switch {
		case err != nil:
			p.Add("expires_at", "must be an RFC 3339 timestamp")
		case !t.After(now):
			p.Add("expires_at", "must be in the future")
		case t.After(now.Add(maxKeyLifetime)):
			p.Add("expires_at", "must be within ten years; omit it for a key that does not expire")
		default:
			expiresAt = &t
		}
	}
	if err := p.Err(); err != nil {
		return store.APIKey{}, "", err
	}
	key, hash, prefix := credential.NewAPIKey()
	k, err := st.CreateAPIKey(ctx, store.APIKey{OrgID: req.OrgID, Name: req.Name, Scope: req.Scope,
		Hash: hash, Prefix: prefix, CreatedBy: req.CreatedBy, ExpiresAt: expiresAt})
	return k, key, err
}

// The states of an API key.
const (
	KeyActive  = "active"
	KeyRevoked = "revoked"
	KeyExpired = "expired"
)

// KeyStatus is whether a key works at now: revoked, expired or active.
func KeyStatus(k store.APIKey, now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return KeyRevoked
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return KeyExpired
	}
	return KeyActive
}

// Key hygiene, for the score and the compliance checks: a key unused for
// KeyDormantAfter is dormant; an admin key should expire within
// KeyMaxLifetime (what remediation sets); a key expiring within
// KeyExpiryNotice is about to stop working.
const (
	KeyDormantAfter = 90 * 24 * time.Hour
	KeyMaxLifetime  = 90 * 24 * time.Hour
	KeyExpiryNotice = 14 * 24 * time.Hour
)
