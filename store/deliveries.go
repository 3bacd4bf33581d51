package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is one message to one receiver in the notification outbox.
type Delivery struct {
	ID          string
	OrgID       string // the contact point's organization
	AlertOrgID  string // the alert's: a client's when the channel is its provider's
	ChannelID   string
	RuleID      string
	Recipient   string // an e-mail channel's address; "" otherwise
	IdemKey     string
	Event       string
	AlertID     string
	Message     []byte // the message as queued (JSON), sent alike on every attempt
	Status      string
	Attempts    int
	NextAt      time.Time
	LastStatus  int
	LastError   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	DeliveredAt *time.Time
	// The contact point as it is now, and the names of the rule and alert.
	ChannelName, ChannelKind, ChannelURL, ChannelSecret string
	RuleName, AlertTitle                                string
}

// Group asks for a delivery to be grouped: within Window of the group's
// last message, a message not yet due takes the alert (Merge rewrites its
// message), and otherwise a new message is due when the window ends.
type Group struct {
	Key    string
	Window time.Duration
	Merge  func(queued []byte) ([]byte, error)
}

// NewDelivery is a delivery to queue, grouped when Group is set.
type NewDelivery struct {
	Delivery
	Group *Group
}

// Escalation is a critical alert a rule escalates until acknowledged.
type Escalation struct {
	AlertID, RuleID string
	Sent            int
	NextAt          time.Time
}

// RouteSignals consumes the signals up to and including seq and queues
// the deliveries and escalations they decided, in one transaction: a
// crash repeats the decision, and idempotency keys make the repetition
// add nothing.
func (s *Store) RouteSignals(ctx context.Context, seq int64, deliveries []NewDelivery, escalations []Escalation) error {
	now := s.now()
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, d := range deliveries {
			if err := queueDelivery(ctx, tx, d, now); err != nil {
				return err
			}
		}
		for _, e := range escalations {
			if _, err := tx.ExecContext(ctx, `INSERT INTO alert_escalations (alert_id, rule_id, sent, next_at)
				SELECT ?, ?, 0, ? WHERE EXISTS (SELECT 1 FROM alerts WHERE id = ?) AND EXISTS (SELECT 1 FROM notification_rules WHERE id = ?)
				ON CONFLICT DO NOTHING`, e.AlertID, e.RuleID, ms(e.NextAt), e.AlertID, e.RuleID); err != nil {
				return fmt.Errorf("queue escalation: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM alert_signals WHERE seq <= ?`, seq); err != nil {
			return fmt.Errorf("consume alert signals: %w", err)
		}
		return nil
	})
}

// QueueDeliveries queues deliveries outside routing (a test message, an
// escalation), in one transaction.
func (s *Store) QueueDeliveries(ctx context.Context, deliveries []NewDelivery) error {
	now := s.now()
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, d := range deliveries {
			if err := queueDelivery(ctx, tx, d, now); err != nil {
				return err
			}
		}
		return nil
	})
}

