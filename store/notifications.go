package store

import (
	"context"
	"database/sql"
	"fmt"
)

func notify(ctx context.Context, tx *sql.Tx, orgID string, n Notification, now int64) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO notifications (id, org_id, audience, kind, title, body, ref, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, NewID("ntf", fromMS(now)), orgID, n.Audience, n.Kind, n.Title, n.Body, n.Ref, now); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	return nil
}

// Notifications lists, newest first, the organization's notifications
// addressed to any of the audiences.
func (s *Store) Notifications(ctx context.Context, orgID string, audiences []string, p Page) ([]Notification, int, error) {
	where, args := "org_id = ? AND audience IN ("+placeholders(len(audiences))+")", []any{orgID}
	for _, a := range audiences {
		args = append(args, a)
	}
	return readPage(ctx, s, pageQuery{what: "notifications", args: args,
		count: `SELECT COUNT(*) FROM notifications WHERE ` + where,
		list: `SELECT id, audience, kind, title, body, ref, created_at FROM notifications
			WHERE ` + where + ` ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`},
		p, func(rows *sql.Rows) (Notification, error) {
			var n Notification
			var at int64
			err := rows.Scan(&n.ID, &n.Audience, &n.Kind, &n.Title, &n.Body, &n.Ref, &at)
			n.CreatedAt = fromMS(at)
			return n, err
		})
}
