package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"garrison/alerting"
)

// RaiseAlert opens an alert Garrison raises itself (a silent sensor, an
// expired key, a failing contact point) unless one with its fingerprint
// is open; it reports whether it opened one. The alert is routed like any
// other. It returns the open alert's id.
func (s *Store) RaiseAlert(ctx context.Context, orgID string, spec alerting.Spec, at time.Time) (string, bool, error) {
	s.alerts.mu.Lock()
	defer s.alerts.mu.Unlock()
	opened := false
	var id string
	now := ms(s.now())
	err := s.write(ctx, func(tx *sql.Tx) error {
		opened = false // a write run again (PostgreSQL) starts over
		err := tx.QueryRowContext(ctx, `SELECT id FROM alerts WHERE org_id = ? AND fingerprint = ? AND status = 'open'`, orgID, spec.Fingerprint).Scan(&id)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("find the open alert: %w", err)
		}
		id = NewID("alr", s.now())
		if _, err := tx.ExecContext(ctx, `INSERT INTO alerts (id, org_id, fingerprint, severity, category, title, asset, indicator,
			recommended_action, status, event_count, first_seen, last_seen, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', 0, ?, ?, ?, ?)`, id, orgID, spec.Fingerprint, spec.Severity, spec.Category, spec.Title,
			spec.Asset, spec.Indicator, spec.RecommendedAction, ms(at), ms(at), now, now); err != nil {
			return fmt.Errorf("raise alert: %w", err)
		}
		if err := s.changedAlerts(ctx, tx, orgID); err != nil {
			return err
		}
		opened = true
		return signalAlert(ctx, tx, orgID, id, SignalOpened, now)
	})
	if opened {
		s.alertSignalled()
	}
	return id, opened, err
}

// LinkAlertTicket links an alert and a ticket of the organization both
// ways, unless either is linked already.
func (s *Store) LinkAlertTicket(ctx context.Context, orgID, alertID, ticketID string) error {
	now := ms(s.now())
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE alerts SET ticket_id = ?, updated_at = ? WHERE id = ? AND org_id = ? AND ticket_id IS NULL`,
			ticketID, now, alertID, orgID); err != nil {
			return fmt.Errorf("link the alert's ticket: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tickets SET alert_id = ? WHERE id = ? AND org_id = ? AND alert_id IS NULL
			AND NOT EXISTS (SELECT 1 FROM tickets WHERE alert_id = ?)`, alertID, ticketID, orgID, alertID); err != nil {
			return fmt.Errorf("link the ticket's alert: %w", err)
		}
		return nil
	})
}

// SettleAlert resolves Garrison's own open alert with the fingerprint
// once its cause went away (the sensor speaks again), with a note saying
// so; it reports whether one was open.
func (s *Store) SettleAlert(ctx context.Context, orgID, fingerprint, note string) (bool, error) {
	s.alerts.mu.Lock()
	defer s.alerts.mu.Unlock()
	settled := false
	now := ms(s.now())
	err := s.write(ctx, func(tx *sql.Tx) error {
		settled = false // a write run again (PostgreSQL) starts over
		var id string
		err := tx.QueryRowContext(ctx, `UPDATE alerts SET status = 'resolved', note = ?, resolved_at = ?, resolved_by = 'garrison',
			disposition = 'benign', updated_at = ? WHERE org_id = ? AND fingerprint = ? AND status = 'open' RETURNING id`,
			note, now, now, orgID, fingerprint).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("settle alert: %w", err)
		}
		settled = true
		s.alerts.forget(orgID, fingerprint)
		if err := s.changedAlerts(ctx, tx, orgID); err != nil {
			return err
		}
		if err := signalAlert(ctx, tx, orgID, id, SignalResolved, now); err != nil {
			return err
		}
		return addAlertChange(ctx, tx, id, alerting.Change{Action: alerting.ActionStatus, Status: alerting.Resolved, Note: note,
			Actor: "garrison"}, alerting.Benign, nil, now)
	})
	if settled {
		s.alertSignalled()
	}
	return settled, err
}

// OpenSystemAlert is an open alert Garrison raised, by category.
type OpenSystemAlert struct {
	OrgID, Fingerprint, Asset string
}

