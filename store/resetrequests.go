package store

import (
	"context"
	"database/sql"
	"fmt"

	"garrison/valid"
)

// ResetRequest is a queued password-reset request.
type ResetRequest struct {
	ID    int64
	Email string
}

// QueueResetRequest records a reset request for an address, existing or not.
func (s *Store) QueueResetRequest(ctx context.Context, email string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO reset_requests (email, created_at) VALUES (?, ?)`,
			valid.NormalEmail(email), ms(s.now())); err != nil {
			return fmt.Errorf("queue reset request: %w", err)
		}
		return nil
	})
}

// ResetRequests returns up to limit queued requests, oldest first.
func (s *Store) ResetRequests(ctx context.Context, limit int) ([]ResetRequest, error) {
	rows, err := s.reads().QueryContext(ctx, `SELECT id, email FROM reset_requests ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("reset requests: %w", err)
	}
	defer rows.Close()
	var out []ResetRequest
	for rows.Next() {
		var r ResetRequest
		if err := rows.Scan(&r.ID, &r.Email); err != nil {
			return nil, fmt.Errorf("reset requests: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// CompleteResetRequest removes a request and, for an existing user, issues
// the reset token and queues its mail in the same transaction.
func (s *Store) CompleteResetRequest(ctx context.Context, id int64, userID string, t UserToken, m Mail) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM reset_requests WHERE id = ?`, id); err != nil {
			return fmt.Errorf("complete reset request: %w", err)
		}
		if userID == "" {
			return nil
		}
		return issueUserToken(ctx, tx, userID, t, m, s.now())
	})
}
