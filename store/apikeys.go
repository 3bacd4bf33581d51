package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

const apiKeyColumns = `k.id, k.org_id, ` + planInForce + `, o.kind, k.name, k.scope, k.hash, k.prefix, COALESCE(k.created_by, ''),
	k.expires_at, k.revoked_at, k.last_used_at, k.created_at`

func scanAPIKey(row interface{ Scan(...any) error }) (APIKey, error) {
	var k APIKey
	var expires, revoked, used sql.NullInt64
	var created int64
	err := row.Scan(&k.ID, &k.OrgID, &k.Plan, &k.OrgKind, &k.Name, &k.Scope, &k.Hash, &k.Prefix, &k.CreatedBy,
		&expires, &revoked, &used, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return APIKey{}, ErrNotFound
	}
	if err != nil {
		return APIKey{}, err
	}
	k.ExpiresAt, k.RevokedAt, k.LastUsedAt, k.CreatedAt = optMS(expires), optMS(revoked), optMS(used), fromMS(created)
	return k, nil
}

// CreateAPIKey stores a key's hash and display prefix; the id and creation
// time are assigned here.
func (s *Store) CreateAPIKey(ctx context.Context, k APIKey) (APIKey, error) {
	now := s.now()
	k.ID = NewID("key", now)
	k.CreatedAt = fromMS(ms(now))
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, org_id, name, scope, hash, prefix, created_by, expires_at, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, k.ID, k.OrgID, k.Name, k.Scope, k.Hash, k.Prefix,
			nullString(k.CreatedBy), nullMS(k.ExpiresAt), ms(now))
		if isUniqueViolation(err) {
			return ErrDuplicateKey
		}
		if err != nil {
			return fmt.Errorf("create api key: %w", err)
		}
		return nil
	})
	return k, err
}

// APIKeyByHash finds a key (revoked and expired ones included: the caller
// tells those apart) with its organization's plan.
func (s *Store) APIKeyByHash(ctx context.Context, hash []byte) (APIKey, error) {
	gen := s.auth.current()
	if k, ok := s.auth.key(hash, gen); ok {
		return k, nil
	}
	k, err := scanAPIKey(s.reads().QueryRowContext(ctx, `SELECT `+apiKeyColumns+`
		FROM api_keys k JOIN orgs o ON o.id = k.org_id WHERE k.hash = ?`, hash))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return APIKey{}, fmt.Errorf("api key by hash: %w", err)
	}
	if err == nil {
		s.auth.putKey(hash, keyFacts{gen, k})
	}
	return k, err
}

// APIKeys lists an organization's keys, newest first.
func (s *Store) APIKeys(ctx context.Context, orgID string, p Page) ([]APIKey, int, error) {
	var total int
	if err := s.reads().QueryRowContext(ctx, `SELECT COUNT(*) FROM api_keys WHERE org_id = ?`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count api keys: %w", err)
	}
	rows, err := s.reads().QueryContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys k JOIN orgs o ON o.id = k.org_id
		WHERE k.org_id = ? ORDER BY k.id DESC LIMIT ? OFFSET ?`, orgID, p.Limit, p.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list api keys: %w", err)
	}
	defer rows.Close()
	var out []APIKey
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("list api keys: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list api keys: %w", err)
	}
	return out, total, nil
}

// RevokeAPIKey marks a key revoked (idempotent) and returns it.
func (s *Store) RevokeAPIKey(ctx context.Context, orgID, id string) (APIKey, error) {
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND org_id = ?`,
			ms(s.now()), id, orgID)
		return expectOne(res, err, "revoke api key")
	})
	if err != nil {
		return APIKey{}, err
	}
	return scanAPIKey(s.reads().QueryRowContext(ctx, `SELECT `+apiKeyColumns+`
		FROM api_keys k JOIN orgs o ON o.id = k.org_id WHERE k.id = ? AND k.org_id = ?`, id, orgID))
}

// TouchAPIKeys records uses of keys (key id → when), each unless a later
// one is recorded, in one transaction.
func (s *Store) TouchAPIKeys(ctx context.Context, uses map[string]time.Time) error {
	if len(uses) == 0 {
		return nil
	}
	return s.writeAuth(ctx, func(tx *sql.Tx) error {
		for id, at := range uses {
			if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?`, ms(at), id); err != nil {
				return fmt.Errorf("touch api key: %w", err)
			}
		}
		return nil
	})
}
