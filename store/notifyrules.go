package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"garrison/event"
)

// NotifyRule routes an organization's alerts to its contact points: the
// conditions an alert must meet (empty lists: any), quiet hours, grouping,
// and the escalation of a critical alert nobody acknowledged.
type NotifyRule struct {
	ID          string
	OrgID       string
	Name        string
	Enabled     bool
	MinSeverity event.Severity
	Categories  []string
	EventTypes  []string
	Clients     []string
	Assets      []string
	Sources     []string
	// QuietStart and QuietEnd are minutes after midnight in QuietZone;
	// both nil: no quiet hours.
	QuietStart, QuietEnd *int
	QuietZone            string
	GroupSeconds         int
	EscalateMinutes      int
	EscalateMax          int
	// OverridesProvider: for the alerts it matches, the provider's rules
	// do not apply (a client's own routing).
	OverridesProvider  bool
	Channels           []string
	EscalationChannels []string
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

const ruleColumns = `id, org_id, name, enabled, min_severity, categories, event_types, clients, assets, sources,
	quiet_start, quiet_end, quiet_zone, group_seconds, escalate_minutes, escalate_max, overrides_provider, created_at, updated_at`

func scanRule(row interface{ Scan(...any) error }) (NotifyRule, error) {
	var r NotifyRule
	var lists [5]string
	var qs, qe sql.NullInt64
	var created, updated int64
	if err := row.Scan(&r.ID, &r.OrgID, &r.Name, &r.Enabled, &r.MinSeverity, &lists[0], &lists[1], &lists[2], &lists[3], &lists[4],
		&qs, &qe, &r.QuietZone, &r.GroupSeconds, &r.EscalateMinutes, &r.EscalateMax, &r.OverridesProvider, &created, &updated); err != nil {
		return r, err
	}
	for i, dst := range []*[]string{&r.Categories, &r.EventTypes, &r.Clients, &r.Assets, &r.Sources} {
		if err := json.Unmarshal([]byte(lists[i]), dst); err != nil {
			return r, fmt.Errorf("rule conditions: %w", err)
		}
	}
	if qs.Valid && qe.Valid {
		a, b := int(qs.Int64), int(qe.Int64)
		r.QuietStart, r.QuietEnd = &a, &b
	}
	r.CreatedAt, r.UpdatedAt = fromMS(created), fromMS(updated)
	return r, nil
}

// NotifyRules lists the rules of the given organizations (an
// organization's own, or a client's with its provider's), each with its
// contact points, oldest first.
func (s *Store) NotifyRules(ctx context.Context, orgIDs ...string) ([]NotifyRule, error) {
	var out []NotifyRule
	err := s.read(ctx, func(q querier) error {
		var err error
		out, err = readRules(ctx, q, orgIDs)
		return err
	})
	return out, err
}

func readRules(ctx context.Context, q querier, orgIDs []string) ([]NotifyRule, error) {
	if len(orgIDs) == 0 {
		return nil, nil
	}
	args := make([]any, len(orgIDs))
	for i, id := range orgIDs {
		args[i] = id
	}
	rules, err := queryAll(ctx, q, "notification rules", `SELECT `+ruleColumns+` FROM notification_rules
		WHERE org_id IN (`+placeholders(len(args))+`) ORDER BY created_at, id`, args, func(rows *sql.Rows) (NotifyRule, error) { return scanRule(rows) })
	if err != nil || len(rules) == 0 {
		return rules, err
	}
	byID := map[string]*NotifyRule{}
	ids := make([]any, len(rules))
	for i := range rules {
		byID[rules[i].ID], ids[i] = &rules[i], rules[i].ID
	}
	type link struct{ rule, channel, purpose string }
	links, err := queryAll(ctx, q, "rule contact points", `SELECT rule_id, channel_id, purpose FROM notification_rule_channels
		WHERE rule_id IN (`+placeholders(len(ids))+`) ORDER BY channel_id`, ids, func(rows *sql.Rows) (link, error) {
		var l link
		return l, rows.Scan(&l.rule, &l.channel, &l.purpose)
	})
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		r := byID[l.rule]
		if l.purpose == "escalate" {
			r.EscalationChannels = append(r.EscalationChannels, l.channel)
		} else {
			r.Channels = append(r.Channels, l.channel)
		}
	}
	return rules, nil
}

// NotifyRule is one rule of the organization; ErrNotFound otherwise.
func (s *Store) NotifyRule(ctx context.Context, orgID, id string) (NotifyRule, error) {
	rules, err := s.NotifyRules(ctx, orgID)
	if err != nil {
		return NotifyRule{}, err
	}
	for _, r := range rules {
		if r.ID == id {
			return r, nil
		}
	}
	return NotifyRule{}, ErrNotFound
}

