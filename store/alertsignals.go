package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Signals: what happened to an alert, for the notification router.
const (
	SignalOpened       = "opened"
	SignalResolved     = "resolved"
	SignalAcknowledged = "acknowledged"
)

const signalInsert = `INSERT INTO alert_signals (org_id, alert_id, signal, at) VALUES (?, ?, ?, ?)`

// signalAlert queues a signal in the transaction that caused it, so the
// router hears of every change that committed and of none that did not.
func signalAlert(ctx context.Context, tx *sql.Tx, orgID, alertID, signal string, now int64) error {
	if _, err := tx.ExecContext(ctx, signalInsert, orgID, alertID, signal, now); err != nil {
		return fmt.Errorf("alert signal: %w", err)
	}
	return nil
}

// AlertSignal is one signal with the alert as it is now and the facts
// rules match on: the organization (and its provider) and the type and
// source of the alert's first event.
type AlertSignal struct {
	Seq          int64
	Signal       string
	At           time.Time
	OrgID        string
	OrgName      string
	ProviderID   string
	ProviderName string
	AlertID      string
	Severity     int
	Category     string
	Title        string
	Asset        string
	Indicator    string
	Action       string
	Events       int
	FirstSeen    time.Time
	Status       string
	EventType    string
	Source       string
	Acknowledged bool
}

// unitSeparator parts an alert's first event's type from its source in
// one column (ASCII's unit separator: in neither).
const unitSeparator = "\x1f"

// AlertSignals returns up to limit queued signals, oldest first. A signal
// whose alert was deleted comes with AlertID "" and is only consumed.
func (s *Store) AlertSignals(ctx context.Context, limit int) ([]AlertSignal, error) {
	return queryAll(ctx, s.reads(), "alert signals", `SELECT g.seq, g.signal, g.at, g.org_id, COALESCE(o.name, ''),
		COALESCE(o.provider_id, ''), COALESCE(p.name, ''), COALESCE(a.id, ''), COALESCE(a.severity, 0), COALESCE(a.category, ''),
		COALESCE(a.title, ''), COALESCE(a.asset, ''), COALESCE(a.indicator, ''), COALESCE(a.recommended_action, ''),
		COALESCE(a.event_count, 0), COALESCE(a.first_seen, 0), COALESCE(a.status, ''), a.acknowledged_at IS NOT NULL,
		COALESCE((SELECT e.type || ? || e.source FROM events e WHERE e.alert_id = a.id LIMIT 1), '')
		FROM alert_signals g LEFT JOIN alerts a ON a.id = g.alert_id AND a.org_id = g.org_id
		LEFT JOIN orgs o ON o.id = g.org_id LEFT JOIN orgs p ON p.id = o.provider_id
		ORDER BY g.seq LIMIT ?`, []any{unitSeparator, limit}, func(rows *sql.Rows) (AlertSignal, error) {
		var g AlertSignal
		var at, first int64
		var typeSource string
		err := rows.Scan(&g.Seq, &g.Signal, &at, &g.OrgID, &g.OrgName, &g.ProviderID, &g.ProviderName, &g.AlertID, &g.Severity,
			&g.Category, &g.Title, &g.Asset, &g.Indicator, &g.Action, &g.Events, &first, &g.Status, &g.Acknowledged, &typeSource)
		g.At, g.FirstSeen = fromMS(at), fromMS(first)
		for i := 0; i < len(typeSource); i++ {
			if typeSource[i] == 31 {
				g.EventType, g.Source = typeSource[:i], typeSource[i+1:]
				break
			}
		}
		return g, err
	})
}

// OnAlertSignals sets what hears, after the commit, that a transaction
// queued alert signals: the notification router, woken at once.
func (s *Store) OnAlertSignals(fn func()) { s.signalled.Store(&fn) }

// alertSignalled tells the router that signals were committed.
func (s *Store) alertSignalled() {
	if fn := s.signalled.Load(); fn != nil {
		(*fn)()
	}
}
