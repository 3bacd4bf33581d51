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
	o, err := scanOrg(s.reads().QueryRowContext(ctx, `SELECT `+orgColumns+` FROM orgs o WHERE o.id = ?`, orgID))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Org{}, fmt.Errorf("organization: %w", err)
	}
	return o, err
}

// SetPlanByAdmin changes the plan of the home organization of the admin
// with the given e-mail address (a client's becomes its own, no longer its
// provider's). A member's address is ErrNotFound: only an admin
// identifies an organization for billing changes.
func (s *Store) SetPlanByAdmin(ctx context.Context, adminEmail, plan string) (Org, error) {
	var orgID string
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `UPDATE orgs SET plan = ?, plan_inherited = 0
			WHERE id = (SELECT u.org_id FROM users u JOIN memberships m ON m.user_id = u.id AND m.org_id = u.org_id
				WHERE u.email = ? AND m.role = 'admin') RETURNING id`,
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
	if err := s.reads().QueryRowContext(ctx, `SELECT COUNT(*) FROM memberships WHERE org_id = ?`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count members: %w", err)
	}
	rows, err := s.reads().QueryContext(ctx, `SELECT `+userColumns+userFrom+`
		WHERE m.org_id = ? ORDER BY u.id LIMIT ? OFFSET ?`, orgID, p.Limit, p.Offset)
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

// Member returns one member of the organization.
func (s *Store) Member(ctx context.Context, orgID, userID string) (User, error) {
	u, err := scanUser(s.reads().QueryRowContext(ctx, `SELECT `+userColumns+userFrom+` WHERE u.id = ? AND m.org_id = ?`, userID, orgID))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return User{}, fmt.Errorf("member: %w", err)
	}
	return s.pending.apply(u), err
}

// SetMemberRole changes a member's role; demoting the last admin is ErrLastAdmin.
func (s *Store) SetMemberRole(ctx context.Context, orgID, userID, role string) (User, error) {
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		if err := guardLastAdmin(ctx, tx, orgID, userID, role == actor.RoleAdmin); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE memberships SET role = ? WHERE user_id = ? AND org_id = ?`, role, userID, orgID)
		if err := expectOne(res, err, "set role"); err != nil || role != actor.RoleMember {
			return err
		}
		// A member reaches no client: a later promotion starts from all.
		if _, err := tx.ExecContext(ctx, `DELETE FROM member_clients WHERE provider_id = ? AND user_id = ?`, orgID, userID); err != nil {
			return fmt.Errorf("clear assignments: %w", err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE memberships SET all_clients = 1 WHERE user_id = ? AND org_id = ?`, userID, orgID)
		return err
	})
	if err != nil {
		return User{}, err
	}
	return s.Member(ctx, orgID, userID)
}

// DeleteMember removes a user from the organization; removing the last admin
// is ErrLastAdmin. An account that belongs nowhere else ends with it.
func (s *Store) DeleteMember(ctx context.Context, orgID, userID string) error {
	return s.writeAuth(ctx, func(tx *sql.Tx) error {
		if err := guardLastAdmin(ctx, tx, orgID, userID, false); err != nil {
			return err
		}
		if err := rehome(ctx, tx, orgID, userID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM memberships WHERE user_id = ? AND org_id = ?`, userID, orgID)
		if err := expectOne(res, err, "delete member"); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM users WHERE id = ? AND org_id = ?`, userID, orgID)
		return err
	})
}

// guardLastAdmin refuses a change that takes admin away from the only admin.
// It runs inside the write transaction so two concurrent demotions cannot
// both pass the check.
func guardLastAdmin(ctx context.Context, tx *sql.Tx, orgID, userID string, staysAdmin bool) error {
	var role string
	err := tx.QueryRowContext(ctx, `SELECT role FROM memberships WHERE user_id = ? AND org_id = ?`, userID, orgID).Scan(&role)
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
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM memberships WHERE org_id = ? AND role = 'admin' AND user_id <> ? AND origin <> ?`,
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
	if err := s.reads().QueryRowContext(ctx, `SELECT COUNT(*) FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE m.org_id = ? AND m.role = 'admin' AND u.email_verified_at IS NOT NULL`, orgID).Scan(&n); err != nil {
		return 0, fmt.Errorf("verified admins: %w", err)
	}
	return n, nil
}

// AdminAddresses lists the confirmed e-mail addresses of who is told of
// the organization's affairs, each once: its admins and, for a client, its
// provider's admins and technicians who reach it.
func (s *Store) AdminAddresses(ctx context.Context, orgID string) ([]string, error) {
	return queryAll(ctx, s.reads(), "admin addresses", adminAddressesSQL, []any{orgID}, scanString)
}

// adminAddressesSQL: see AdminAddresses; ?1 is the organization.
var adminAddressesSQL = `SELECT u.email FROM users u WHERE u.email_verified_at IS NOT NULL AND (
	EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id AND m.org_id = ?1 AND m.role = 'admin')
	OR EXISTS (` + staffOf("?1") + ` AND pm.user_id = u.id))
	ORDER BY u.email`

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
	"dns_rollup", "dns_blocked_domains", "event_counts"}

// DeleteOrg removes an organization and everything it owns in one
// transaction; its sessions and keys stop working at once.
func (s *Store) DeleteOrg(ctx context.Context, orgID string) (Org, error) {
	org, err := s.Org(ctx, orgID)
	if err != nil {
		return Org{}, err
	}
	err = s.writeAuth(ctx, func(tx *sql.Tx) error {
		var clients int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM orgs WHERE provider_id = ?`, orgID).Scan(&clients); err != nil {
			return fmt.Errorf("count clients: %w", err)
		}
		if clients > 0 {
			return ErrProviderHasClients
		}
		if err := rehome(ctx, tx, orgID, ""); err != nil {
			return err
		}
		if err := unindexOrgText(ctx, tx, orgID, s.pg); err != nil {
			return err
		}
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
	delete(s.alerts.logons, orgID)
	s.alerts.mu.Unlock()
}
