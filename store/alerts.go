package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"garrison/alerting"
)

const alertColumns = `id, severity, category, title, asset, indicator, recommended_action, status, event_count,
	first_seen, last_seen, note, resolved_at, COALESCE(resolved_by, ''), created_at, updated_at`

func scanAlert(row interface{ Scan(...any) error }) (alerting.Alert, error) {
	var a alerting.Alert
	var first, last, created, updated int64
	var resolved sql.NullInt64
	err := row.Scan(&a.ID, &a.Severity, &a.Category, &a.Title, &a.Asset, &a.Indicator, &a.RecommendedAction, &a.Status,
		&a.EventCount, &first, &last, &a.Note, &resolved, &a.ResolvedBy, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return alerting.Alert{}, ErrNotFound
	}
	if err != nil {
		return alerting.Alert{}, err
	}
	a.FirstSeen, a.LastSeen, a.CreatedAt, a.UpdatedAt = fromMS(first), fromMS(last), fromMS(created), fromMS(updated)
	a.ResolvedAt = optMS(resolved)
	return a, nil
}

// Alerts lists an organization's alerts, most recently active first, ties
// in the order they were raised (rowid, which the indexes end with).
func (s *Store) Alerts(ctx context.Context, orgID string, f alerting.Filter) ([]alerting.Alert, int, error) {
	where, args := "org_id = ?", []any{orgID}
	if f.Status != "" {
		where += " AND status = ?"
		args = append(args, f.Status)
	}
	if len(f.Severities) > 0 {
		where += " AND severity IN (" + placeholders(len(f.Severities)) + ")"
		for _, sev := range f.Severities {
			args = append(args, sev)
		}
	}
	// The filters are status and severity, exactly the counter's key.
	return readPage(ctx, s, pageQuery{what: "alerts", args: args,
		count: `SELECT COALESCE(SUM(n), 0) FROM alert_counts WHERE ` + where,
		list:  `SELECT ` + alertColumns + ` FROM alerts WHERE ` + where + ` ORDER BY last_seen DESC, rowid DESC LIMIT ? OFFSET ?`},
		Page{Limit: f.Limit, Offset: f.Offset}, func(rows *sql.Rows) (alerting.Alert, error) { return scanAlert(rows) })
}

// Alert returns one alert of the organization.
func (s *Store) Alert(ctx context.Context, orgID, id string) (alerting.Alert, error) {
	return readAlert(ctx, s.reader, orgID, id)
}

func readAlert(ctx context.Context, q querier, orgID, id string) (alerting.Alert, error) {
	a, err := scanAlert(q.QueryRowContext(ctx, `SELECT `+alertColumns+` FROM alerts WHERE id = ? AND org_id = ?`, id, orgID))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return alerting.Alert{}, fmt.Errorf("alert: %w", err)
	}
	return a, err
}

// AlertDetail reads an alert, up to eventsShown of its newest events and its
// status changes, in one snapshot.
func (s *Store) AlertDetail(ctx context.Context, orgID, id string, eventsShown int) (alerting.Detail, error) {
	var d alerting.Detail
	err := s.read(ctx, func(tx querier) error {
		var err error
		if d.Alert, err = readAlert(ctx, tx, orgID, id); err != nil {
			return err
		}
		if d.Events, err = alertEvents(ctx, tx, orgID, id, eventsShown); err != nil {
			return err
		}
		d.History, err = alertHistory(ctx, tx, orgID, id)
		return err
	})
	return d, err
}

// alertHistory returns an alert's status changes, oldest first.
func alertHistory(ctx context.Context, q querier, orgID, id string) ([]alerting.Change, error) {
	rows, err := q.QueryContext(ctx, `SELECT h.status, h.note, h.actor, h.at FROM alert_history h
		JOIN alerts a ON a.id = h.alert_id WHERE h.alert_id = ? AND a.org_id = ? ORDER BY h.id`, id, orgID)
	if err != nil {
		return nil, fmt.Errorf("alert history: %w", err)
	}
	defer rows.Close()
	var out []alerting.Change
	for rows.Next() {
		var c alerting.Change
		var at int64
		if err := rows.Scan(&c.Status, &c.Note, &c.Actor, &at); err != nil {
			return nil, fmt.Errorf("alert history: %w", err)
		}
		c.At = fromMS(at)
		out = append(out, c)
	}
	return out, rows.Err()
}

// SetAlertStatus resolves or reopens an alert, recording who, when and why.
// Reopening while another alert with the same fingerprint is open is
// ErrAlertDuplicate: new events already go to that one.
func (s *Store) SetAlertStatus(ctx context.Context, orgID, id, status, note, actor string) (alerting.Alert, error) {
	if err := s.setAlertStatus(ctx, orgID, id, status, note, actor); err != nil {
		return alerting.Alert{}, err
	}
	return s.Alert(ctx, orgID, id)
}

func (s *Store) setAlertStatus(ctx context.Context, orgID, id, status, note, actor string) error {
	now := ms(s.now())
	// Ingest decides alerts from what it remembers of open ones: no ingest
	// may run between this change and forgetting the fingerprint.
	s.alerts.mu.Lock()
	defer s.alerts.mu.Unlock()
	return s.write(ctx, func(tx *sql.Tx) error {
		var resolvedAt, resolvedBy any
		if status == alerting.Resolved {
			resolvedAt, resolvedBy = now, actor
		}
		var fingerprint string
		err := tx.QueryRowContext(ctx, `UPDATE alerts SET status = ?, note = ?, resolved_at = ?, resolved_by = ?, updated_at = ?
			WHERE id = ? AND org_id = ? RETURNING fingerprint`, status, note, resolvedAt, resolvedBy, now, id, orgID).Scan(&fingerprint)
		switch {
		case isUniqueViolation(err):
			return ErrAlertDuplicate
		case errors.Is(err, sql.ErrNoRows):
			return ErrNotFound
		case err != nil:
			return fmt.Errorf("set alert status: %w", err)
		}
		s.alerts.forget(orgID, fingerprint)
		if _, err := tx.ExecContext(ctx, `INSERT INTO alert_history (alert_id, status, note, actor, at) VALUES (?, ?, ?, ?, ?)`,
			id, status, note, actor, now); err != nil {
			return fmt.Errorf("alert history: %w", err)
		}
		return nil
	})
}

// BackdateAlerts dates an organization's alerts by their events, as if
// they had been raised when the first event came and resolved a few hours
// after the last: for the demo, whose weeks of events are ingested at once
// (otherwise every alert says it was raised today).
func (s *Store) BackdateAlerts(ctx context.Context, orgID string, resolveAfter time.Duration) error {
	now := ms(s.now())
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE alerts SET created_at = MIN(created_at, first_seen),
			resolved_at = CASE WHEN status = 'resolved' THEN MIN(last_seen + ?2, ?3) ELSE resolved_at END,
			updated_at = CASE WHEN status = 'resolved' THEN MIN(last_seen + ?2, ?3) ELSE MIN(updated_at, MAX(first_seen, last_seen)) END
			WHERE org_id = ?1`, orgID, resolveAfter.Milliseconds(), now); err != nil {
			return fmt.Errorf("backdate alerts: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE alert_history SET at = (SELECT CASE WHEN alert_history.status = 'resolved'
			THEN COALESCE(a.resolved_at, a.created_at) ELSE a.created_at END FROM alerts a WHERE a.id = alert_id)
			WHERE alert_id IN (SELECT id FROM alerts WHERE org_id = ?)`, orgID); err != nil {
			return fmt.Errorf("backdate alert history: %w", err)
		}
		return nil
	})
}
