package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"garrison/alerting"
	"garrison/event"
)

const alertColumns = `id, severity, category, title, asset, indicator, recommended_action, status, event_count,
	first_seen, last_seen, note, resolved_at, COALESCE(resolved_by, ''), COALESCE(disposition, ''), COALESCE(assignee, ''),
	acknowledged_at, COALESCE(acknowledged_by, ''), created_at, updated_at, COALESCE(ticket_id, ''), COALESCE(rule, ''),
	COALESCE(incident_id, '')`

func scanAlert(row interface{ Scan(...any) error }) (alerting.Alert, error) {
	var a alerting.Alert
	var first, last, created, updated int64
	var resolved, acknowledged sql.NullInt64
	var rule string
	err := row.Scan(&a.ID, &a.Severity, &a.Category, &a.Title, &a.Asset, &a.Indicator, &a.RecommendedAction, &a.Status,
		&a.EventCount, &first, &last, &a.Note, &resolved, &a.ResolvedBy, &a.Disposition, &a.Assignee,
		&acknowledged, &a.AcknowledgedBy, &created, &updated, &a.TicketID, &rule, &a.IncidentID)
	if errors.Is(err, sql.ErrNoRows) {
		return alerting.Alert{}, ErrNotFound
	}
	if err != nil {
		return alerting.Alert{}, err
	}
	if rule != "" {
		a.Rule = new(alerting.Rule)
		if err := json.Unmarshal([]byte(rule), a.Rule); err != nil {
			return alerting.Alert{}, fmt.Errorf("alert %s's rule: %w", a.ID, err)
		}
	}
	a.FirstSeen, a.LastSeen, a.CreatedAt, a.UpdatedAt = fromMS(first), fromMS(last), fromMS(created), fromMS(updated)
	a.ResolvedAt, a.AcknowledgedAt = optMS(resolved), optMS(acknowledged)
	return a, nil
}

// Alerts lists an organization's alerts, most recently active first, ties
// in the order they were raised (rowid, which the indexes end with).
func (s *Store) Alerts(ctx context.Context, orgID string, f alerting.Filter) ([]alerting.Alert, int, error) {
	where, args := alertFilter("org_id = ?", []any{orgID}, f)
	// Status and severity are exactly the counter's key; a search counts
	// the alerts themselves.
	count := `SELECT COALESCE(SUM(n), 0) FROM alert_counts WHERE ` + where
	if f.Search.Any() {
		where, args = alertSearch(where, args, f.Search)
		count = `SELECT COUNT(*) FROM alerts WHERE ` + where
	}
	return readPage(ctx, s, pageQuery{what: "alerts", args: args, count: count,
		list: `SELECT ` + alertColumns + ` FROM alerts WHERE ` + where + ` ORDER BY last_seen DESC, rowid DESC LIMIT ? OFFSET ?`},
		Page{Limit: f.Limit, Offset: f.Offset}, func(rows *sql.Rows) (alerting.Alert, error) { return scanAlert(rows) })
}

// alertFilter adds a list's status and severity filters to the
// organizations' condition where (with its args).
func alertFilter(where string, args []any, f alerting.Filter) (string, []any) {
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
	return where, args
}

// alertSearch adds a search: the alert's own asset and text (title,
// indicator), and the other fields through the events that joined it
// (events_alert).
func alertSearch(where string, args []any, q event.Search) (string, []any) {
	if q.Asset != "" {
		where, args = where+" AND asset = ?", append(args, q.Asset)
	}
	if q.Text != "" {
		pattern := likePattern(q.Text)
		// lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
		where += ` AND (lower(title) LIKE lower(?) ESCAPE '\' OR lower(indicator) LIKE lower(?) ESCAPE '\')`
		args = append(args, pattern, pattern)
	}
	q.Asset, q.Text = "", ""
	if q.Any() {
		clause, a := searchClause(q, "", "e.", []string{"e.alert_id = alerts.id", "e.org = (SELECT num FROM org_numbers WHERE org_id = alerts.org_id)"}, nil)
		where += " AND EXISTS (SELECT 1 FROM events e WHERE " + strings.Join(clause, " AND ") + ")"
		args = append(args, a...)
	}
	return where, args
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
		if d.Events, err = s.alertEvents(ctx, tx, orgID, id, eventsShown); err != nil {
			return err
		}
		d.History, err = alertHistory(ctx, tx, orgID, id)
		return err
	})
	return d, err
}

// alertHistory returns an alert's changes, oldest first.
func alertHistory(ctx context.Context, q querier, orgID, id string) ([]alerting.Change, error) {
	rows, err := q.QueryContext(ctx, `SELECT h.action, h.status, COALESCE(h.disposition, ''), COALESCE(h.assignee, ''), h.note, h.actor, h.at
		FROM alert_history h JOIN alerts a ON a.id = h.alert_id WHERE h.alert_id = ? AND a.org_id = ? ORDER BY h.id`, id, orgID)
	if err != nil {
		return nil, fmt.Errorf("alert history: %w", err)
	}
	defer rows.Close()
	var out []alerting.Change
	for rows.Next() {
		var c alerting.Change
		var at int64
		if err := rows.Scan(&c.Action, &c.Status, &c.Disposition, &c.Assignee, &c.Note, &c.Actor, &at); err != nil {
			return nil, fmt.Errorf("alert history: %w", err)
		}
		c.At = fromMS(at)
		out = append(out, c)
	}
	return out, rows.Err()
}

