package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"garrison/actor"
	"garrison/valid"
)

// Org returns an organization with its member count.
func (s *Store) Org(ctx context.Context, orgID string) (Org, error) {
	var o Org
	var created int64
	err := s.reads().QueryRowContext(ctx, `SELECT id, name, plan, created_at,
		(SELECT COUNT(*) FROM users WHERE org_id = orgs.id) FROM orgs WHERE id = ?`, orgID).
		Scan(&o.ID, &o.Name, &o.Plan, &created, &o.Members)
	if errors.Is(err, sql.ErrNoRows) {
		return Org{}, ErrNotFound
	}
	if err != nil {
		return Org{}, fmt.Errorf("organization: %w", err)
	}
	o.CreatedAt = fromMS(created)
	return o, nil
}

// SetPlanByAdmin changes the plan of the organization whose admin has the
// given e-mail address. A member's address is ErrNotFound: only an admin
// identifies an organization for billing changes.
func (s *Store) SetPlanByAdmin(ctx context.Context, adminEmail, plan string) (Org, error) {
	var orgID string
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `UPDATE orgs SET plan = ?
			WHERE id = (SELECT org_id FROM users WHERE email = ? AND role = 'admin') RETURNING id`,
			plan, valid.NormalEmail(adminEmail)).Scan(&orgID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("set plan: %w", err)
		}
		return nil
	})
	if err != nil {
		return Org{}, err
	}
	return s.Org(ctx, orgID)
}

// Members lists an organization's users, oldest first, with the total count.
func (s *Store) Members(ctx context.Context, orgID string, p Page) ([]User, int, error) {
	var total int
	if err := s.reads().QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE org_id = ?`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count members: %w", err)
	}
	rows, err := s.reads().QueryContext(ctx, `SELECT `+userColumns+` FROM users u JOIN orgs o ON o.id = u.org_id
		WHERE u.org_id = ? ORDER BY u.id LIMIT ? OFFSET ?`, orgID, p.Limit, p.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list members: %w", err)
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("list members: %w", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list members: %w", err)
	}
	return out, total, nil
}

// Member returns one user of the organization.
func (s *Store) Member(ctx context.Context, orgID, userID string) (User, error) {
	u, err := s.UserByID(ctx, userID)
	if err != nil {
		return User{}, err
	}
	if u.OrgID != orgID {
		return User{}, ErrNotFound
	}
	return u, nil
}

// SetMemberRole changes a member's role; demoting the last admin is ErrLastAdmin.
func (s *Store) SetMemberRole(ctx context.Context, orgID, userID, role string) (User, error) {
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		if err := guardLastAdmin(ctx, tx, orgID, userID, role == actor.RoleAdmin); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE users SET role = ? WHERE id = ? AND org_id = ?`, role, userID, orgID)
		return expectOne(res, err, "set role")
	})
	if err != nil {
		return User{}, err
	}
	return s.Member(ctx, orgID, userID)
}

// DeleteMember removes a user from the organization; removing the last admin
// is ErrLastAdmin.
func (s *Store) DeleteMember(ctx context.Context, orgID, userID string) error {
	return s.writeAuth(ctx, func(tx *sql.Tx) error {
		if err := guardLastAdmin(ctx, tx, orgID, userID, false); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM users WHERE id = ? AND org_id = ?`, userID, orgID)
		return expectOne(res, err, "delete member")
	})
}

// guardLastAdmin refuses a change that takes admin away from the only admin.
// It runs inside the write transaction so two concurrent demotions cannot
// both pass the check.
func guardLastAdmin(ctx context.Context, tx *sql.Tx, orgID, userID string, staysAdmin bool) error {
	var role string
	err := tx.QueryRowContext(ctx, `SELECT role FROM users WHERE id = ? AND org_id = ?`, userID, orgID).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("member role: %w", err)
	}
	if role != actor.RoleAdmin || staysAdmin {
		return nil
	}
	// The others who stay admins and were not made through an API key's
	// invitation: a key's chain of actions must never leave it the only
	// admin.
	var others int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE org_id = ? AND role = 'admin' AND id <> ? AND origin <> ?`,
		orgID, userID, OriginKeyInvite).Scan(&others); err != nil {
		return fmt.Errorf("count admins: %w", err)
	}
	if others == 0 {
		return ErrLastAdmin
	}
	return nil
}

// VerifiedAdmins counts the organization's admins with a confirmed address.
func (s *Store) VerifiedAdmins(ctx context.Context, orgID string) (int, error) {
	var n int
	if err := s.reads().QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE org_id = ? AND role = 'admin'
		AND email_verified_at IS NOT NULL`, orgID).Scan(&n); err != nil {
		return 0, fmt.Errorf("verified admins: %w", err)
	}
	return n, nil
}

// AdminAddresses lists the confirmed e-mail addresses of the organization's
// admins: who gets the organization's mail.
func (s *Store) AdminAddresses(ctx context.Context, orgID string) ([]string, error) {
	return queryAll(ctx, s.reads(), "admin addresses",
		`SELECT email FROM users WHERE org_id = ? AND role = 'admin' AND email_verified_at IS NOT NULL ORDER BY email`, []any{orgID}, scanString)
}

// FirstOrgID is the organization the appliance made first (its operator's),
// leaving out organizations with a user whose address is LIKE one of
// except (the demo's).
func (s *Store) FirstOrgID(ctx context.Context, except []string) (string, error) {
	q, args := `SELECT id FROM orgs o`, []any{}
	if len(except) > 0 {
		var conds []string
		for _, e := range except {
			conds = append(conds, "u.email LIKE ?")
			args = append(args, e)
		}
		q += ` WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.org_id = o.id AND (` + strings.Join(conds, " OR ") + `))`
	}
	var id string
	err := s.reads().QueryRowContext(ctx, q+` ORDER BY created_at, rowid LIMIT 1`, args...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("first organization: %w", err)
	}
	return id, nil
}

// orgTables are the tables that hold an organization's rows without a
// foreign key to it (rollups and counters the fold keeps); every other
// table follows orgs through ON DELETE CASCADE.
var orgTables = []string{"event_rollup", "asset_rollup", "indicator_rollup", "threat_indicators", "threat_assets", "event_sources", "alert_counts",
	"dns_rollup", "dns_blocked_domains", "alert_windows", "event_counts"}

// DeleteOrg removes an organization and everything it owns in one
// transaction; its sessions and keys stop working at once.
func (s *Store) DeleteOrg(ctx context.Context, orgID string) (Org, error) {
	org, err := s.Org(ctx, orgID)
	if err != nil {
		return Org{}, err
	}
	err = s.writeAuth(ctx, func(tx *sql.Tx) error {
		for _, t := range orgTables {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE org_id = ?`, orgID); err != nil {
				return fmt.Errorf("delete %s: %w", t, err)
			}
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM orgs WHERE id = ?`, orgID)
		if err != nil {
			return fmt.Errorf("delete organization: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err == nil {
		s.forgetOrg(orgID)
	}
	return org, err
}

// forgetOrg drops what the store keeps in memory of a deleted organization.
func (s *Store) forgetOrg(orgID string) {
	s.forgetRecent(orgID)
	s.alerts.mu.Lock()
	delete(s.alerts.orgs, orgID)
	s.alerts.mu.Unlock()
}
