package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// MaxNotifyChannels bounds an organization's contact points, and
// MaxNotifyRules its routing rules.
const (
	MaxNotifyChannels = 50
	MaxNotifyRules    = 50
)

// NotifyChannel is one contact point of an organization. Secret is a
// webhook's signing secret or PagerDuty's routing key: written, never
// shown.
type NotifyChannel struct {
	ID            string
	OrgID         string
	Name          string
	Kind          string
	URL           string
	Addresses     []string
	Roles         []string
	Secret        string
	FailingSince  *time.Time
	LastSuccessAt *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

const channelColumns = `id, org_id, name, kind, url, addresses, roles, secret, failing_since, last_success_at, created_at, updated_at`

func scanChannel(row interface{ Scan(...any) error }) (NotifyChannel, error) {
	var c NotifyChannel
	var addresses, roles string
	var failing, success sql.NullInt64
	var created, updated int64
	if err := row.Scan(&c.ID, &c.OrgID, &c.Name, &c.Kind, &c.URL, &addresses, &roles, &c.Secret, &failing, &success, &created, &updated); err != nil {
		return c, err
	}
	c.FailingSince, c.LastSuccessAt = timeOf(failing), timeOf(success)
	c.CreatedAt, c.UpdatedAt = fromMS(created), fromMS(updated)
	if err := json.Unmarshal([]byte(addresses), &c.Addresses); err != nil {
		return c, fmt.Errorf("channel addresses: %w", err)
	}
	if err := json.Unmarshal([]byte(roles), &c.Roles); err != nil {
		return c, fmt.Errorf("channel roles: %w", err)
	}
	return c, nil
}

func timeOf(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}

func jsonList(v []string) string {
	if v == nil {
		v = []string{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// NotifyChannels lists an organization's contact points by name.
func (s *Store) NotifyChannels(ctx context.Context, orgID string) ([]NotifyChannel, error) {
	return queryAll(ctx, s.reads(), "contact points", `SELECT `+channelColumns+` FROM notification_channels
		WHERE org_id = ? ORDER BY name`, []any{orgID}, func(rows *sql.Rows) (NotifyChannel, error) { return scanChannel(rows) })
}

// NotifyChannel is one contact point of the organization; ErrNotFound otherwise.
func (s *Store) NotifyChannel(ctx context.Context, orgID, id string) (NotifyChannel, error) {
	return readChannel(ctx, s.reads(), orgID, id)
}

func readChannel(ctx context.Context, q querier, orgID, id string) (NotifyChannel, error) {
	c, err := scanChannel(q.QueryRowContext(ctx, `SELECT `+channelColumns+` FROM notification_channels WHERE org_id = ? AND id = ?`, orgID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNotFound
	}
	if err != nil {
		return c, fmt.Errorf("contact point: %w", err)
	}
	return c, nil
}

// CreateNotifyChannel adds a contact point.
func (s *Store) CreateNotifyChannel(ctx context.Context, c NotifyChannel) (NotifyChannel, error) {
	now := s.now()
	c.ID = NewID("nch", now)
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM notification_channels WHERE org_id = ?`, c.OrgID).Scan(&n); err != nil {
			return fmt.Errorf("count contact points: %w", err)
		}
		if n >= MaxNotifyChannels {
			return ErrNotifyChannelLimit
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO notification_channels (id, org_id, name, kind, url, addresses, roles, secret, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, c.ID, c.OrgID, c.Name, c.Kind, c.URL, jsonList(c.Addresses), jsonList(c.Roles), c.Secret, ms(now), ms(now))
		if isUniqueViolation(err) {
			return ErrNotifyNameTaken
		}
		if err != nil {
			return fmt.Errorf("create contact point: %w", err)
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	return s.NotifyChannel(ctx, c.OrgID, c.ID)
}

// UpdateNotifyChannel replaces a contact point's settings; an empty Secret
// keeps the stored one.
func (s *Store) UpdateNotifyChannel(ctx context.Context, c NotifyChannel) (NotifyChannel, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE notification_channels SET name = ?, url = ?, addresses = ?, roles = ?,
			secret = CASE WHEN ? = '' THEN secret ELSE ? END, updated_at = ? WHERE org_id = ? AND id = ?`,
			c.Name, c.URL, jsonList(c.Addresses), jsonList(c.Roles), c.Secret, c.Secret, ms(s.now()), c.OrgID, c.ID)
		if isUniqueViolation(err) {
			return ErrNotifyNameTaken
		}
		return expectOne(res, err, "update contact point")
	})
	if err != nil {
		return c, err
	}
	return s.NotifyChannel(ctx, c.OrgID, c.ID)
}

// DeleteNotifyChannel removes a contact point no rule names.
func (s *Store) DeleteNotifyChannel(ctx context.Context, orgID, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var rule string
		err := tx.QueryRowContext(ctx, `SELECT r.name FROM notification_rule_channels rc JOIN notification_rules r ON r.id = rc.rule_id
			WHERE rc.channel_id = ? AND r.org_id = ? LIMIT 1`, id, orgID).Scan(&rule)
		if err == nil {
			return channelInUse(rule)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("contact point's rules: %w", err)
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM notification_channels WHERE org_id = ? AND id = ?`, orgID, id)
		return expectOne(res, err, "delete contact point")
	})
}

// RecordChannelOutcome notes a delivery's outcome on its contact point:
// a success ends a run of failures, a failure starts one if none runs.
// It returns when the current run of failures began (nil after a success).
func (s *Store) RecordChannelOutcome(ctx context.Context, channelID string, ok bool) (*time.Time, error) {
	now := ms(s.now())
	var since sql.NullInt64
	err := s.write(ctx, func(tx *sql.Tx) error {
		q := `UPDATE notification_channels SET failing_since = COALESCE(failing_since, ?) WHERE id = ? RETURNING failing_since`
		if ok {
			q = `UPDATE notification_channels SET failing_since = NULL, last_success_at = ? WHERE id = ? RETURNING failing_since`
		}
		err := tx.QueryRowContext(ctx, q, now, channelID).Scan(&since)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return fmt.Errorf("record contact point outcome: %w", err)
		}
		return nil
	})
	return timeOf(since), err
}

// FailingChannels lists the contact points, of every organization, whose
// deliveries have failed since before the given time.
func (s *Store) FailingChannels(ctx context.Context, since time.Time) ([]NotifyChannel, error) {
	return queryAll(ctx, s.reads(), "failing contact points", `SELECT `+channelColumns+` FROM notification_channels
		WHERE failing_since IS NOT NULL AND failing_since <= ? ORDER BY failing_since LIMIT 100`, []any{ms(since)},
		func(rows *sql.Rows) (NotifyChannel, error) { return scanChannel(rows) })
}
