package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"garrison/actor"
)

// AudienceOrg addresses a notification to everyone in the organization.
const AudienceOrg = "org"

// notify writes a notification. One for a client's admins or for its
// whole organization also reaches its provider's admins and technicians
// who reach the client, each in their own inbox in the provider, naming
// the client: the MSP's SOC hears of its clients without switching into
// each.
func notify(ctx context.Context, tx *sql.Tx, orgID string, n Notification, now int64) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO notifications (id, org_id, audience, kind, title, body, ref, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, NewID("ntf", fromMS(now)), orgID, n.Audience, n.Kind, n.Title, n.Body, n.Ref, now); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	if n.Audience != AudienceAdmins && n.Audience != AudienceOrg {
		return nil
	}
	type staff struct{ provider, user, client string }
	reach, err := queryAll(ctx, tx, "provider staff", `SELECT c.provider_id, pm.user_id, c.name`+strings.TrimPrefix(staffOf("?1"), "SELECT 1"), []any{orgID},
		func(rows *sql.Rows) (staff, error) {
			var s staff
			return s, rows.Scan(&s.provider, &s.user, &s.client)
		})
	if err != nil {
		return err
	}
	for _, s := range reach {
		if _, err := tx.ExecContext(ctx, `INSERT INTO notifications (id, org_id, audience, kind, title, body, ref, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, NewID("ntf", fromMS(now)), s.provider, s.user, n.Kind, s.client+": "+n.Title, n.Body,
			n.Ref, now); err != nil {
			return fmt.Errorf("notify the provider's staff: %w", err)
		}
	}
	return nil
}

// NotificationQuery selects the notifications Reader may read: the
// organization's, a person's own, and the admins' when the reader sees the
// whole organization (admins and keys). Read marks are the reader's own.
type NotificationQuery struct {
	Reader actor.Actor
	Unread bool // only those the reader has not read
}

func (q NotificationQuery) where() (string, []any) {
	audiences := []any{AudienceOrg}
	if q.Reader.Kind == actor.Person {
		audiences = append(audiences, q.Reader.ID)
	}
	if q.Reader.SeesOrganization() {
		audiences = append(audiences, AudienceAdmins)
	}
	where := "n.org_id = ? AND n.audience IN (" + placeholders(len(audiences)) + ")"
	args := append([]any{q.Reader.OrgID}, audiences...)
	if q.Unread {
		where += " AND NOT EXISTS (SELECT 1 FROM notification_reads r WHERE r.notification_id = n.id AND r.reader = ?)"
		args = append(args, q.Reader.ID)
	}
	return where, args
}

// Notifications lists, newest first, the notifications the query selects,
// each with whether the reader has read it.
func (s *Store) Notifications(ctx context.Context, q NotificationQuery, p Page) ([]Notification, int, error) {
	where, args := q.where()
	return readPage(ctx, s, pageQuery{what: "notifications", args: append([]any{q.Reader.ID}, args...),
		// Both statements take the reader first: the list reads its marks,
		// the count only skips it.
		count: `SELECT COUNT(*) FROM notifications n WHERE CAST(? AS TEXT) IS NOT NULL AND ` + where,
		list: `SELECT n.id, n.audience, n.kind, n.title, n.body, n.ref, n.created_at,
			EXISTS (SELECT 1 FROM notification_reads r WHERE r.notification_id = n.id AND r.reader = ?)
			FROM notifications n WHERE ` + where + ` ORDER BY n.created_at DESC, n.rowid DESC LIMIT ? OFFSET ?`},
		p, func(rows *sql.Rows) (Notification, error) {
			var n Notification
			var at int64
			err := rows.Scan(&n.ID, &n.Audience, &n.Kind, &n.Title, &n.Body, &n.Ref, &at, &n.Read)
			n.CreatedAt = fromMS(at)
			return n, err
		})
}

// MarkNotificationRead records that the reader read a notification it may
// see; ErrNotFound otherwise. Marking twice keeps the first time.
func (s *Store) MarkNotificationRead(ctx context.Context, q NotificationQuery, id string) (Notification, error) {
	var n Notification
	err := s.write(ctx, func(tx *sql.Tx) error {
		where, args := q.where()
		var at int64
		err := tx.QueryRowContext(ctx, `SELECT n.id, n.audience, n.kind, n.title, n.body, n.ref, n.created_at FROM notifications n
			WHERE n.id = ? AND `+where, append([]any{id}, args...)...).Scan(&n.ID, &n.Audience, &n.Kind, &n.Title, &n.Body, &n.Ref, &at)
		if err == sql.ErrNoRows {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("notification: %w", err)
		}
		n.CreatedAt, n.Read = fromMS(at), true
		if _, err := tx.ExecContext(ctx, `INSERT INTO notification_reads (notification_id, reader, read_at) VALUES (?, ?, ?)
			ON CONFLICT DO NOTHING`, id, q.Reader.ID, ms(s.now())); err != nil {
			return fmt.Errorf("mark read: %w", err)
		}
		return nil
	})
	return n, err
}

// DeliverNotices records an import's notices for an organization with the
// mails to its admins, once: a second delivery of the same import (a run
// repeated after a crash) changes nothing and says so.
func (s *Store) DeliverNotices(ctx context.Context, orgID, importID string, notices []Notification, mails []Mail) (bool, error) {
	delivered := false
	now := s.now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		delivered = false // a write run again (PostgreSQL) starts over
		res, err := tx.ExecContext(ctx, `INSERT INTO intel_notified (org_id, import_id, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			orgID, importID, ms(now))
		if err != nil {
			return fmt.Errorf("record delivery: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		for _, n := range notices {
			if err := notify(ctx, tx, orgID, n, ms(now)); err != nil {
				return err
			}
		}
		for _, m := range mails {
			if err := queueMail(ctx, tx, m, now); err != nil {
				return err
			}
		}
		delivered = true
		return nil
	})
	return delivered, err
}