func queueDelivery(ctx context.Context, tx *sql.Tx, d NewDelivery, now time.Time) error {
	var groupKey any
	if g := d.Group; g != nil {
		groupKey = g.Key
		var id string
		var msg []byte
		var status string
		var attempts int
		var next, created int64
		err := tx.QueryRowContext(ctx, `SELECT id, message, status, attempts, next_at, created_at FROM notification_deliveries
			WHERE group_key = ? AND created_at > ? ORDER BY created_at DESC, rowid DESC LIMIT 1`, g.Key, ms(now.Add(-g.Window))).
			Scan(&id, &msg, &status, &attempts, &next, &created)
		switch {
		case errors.Is(err, sql.ErrNoRows): // the group's first message goes at once
		case err != nil:
			return fmt.Errorf("find the alert's group: %w", err)
		case status == DeliveryPending && attempts == 0 && next > ms(now):
			// Not yet due, so no attempt has read it: it takes this alert too.
			merged, err := g.Merge(msg)
			if err != nil {
				return fmt.Errorf("group the alert: %w", err)
			}
			_, err = tx.ExecContext(ctx, `UPDATE notification_deliveries SET message = ?, updated_at = ? WHERE id = ?`, string(merged), ms(now), id)
			if err != nil {
				return fmt.Errorf("group the alert: %w", err)
			}
			return nil
		default: // the group spoke within the window: the next message waits for its end
			d.NextAt = maxTime(d.NextAt, fromMS(created).Add(g.Window))
		}
	}
	if d.NextAt.IsZero() {
		d.NextAt = now
	}
	if d.ID == "" {
		d.ID = NewID("dlv", now)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO notification_deliveries (id, org_id, alert_org_id, channel_id, rule_id, recipient, idem_key,
		event, alert_id, group_key, message, next_at, created_at, updated_at) VALUES (?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (idem_key) DO NOTHING`, d.ID, d.OrgID, d.AlertOrgID, d.ChannelID, d.RuleID, d.Recipient, d.IdemKey,
		d.Event, d.AlertID, groupKey, string(d.Message), ms(d.NextAt), ms(now), ms(now))
	if err != nil {
		return fmt.Errorf("queue delivery: %w", err)
	}
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

const deliveryColumns = `d.id, d.org_id, d.alert_org_id, d.channel_id, COALESCE(d.rule_id, ''), d.recipient, d.idem_key, d.event,
	d.alert_id, d.message, d.status, d.attempts, d.next_at, COALESCE(d.last_status, 0), COALESCE(d.last_error, ''), d.created_at,
	d.updated_at, d.delivered_at, c.name, c.kind, c.url, c.secret,
	COALESCE((SELECT r.name FROM notification_rules r WHERE r.id = d.rule_id), ''),
	COALESCE((SELECT a.title FROM alerts a WHERE a.id = d.alert_id), '')`

func scanDelivery(row interface{ Scan(...any) error }) (Delivery, error) {
	var d Delivery
	var next, created, updated int64
	var delivered sql.NullInt64
	err := row.Scan(&d.ID, &d.OrgID, &d.AlertOrgID, &d.ChannelID, &d.RuleID, &d.Recipient, &d.IdemKey, &d.Event, &d.AlertID,
		&d.Message, &d.Status, &d.Attempts, &next, &d.LastStatus, &d.LastError, &created, &updated, &delivered,
		&d.ChannelName, &d.ChannelKind, &d.ChannelURL, &d.ChannelSecret, &d.RuleName, &d.AlertTitle)
	d.NextAt, d.CreatedAt, d.UpdatedAt, d.DeliveredAt = fromMS(next), fromMS(created), fromMS(updated), timeOf(delivered)
	return d, err
}

// DueDeliveries returns up to limit pending deliveries due by now, the
// earliest first.
func (s *Store) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]Delivery, error) {
	return queryAll(ctx, s.reads(), "due deliveries", `SELECT `+deliveryColumns+` FROM notification_deliveries d
		JOIN notification_channels c ON c.id = d.channel_id WHERE d.status = 'pending' AND d.next_at <= ?
		ORDER BY d.next_at, d.id LIMIT ?`, []any{ms(now), limit}, func(rows *sql.Rows) (Delivery, error) { return scanDelivery(rows) })
}

// NextDeliveryAt is when the earliest pending delivery is due; zero when none is.
func (s *Store) NextDeliveryAt(ctx context.Context) (time.Time, error) {
	var next sql.NullInt64
	if err := s.reads().QueryRowContext(ctx, `SELECT MIN(next_at) FROM notification_deliveries WHERE status = 'pending'`).Scan(&next); err != nil {
		return time.Time{}, fmt.Errorf("next delivery: %w", err)
	}
	if !next.Valid {
		return time.Time{}, nil
	}
	return fromMS(next.Int64), nil
}

// Attempt is one delivery attempt's outcome: its status afterwards, the
// receiver's answer and, while pending, when to try again.
type Attempt struct {
	Status     string
	HTTPStatus int
	Error      string
	NextAt     time.Time
}

// RecordAttempt writes an attempt's outcome down.
func (s *Store) RecordAttempt(ctx context.Context, id string, a Attempt) error {
	now := ms(s.now())
	var delivered, lastErr any
	if a.Status == DeliveryDelivered {
		delivered = now
	}
	if a.Error != "" {
		lastErr = a.Error
	}
	// Recorded at once, not behind other writes: until it is, a node that
	// dies would leave a delivery the receiver took to be sent again.
	return s.writeAlone(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE notification_deliveries SET status = ?, attempts = attempts + 1, last_status = NULLIF(?, 0),
			last_error = ?, next_at = ?, delivered_at = ?, updated_at = ? WHERE id = ? AND status = 'pending'`,
			a.Status, a.HTTPStatus, lastErr, ms(a.NextAt), delivered, now, id)
		if err != nil {
			return fmt.Errorf("record delivery attempt: %w", err)
		}
		return nil
	})
}

