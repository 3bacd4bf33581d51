package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// IdentityFacts are the account hygiene numbers behind the identity score.
type IdentityFacts struct {
	Members           int
	Admins            int
	Unverified        int
	ActiveKeys        int
	AdminKeysNoExpiry int
	KeysDormant       int // active keys unused since the dormancy cut-off
	KeysExpiringSoon  int // active keys expiring before the notice cut-off
}

// IdentityFacts counts an organization's users and API keys by hygiene:
// keys unused since dormantSince, and keys expiring by expiringBy.
func (s *Store) IdentityFacts(ctx context.Context, orgID string, now, dormantSince, expiringBy time.Time) (IdentityFacts, error) {
	var f IdentityFacts
	n := ms(now)
	err := s.reads().QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM memberships WHERE org_id = ?1),
		(SELECT COUNT(*) FROM memberships WHERE org_id = ?1 AND role = 'admin'),
		(SELECT COUNT(*) FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = ?1 AND u.email_verified_at IS NULL),
		(SELECT COUNT(*) FROM api_keys WHERE org_id = ?1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)),
		(SELECT COUNT(*) FROM api_keys WHERE org_id = ?1 AND revoked_at IS NULL AND scope = 'admin' AND expires_at IS NULL),
		(SELECT COUNT(*) FROM api_keys WHERE org_id = ?1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)
			AND COALESCE(last_used_at, created_at) < ?3),
		(SELECT COUNT(*) FROM api_keys WHERE org_id = ?1 AND revoked_at IS NULL AND expires_at > ?2 AND expires_at <= ?4)`,
		orgID, n, ms(dormantSince), ms(expiringBy)).Scan(&f.Members, &f.Admins, &f.Unverified, &f.ActiveKeys, &f.AdminKeysNoExpiry,
		&f.KeysDormant, &f.KeysExpiringSoon)
	if err != nil {
		return f, fmt.Errorf("identity facts: %w", err)
	}
	return f, nil
}

// DNSTotals returns DNS queries by blocklist category ("" = allowed) from
// the hour holding since.
func (s *Store) DNSTotals(ctx context.Context, orgID string, since time.Time) (map[string]int, error) {
	rows, err := s.reads().QueryContext(ctx, `SELECT category, SUM(n) FROM dns_rollup WHERE org_id = ? AND hour >= ? GROUP BY category`,
		orgID, floorMS(ms(since), hourMS))
	if err != nil {
		return nil, fmt.Errorf("dns totals: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var c string
		var n int
		if err := rows.Scan(&c, &n); err != nil {
			return nil, fmt.Errorf("dns totals: %w", err)
		}
		out[c] = n
	}
	return out, rows.Err()
}

// BlockedDomain is a blocked domain and how often it was asked for.
type BlockedDomain struct {
	Domain   string
	Category string
	Count    int
	LastSeen time.Time
}

// TopBlockedDomains returns the most-queried blocked domains.
func (s *Store) TopBlockedDomains(ctx context.Context, orgID string, limit int) ([]BlockedDomain, error) {
	rows, err := s.reads().QueryContext(ctx, `SELECT domain, category, n, last_seen FROM dns_blocked_domains
		WHERE org_id = ? ORDER BY n DESC, domain LIMIT ?`, orgID, limit)
	if err != nil {
		return nil, fmt.Errorf("blocked domains: %w", err)
	}
	defer rows.Close()
	out := []BlockedDomain{}
	for rows.Next() {
		var d BlockedDomain
		var last int64
		if err := rows.Scan(&d.Domain, &d.Category, &d.Count, &last); err != nil {
			return nil, fmt.Errorf("blocked domains: %w", err)
		}
		d.LastSeen = fromMS(last)
		out = append(out, d)
	}
	return out, rows.Err()
}

// LastDNSQuery returns when the organization's newest DNS query happened.
func (s *Store) LastDNSQuery(ctx context.Context, orgID string) (*time.Time, error) {
	var last sql.NullInt64
	if err := s.reads().QueryRowContext(ctx, `SELECT MAX(ts) FROM dns_queries WHERE org_id = ?`, orgID).Scan(&last); err != nil {
		return nil, fmt.Errorf("last dns query: %w", err)
	}
	return optMS(last), nil
}