func ruleArgs(r NotifyRule) []any {
	var qs, qe sql.NullInt64
	if r.QuietStart != nil && r.QuietEnd != nil {
		qs, qe = sql.NullInt64{Int64: int64(*r.QuietStart), Valid: true}, sql.NullInt64{Int64: int64(*r.QuietEnd), Valid: true}
	}
	return []any{r.Name, r.Enabled, r.MinSeverity, jsonList(r.Categories), jsonList(r.EventTypes), jsonList(r.Clients),
		jsonList(r.Assets), jsonList(r.Sources), qs, qe, r.QuietZone, r.GroupSeconds, r.EscalateMinutes, r.EscalateMax, r.OverridesProvider}
}

// CreateNotifyRule adds a rule naming contact points of its organization.
func (s *Store) CreateNotifyRule(ctx context.Context, r NotifyRule) (NotifyRule, error) {
	now := s.now()
	r.ID = NewID("nrl", now)
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM notification_rules WHERE org_id = ?`, r.OrgID).Scan(&n); err != nil {
			return fmt.Errorf("count notification rules: %w", err)
		}
		if n >= MaxNotifyRules {
			return ErrNotifyRuleLimit
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO notification_rules (name, enabled, min_severity, categories, event_types, clients, assets,
			sources, quiet_start, quiet_end, quiet_zone, group_seconds, escalate_minutes, escalate_max, overrides_provider, id, org_id, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(ruleArgs(r), r.ID, r.OrgID, ms(now), ms(now))...)
		if isUniqueViolation(err) {
			return ErrNotifyNameTaken
		}
		if err != nil {
			return fmt.Errorf("create notification rule: %w", err)
		}
		return linkRuleChannels(ctx, tx, r)
	})
	if err != nil {
		return r, err
	}
	return s.NotifyRule(ctx, r.OrgID, r.ID)
}

// UpdateNotifyRule replaces a rule.
func (s *Store) UpdateNotifyRule(ctx context.Context, r NotifyRule) (NotifyRule, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE notification_rules SET name = ?, enabled = ?, min_severity = ?, categories = ?,
			event_types = ?, clients = ?, assets = ?, sources = ?, quiet_start = ?, quiet_end = ?, quiet_zone = ?, group_seconds = ?,
			escalate_minutes = ?, escalate_max = ?, overrides_provider = ?, updated_at = ? WHERE id = ? AND org_id = ?`,
			append(ruleArgs(r), ms(s.now()), r.ID, r.OrgID)...)
		if isUniqueViolation(err) {
			return ErrNotifyNameTaken
		}
		if err := expectOne(res, err, "update notification rule"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM notification_rule_channels WHERE rule_id = ?`, r.ID); err != nil {
			return fmt.Errorf("replace rule contact points: %w", err)
		}
		return linkRuleChannels(ctx, tx, r)
	})
	if err != nil {
		return r, err
	}
	return s.NotifyRule(ctx, r.OrgID, r.ID)
}

// linkRuleChannels names a rule's contact points, each of its own organization.
func linkRuleChannels(ctx context.Context, tx *sql.Tx, r NotifyRule) error {
	for purpose, ids := range map[string][]string{"notify": r.Channels, "escalate": r.EscalationChannels} {
		for _, id := range ids {
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM notification_channels WHERE id = ? AND org_id = ?`, id, r.OrgID).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return ErrNoSuchChannel
			}
			if err != nil {
				return fmt.Errorf("rule contact point: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO notification_rule_channels (rule_id, channel_id, purpose) VALUES (?, ?, ?)
				ON CONFLICT DO NOTHING`, r.ID, id, purpose); err != nil {
				return fmt.Errorf("link rule contact point: %w", err)
			}
		}
	}
	return nil
}

// DeleteNotifyRule removes a rule; alerts it escalates stop escalating.
func (s *Store) DeleteNotifyRule(ctx context.Context, orgID, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM notification_rules WHERE org_id = ? AND id = ?`, orgID, id)
		return expectOne(res, err, "delete notification rule")
	})
}

// seedNotifications gives a new organization its default routing: its
// admins mailed of critical and high alerts, the second and later of a
// minute grouped into one message.
func seedNotifications(ctx context.Context, tx *sql.Tx, orgID string, now time.Time) error {
	channel, rule := NewID("nch", now), NewID("nrl", now)
	if _, err := tx.ExecContext(ctx, `INSERT INTO notification_channels (id, org_id, name, kind, roles, created_at, updated_at)
		VALUES (?, ?, 'Admins by e-mail', 'email', '["admin"]', ?, ?)`, channel, orgID, ms(now), ms(now)); err != nil {
		return fmt.Errorf("default contact point: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO notification_rules (id, org_id, name, min_severity, group_seconds, created_at, updated_at)
		VALUES (?, ?, 'Critical and high alerts', ?, 60, ?, ?)`, rule, orgID, event.High, ms(now), ms(now)); err != nil {
		return fmt.Errorf("default notification rule: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO notification_rule_channels (rule_id, channel_id, purpose) VALUES (?, ?, 'notify')`, rule, channel); err != nil {
		return fmt.Errorf("default rule's contact point: %w", err)
	}
	return nil
}