// openSystemAlertsQuery reads the open alerts of one of the categories
// Garrison raises about itself through the partial index of those
// (migration 30), whose condition it repeats word for word: SQLite uses a
// partial index only for a query that states its condition. Without it,
// the watchdog's and the dispatcher's checks read every alert (770,000 at
// ten million events) each time.
const openSystemAlertsQuery = `SELECT org_id, fingerprint, asset FROM alerts INDEXED BY alerts_open_system
	WHERE status = 'open' AND category IN ('sensor_silent', 'credential_expired', 'notification_failing')
	AND category = ? LIMIT 10000`

// OpenSystemAlerts lists the open alerts of a category Garrison raises
// about itself, every organization's.
func (s *Store) OpenSystemAlerts(ctx context.Context, category string) ([]OpenSystemAlert, error) {
	return queryAll(ctx, s.reads(), "open system alerts", openSystemAlertsQuery, []any{category}, func(rows *sql.Rows) (OpenSystemAlert, error) {
		var a OpenSystemAlert
		return a, rows.Scan(&a.OrgID, &a.Fingerprint, &a.Asset)
	})
}

// SourceActivity is how an organization's event source has reported.
type SourceActivity struct {
	OrgID, Source       string
	N                   int64
	FirstSeen, LastSeen time.Time
}

// ActiveSources lists the event sources, every organization's, that
// reported since the given time.
func (s *Store) ActiveSources(ctx context.Context, since time.Time) ([]SourceActivity, error) {
	return queryAll(ctx, s.reads(), "active sources", `SELECT org_id, source, n, first_seen, last_seen FROM event_sources
		WHERE last_seen >= ? ORDER BY org_id, source LIMIT 100000`, []any{ms(since)}, func(rows *sql.Rows) (SourceActivity, error) {
		var a SourceActivity
		var first, last int64
		err := rows.Scan(&a.OrgID, &a.Source, &a.N, &first, &last)
		a.FirstSeen, a.LastSeen = fromMS(first), fromMS(last)
		return a, err
	})
}

// ExpiringKey is an API key with an expiry that is not revoked.
type ExpiringKey struct {
	ID, OrgID, Name string
	ExpiresAt       time.Time
	LastUsedAt      *time.Time
	Notices         map[int]bool // notices already given (days before; 0: the expired key's alert)
}

// KeysExpiringBy lists the unrevoked keys, every organization's, that
// expire by the given time, with the notices they were given.
func (s *Store) KeysExpiringBy(ctx context.Context, until time.Time) ([]ExpiringKey, error) {
	keys, err := queryAll(ctx, s.reads(), "expiring keys", `SELECT k.id, k.org_id, k.name, k.expires_at, k.last_used_at,
		COALESCE((SELECT group_concat(n.notice) FROM key_notices n WHERE n.key_id = k.id), '')
		FROM api_keys k WHERE k.revoked_at IS NULL AND k.expires_at IS NOT NULL AND k.expires_at <= ? ORDER BY k.expires_at LIMIT 10000`,
		[]any{ms(until)}, func(rows *sql.Rows) (ExpiringKey, error) {
			var k ExpiringKey
			var exp int64
			var used sql.NullInt64
			var notices string
			err := rows.Scan(&k.ID, &k.OrgID, &k.Name, &exp, &used, &notices)
			k.ExpiresAt, k.LastUsedAt = fromMS(exp), timeOf(used)
			k.Notices = map[int]bool{}
			var n int
			for _, part := range splitComma(notices) {
				if _, err := fmt.Sscan(part, &n); err == nil {
					k.Notices[n] = true
				}
			}
			return k, err
		})
	return keys, err
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// RecordKeyNotice gives a key's notice once: the mails to its
// organization's admins, committed with the record that it was given; a
// second call for the same notice changes nothing and says so.
func (s *Store) RecordKeyNotice(ctx context.Context, keyID string, notice int, mails []Mail) (bool, error) {
	given := false
	now := s.now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		given = false // a write run again (PostgreSQL) starts over
		res, err := tx.ExecContext(ctx, `INSERT INTO key_notices (key_id, notice, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, keyID, notice, ms(now))
		if err != nil {
			return fmt.Errorf("record key notice: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		given = true
		for _, m := range mails {
			if err := queueMail(ctx, tx, m, now); err != nil {
				return err
			}
		}
		return nil
	})
	return given, err
}