// DeliveryFilter selects an organization's deliveries for its log.
type DeliveryFilter struct {
	OrgID     string
	ChannelID string
	AlertID   string
	Status    string
	Page
}

// Deliveries is a page of the organization's delivery log, newest first.
func (s *Store) Deliveries(ctx context.Context, f DeliveryFilter) ([]Delivery, int, error) {
	where, args := `d.org_id = ?`, []any{f.OrgID}
	for _, c := range []struct{ col, v string }{{"d.channel_id", f.ChannelID}, {"d.alert_id", f.AlertID}, {"d.status", f.Status}} {
		if c.v != "" {
			where += " AND " + c.col + " = ?"
			args = append(args, c.v)
		}
	}
	return readPage(ctx, s, pageQuery{what: "deliveries", args: args,
		count: `SELECT COUNT(*) FROM notification_deliveries d WHERE ` + where,
		list: `SELECT ` + deliveryColumns + ` FROM notification_deliveries d JOIN notification_channels c ON c.id = d.channel_id
			WHERE ` + where + ` ORDER BY d.created_at DESC, d.id DESC LIMIT ? OFFSET ?`},
		f.Page, func(rows *sql.Rows) (Delivery, error) { return scanDelivery(rows) })
}

// AlertDeliveries lists the deliveries queued for one alert, every channel's.
func (s *Store) AlertDeliveries(ctx context.Context, alertID string) ([]Delivery, error) {
	return queryAll(ctx, s.reads(), "alert deliveries", `SELECT `+deliveryColumns+` FROM notification_deliveries d
		JOIN notification_channels c ON c.id = d.channel_id WHERE d.alert_id = ? ORDER BY d.created_at, d.id`, []any{alertID},
		func(rows *sql.Rows) (Delivery, error) { return scanDelivery(rows) })
}

// NotifyRecipients are the confirmed addresses of the members of the
// contact point's organization with one of roles who may act in the
// alert's: all of them for its own alerts, and for a client's alerts its
// provider's admins and technicians who reach that client.
func (s *Store) NotifyRecipients(ctx context.Context, channelOrg, alertOrg string, roles []string) ([]string, error) {
	return queryAll(ctx, s.reads(), "notification recipients", `SELECT DISTINCT u.email FROM users u
		JOIN memberships m ON m.user_id = u.id
		WHERE u.email_verified_at IS NOT NULL AND m.org_id = ?1 AND m.role IN (`+s.jsonValues("?3", false)+`)
		AND (?1 = ?2 OR (m.role IN ('admin', 'technician') AND `+assignedTo("u.id", "?2", "?1")+`))
		ORDER BY u.email`, []any{channelOrg, alertOrg, jsonList(roles)}, scanString)
}

