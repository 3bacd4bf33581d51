package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"garrison/valid"
)

// Outbox statuses.
const (
	MailPending = "pending"
	MailSent    = "sent"
	MailLogged  = "logged" // no SMTP server configured: written to the log instead
	MailFailed  = "failed"
)

func queueMail(ctx context.Context, tx *sql.Tx, m Mail, now time.Time) error {
	if m.To == "" { // nothing to say
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (to_addr, subject, body, created_at) VALUES (?, ?, ?, ?)`,
		valid.NormalEmail(m.To), m.Subject, m.Body, ms(now)); err != nil {
		return fmt.Errorf("queue mail: %w", err)
	}
	return nil
}

// PendingMail returns up to limit undelivered messages, oldest first.
func (s *Store) PendingMail(ctx context.Context, limit int) ([]Mail, error) {
	rows, err := s.reads().QueryContext(ctx, `SELECT id, to_addr, subject, body FROM outbox
		WHERE status = 'pending' ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("pending mail: %w", err)
	}
	defer rows.Close()
	var out []Mail
	for rows.Next() {
		var m Mail
		if err := rows.Scan(&m.ID, &m.To, &m.Subject, &m.Body); err != nil {
			return nil, fmt.Errorf("pending mail: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// MarkMail records a delivery attempt. A failed attempt stays pending until
// maxAttempts, then becomes failed. A delivered body is blanked: it holds
// live reset, verification and invite links that must not sit in backups.
func (s *Store) MarkMail(ctx context.Context, id int64, status string, deliveryErr error, maxAttempts int) error {
	var lastErr sql.NullString
	if deliveryErr != nil {
		lastErr = sql.NullString{String: deliveryErr.Error(), Valid: true}
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE outbox SET
			attempts = attempts + 1,
			last_error = ?,
			status = CASE WHEN ? = 'pending' AND attempts + 1 >= ? THEN 'failed' ELSE ? END,
			sent_at = CASE WHEN ? IN ('sent', 'logged') THEN ? ELSE sent_at END,
			body = CASE WHEN ? IN ('sent', 'logged') THEN '' ELSE body END
			WHERE id = ?`, lastErr, status, maxAttempts, status, status, ms(s.now()), status, id)
		if err != nil {
			return fmt.Errorf("mark mail: %w", err)
		}
		return nil
	})
}

// Outbox returns the newest messages to an address, for the CLI and tests.
func (s *Store) Outbox(ctx context.Context, to string, limit int) ([]Mail, error) {
	rows, err := s.reads().QueryContext(ctx, `SELECT id, to_addr, subject, body FROM outbox
		WHERE to_addr = ? ORDER BY id DESC LIMIT ?`, valid.NormalEmail(to), limit)
	if err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	defer rows.Close()
	var out []Mail
	for rows.Next() {
		var m Mail
		if err := rows.Scan(&m.ID, &m.To, &m.Subject, &m.Body); err != nil {
			return nil, fmt.Errorf("outbox: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