// UpdateAlerts applies one change to each of the organization's alerts
// ids, in one transaction (all or none), recording each in its history:
// the status (resolving with who, when and the disposition; reopening
// clears them) and the assignee, who must be a user of the organization
// (ErrNoSuchAssignee). An id the organization lacks is ErrNotFound;
// reopening while another alert with the same fingerprint is open is
// ErrAlertDuplicate (new events already go to that one).
func (s *Store) UpdateAlerts(ctx context.Context, orgID string, ids []string, w alerting.Write) ([]alerting.Alert, error) {
	now := ms(s.now())
	// Ingest decides alerts from what it remembers of open ones: no ingest
	// may run between this change and forgetting the fingerprints.
	s.alerts.mu.Lock()
	defer s.alerts.mu.Unlock()
	err := s.write(ctx, func(tx *sql.Tx) error {
		if w.Assignee != nil && *w.Assignee != "" {
			if err := checkAssignee(ctx, tx, orgID, *w.Assignee); err != nil {
				return err
			}
		}
		if w.Status != nil {
			if err := s.changedAlerts(ctx, tx, orgID); err != nil {
				return err
			}
		}
		for _, id := range ids {
			if w.Status != nil {
				if err := s.setAlertStatus(ctx, tx, orgID, id, w, now); err != nil {
					return err
				}
			}
			if w.Assignee != nil {
				if err := setAlertAssignee(ctx, tx, orgID, id, w, now); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if w.Status != nil {
		s.alertSignalled()
	}
	out := make([]alerting.Alert, 0, len(ids))
	for _, id := range ids {
		a, err := s.Alert(ctx, orgID, id)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func (s *Store) setAlertStatus(ctx context.Context, tx *sql.Tx, orgID, id string, w alerting.Write, now int64) error {
	var resolvedAt, resolvedBy, disposition any
	if *w.Status == alerting.Resolved {
		resolvedAt, resolvedBy = now, w.Actor
		if w.Disposition != "" {
			disposition = w.Disposition
		}
	}
	var fingerprint string
	err := tx.QueryRowContext(ctx, `UPDATE alerts SET status = ?, note = ?, resolved_at = ?, resolved_by = ?, disposition = ?, updated_at = ?
		WHERE id = ? AND org_id = ? RETURNING fingerprint`, *w.Status, w.Note, resolvedAt, resolvedBy, disposition, now, id, orgID).Scan(&fingerprint)
	switch {
	case isUniqueViolation(err):
		return ErrAlertDuplicate
	case errors.Is(err, sql.ErrNoRows):
		return ErrNotFound
	case err != nil:
		return fmt.Errorf("set alert status: %w", err)
	}
	s.alerts.forget(orgID, fingerprint)
	signal := SignalResolved
	if *w.Status == alerting.Open {
		signal = SignalOpened
	}
	if err := signalAlert(ctx, tx, orgID, id, signal, now); err != nil {
		return err
	}
	return addAlertChange(ctx, tx, id, alerting.Change{Action: alerting.ActionStatus, Status: *w.Status, Note: w.Note, Actor: w.Actor}, disposition, nil, now)
}

func setAlertAssignee(ctx context.Context, tx *sql.Tx, orgID, id string, w alerting.Write, now int64) error {
	var status string
	err := tx.QueryRowContext(ctx, `UPDATE alerts SET assignee = NULLIF(?, ''), updated_at = ? WHERE id = ? AND org_id = ? RETURNING status`,
		*w.Assignee, now, id, orgID).Scan(&status)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ErrNotFound
	case err != nil:
		return fmt.Errorf("assign alert: %w", err)
	}
	var assignee any
	if *w.Assignee != "" {
		assignee = *w.Assignee
	}
	return addAlertChange(ctx, tx, id, alerting.Change{Action: alerting.ActionAssign, Status: status, Note: w.Note, Actor: w.Actor}, nil, assignee, now)
}

func checkAssignee(ctx context.Context, tx *sql.Tx, orgID, userID string) error {
	ok, err := canAct(ctx, tx, userID, orgID)
	if err != nil {
		return fmt.Errorf("check assignee: %w", err)
	}
	if !ok {
		return ErrNoSuchAssignee
	}
	return nil
}

func addAlertChange(ctx context.Context, tx *sql.Tx, id string, c alerting.Change, disposition, assignee any, now int64) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO alert_history (alert_id, action, status, disposition, assignee, note, actor, at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, c.Action, c.Status, disposition, assignee, c.Note, c.Actor, now); err != nil {
		return fmt.Errorf("alert history: %w", err)
	}
	return nil
}

// AcknowledgeAlert records that actor saw the alert and will act on it;
// acknowledging it again keeps the first acknowledgement.
func (s *Store) AcknowledgeAlert(ctx context.Context, orgID, id, actor string) (alerting.Alert, error) {
	now := ms(s.now())
	err := s.write(ctx, func(tx *sql.Tx) error {
		var status string
		var already sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT status, acknowledged_at FROM alerts WHERE id = ? AND org_id = ?`, id, orgID).Scan(&status, &already)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return ErrNotFound
		case err != nil:
			return fmt.Errorf("acknowledge alert: %w", err)
		case already.Valid:
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE alerts SET acknowledged_at = ?, acknowledged_by = ?, updated_at = ? WHERE id = ?`,
			now, actor, now, id); err != nil {
			return fmt.Errorf("acknowledge alert: %w", err)
		}
		if err := signalAlert(ctx, tx, orgID, id, SignalAcknowledged, now); err != nil {
			return err
		}
		return addAlertChange(ctx, tx, id, alerting.Change{Action: alerting.ActionAcknowledge, Status: status, Actor: actor}, nil, nil, now)
	})
	if err != nil {
		return alerting.Alert{}, err
	}
	s.alertSignalled()
	return s.Alert(ctx, orgID, id)
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