// DueEscalations returns the escalations due by now whose alert is still
// open and unacknowledged, and drops the others.
func (s *Store) DueEscalations(ctx context.Context, now time.Time, limit int) ([]Escalation, error) {
	// The due ones are found by their time first, and only those whose
	// alert is settled are dropped: the dispatcher asks after every alert
	// an ingest opens, and a settled-alerts-first plan read every alert
	// (100,000 at a million events) each time.
	settled, err := queryAll(ctx, s.reads(), "settled escalations", `SELECT e.alert_id, e.rule_id
		FROM alert_escalations e INDEXED BY alert_escalations_due JOIN alerts a ON a.id = e.alert_id
		WHERE e.next_at <= ? AND (a.status != 'open' OR a.acknowledged_at IS NOT NULL)`, []any{ms(now)},
		func(rows *sql.Rows) ([2]string, error) {
			var k [2]string
			return k, rows.Scan(&k[0], &k[1])
		})
	if err != nil {
		return nil, err
	}
	if len(settled) > 0 {
		if err := s.write(ctx, func(tx *sql.Tx) error {
			for _, k := range settled {
				if _, err := tx.ExecContext(ctx, `DELETE FROM alert_escalations WHERE alert_id = ? AND rule_id = ?`, k[0], k[1]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("drop settled escalations: %w", err)
		}
	}
	return queryAll(ctx, s.reads(), "due escalations", `SELECT e.alert_id, e.rule_id, e.sent, e.next_at
		FROM alert_escalations e INDEXED BY alert_escalations_due JOIN alerts a ON a.id = e.alert_id
		WHERE e.next_at <= ? AND a.status = 'open' AND a.acknowledged_at IS NULL ORDER BY e.next_at LIMIT ?`,
		[]any{ms(now), limit}, func(rows *sql.Rows) (Escalation, error) {
			var e Escalation
			var next int64
			err := rows.Scan(&e.AlertID, &e.RuleID, &e.Sent, &next)
			e.NextAt = fromMS(next)
			return e, err
		})
}

// Escalate queues an escalation's messages and moves it on: its next time,
// or, after its last, its end.
func (s *Store) Escalate(ctx context.Context, e Escalation, last bool, deliveries []NewDelivery) error {
	now := s.now()
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, d := range deliveries {
			if err := queueDelivery(ctx, tx, d, now); err != nil {
				return err
			}
		}
		q, args := `UPDATE alert_escalations SET sent = sent + 1, next_at = ? WHERE alert_id = ? AND rule_id = ?`, []any{ms(e.NextAt), e.AlertID, e.RuleID}
		if last {
			q, args = `DELETE FROM alert_escalations WHERE alert_id = ? AND rule_id = ?`, []any{e.AlertID, e.RuleID}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("move escalation on: %w", err)
		}
		return nil
	})
}

// EscalationAlert is the alert of an escalation with its organization.
func (s *Store) EscalationAlert(ctx context.Context, alertID string) (AlertSignal, error) {
	var g AlertSignal
	var first int64
	err := s.reads().QueryRowContext(ctx, `SELECT a.org_id, o.name, COALESCE(o.provider_id, ''), COALESCE(p.name, ''), a.id, a.severity,
		a.category, a.title, a.asset, a.indicator, a.recommended_action, a.event_count, a.first_seen, a.status, a.acknowledged_at IS NOT NULL
		FROM alerts a JOIN orgs o ON o.id = a.org_id LEFT JOIN orgs p ON p.id = o.provider_id WHERE a.id = ?`, alertID).
		Scan(&g.OrgID, &g.OrgName, &g.ProviderID, &g.ProviderName, &g.AlertID, &g.Severity, &g.Category, &g.Title, &g.Asset,
			&g.Indicator, &g.Action, &g.Events, &first, &g.Status, &g.Acknowledged)
	if errors.Is(err, sql.ErrNoRows) {
		return g, ErrNotFound
	}
	g.FirstSeen = fromMS(first)
	return g, err
}
