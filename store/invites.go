package store

import (
	"context"
	"database/sql"
	"fmt"

	"garrison/valid"
)

// CreateInvite stores an invite and queues its mail. An address whose
// account is a member already is ErrAlreadyMember; another account is
// invited to join with its own password (JoinOrg).
func (s *Store) CreateInvite(ctx context.Context, inv Invite, m Mail) (Invite, error) {
	now := s.now()
	inv.ID = NewID("inv", now)
	inv.Email = valid.NormalEmail(inv.Email)
	inv.CreatedAt = fromMS(ms(now))
	err := s.write(ctx, func(tx *sql.Tx) error {
		member, err := isMember(ctx, tx, inv.Email, inv.OrgID)
		if err != nil {
			return fmt.Errorf("check invitee: %w", err)
		}
		if member {
			return ErrAlreadyMember
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO invites (id, org_id, email, role, token_hash, invited_by, invited_by_key, expires_at, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, inv.ID, inv.OrgID, inv.Email, inv.Role, inv.TokenHash,
			nullString(inv.InvitedBy), nullString(inv.ByKey), ms(inv.ExpiresAt), ms(now)); err != nil {
			return fmt.Errorf("create invite: %w", err)
		}
		return queueMail(ctx, tx, m, now)
	})
	if err != nil {
		return Invite{}, err
	}
	return inv, nil
}

// Invites lists an organization's invites, newest first.
func (s *Store) Invites(ctx context.Context, orgID string, p Page) ([]Invite, int, error) {
	var total int
	if err := s.reads().QueryRowContext(ctx, `SELECT COUNT(*) FROM invites WHERE org_id = ?`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count invites: %w", err)
	}
	rows, err := s.reads().QueryContext(ctx, `SELECT id, org_id, email, role, COALESCE(invited_by, ''), expires_at, accepted_at, created_at
		FROM invites WHERE org_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`, orgID, p.Limit, p.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list invites: %w", err)
	}
	defer rows.Close()
	var out []Invite
	for rows.Next() {
		var inv Invite
		var expires, created int64
		var accepted sql.NullInt64
		if err := rows.Scan(&inv.ID, &inv.OrgID, &inv.Email, &inv.Role, &inv.InvitedBy, &expires, &accepted, &created); err != nil {
			return nil, 0, fmt.Errorf("list invites: %w", err)
		}
		inv.ExpiresAt, inv.AcceptedAt, inv.CreatedAt = fromMS(expires), optMS(accepted), fromMS(created)
		out = append(out, inv)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list invites: %w", err)
	}
	return out, total, nil
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
