package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"garrison/alerting"
	"garrison/event"
)

// maxEvidenceRows bounds the rows a compliance check reads as evidence:
// the count is exact, the ids listed are the first ones.
const maxEvidenceRows = 50

// ActiveAPIKeys lists the organization's keys that are neither revoked nor
// expired at now, oldest first (at most 10,000).
func (s *Store) ActiveAPIKeys(ctx context.Context, orgID string, now time.Time) ([]APIKey, error) {
	rows, err := s.reads().QueryContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys k JOIN orgs o ON o.id = k.org_id
		WHERE k.org_id = ? AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ?) ORDER BY k.id LIMIT 10000`,
		orgID, ms(now))
	if err != nil {
		return nil, fmt.Errorf("active api keys: %w", err)
	}
	defer rows.Close()
	var out []APIKey
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, fmt.Errorf("active api keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Overdue is how many records are past their deadline, and the oldest of
// them.
type Overdue struct {
	Count  int
	Oldest []OverdueItem // the oldest first, at most maxEvidenceRows
}

// OverdueItem is one record past its deadline.
type OverdueItem struct {
	ID        string
	Severity  event.Severity // alerts
	Priority  string         // tickets
	Status    string
	Title     string
	CreatedAt time.Time
}

// OverdueAlerts finds open alerts raised before the deadline of their
// severity (severities without a deadline are not looked at).
func (s *Store) OverdueAlerts(ctx context.Context, orgID string, raisedBefore map[event.Severity]time.Time) (Overdue, error) {
	var o Overdue
	for sev, before := range raisedBefore {
		var n int
		if err := s.reads().QueryRowContext(ctx, `SELECT COUNT(*) FROM alerts WHERE org_id = ? AND status = 'open'
			AND severity = ? AND created_at < ?`, orgID, sev, ms(before)).Scan(&n); err != nil {
			return o, fmt.Errorf("overdue alerts: %w", err)
		}
		o.Count += n
		rows, err := s.reads().QueryContext(ctx, `SELECT id, severity, title, created_at FROM alerts INDEXED BY alerts_org_created
			WHERE org_id = ? AND status = 'open' AND severity = ? AND created_at < ? ORDER BY created_at LIMIT ?`,
			orgID, sev, ms(before), maxEvidenceRows)
		if err != nil {
			return o, fmt.Errorf("overdue alerts: %w", err)
		}
		for rows.Next() {
			var it OverdueItem
			var at int64
			if err := rows.Scan(&it.ID, &it.Severity, &it.Title, &at); err != nil {
				rows.Close()
				return o, fmt.Errorf("overdue alerts: %w", err)
			}
			it.Status, it.CreatedAt = alerting.Open, fromMS(at)
			o.Oldest = append(o.Oldest, it)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return o, fmt.Errorf("overdue alerts: %w", err)
		}
	}
	slices.SortFunc(o.Oldest, func(a, b OverdueItem) int { return a.CreatedAt.Compare(b.CreatedAt) })
	o.Oldest = o.Oldest[:min(len(o.Oldest), maxEvidenceRows)]
	return o, nil
}

// OverdueIncidentTickets finds the tickets that need handling as incidents
// (high priority, or escalated to a human) and are still unresolved after
// being opened before the deadline.
func (s *Store) OverdueIncidentTickets(ctx context.Context, orgID string, openedBefore time.Time) (Overdue, error) {
	var o Overdue
	const where = `org_id = ? AND status IN ('open', 'in_progress', 'escalated') AND (priority = 'high' OR status = 'escalated')
		AND created_at < ?`
	if err := s.reads().QueryRowContext(ctx, `SELECT COUNT(*) FROM tickets WHERE `+where, orgID, ms(openedBefore)).Scan(&o.Count); err != nil {
		return o, fmt.Errorf("overdue tickets: %w", err)
	}
	rows, err := s.reads().QueryContext(ctx, `SELECT id, priority, status, subject, created_at FROM tickets WHERE `+where+`
		ORDER BY created_at LIMIT ?`, orgID, ms(openedBefore), maxEvidenceRows)
	if err != nil {
		return o, fmt.Errorf("overdue tickets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var it OverdueItem
		var at int64
		if err := rows.Scan(&it.ID, &it.Priority, &it.Status, &it.Title, &at); err != nil {
			return o, fmt.Errorf("overdue tickets: %w", err)
		}
		it.CreatedAt = fromMS(at)
		o.Oldest = append(o.Oldest, it)
	}
	return o, rows.Err()
}

// OldestOpenAlert is when the organization's oldest open alert was raised;
// nil when none is open.
func (s *Store) OldestOpenAlert(ctx context.Context, orgID string) (*time.Time, error) {
	var at sql.NullInt64
	if err := s.reads().QueryRowContext(ctx, `SELECT MIN(created_at) FROM alerts WHERE org_id = ? AND status = 'open'`,
		orgID).Scan(&at); err != nil {
		return nil, fmt.Errorf("oldest open alert: %w", err)
	}
	return optMS(at), nil
}
