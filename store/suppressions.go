package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"garrison/alerting"
	"garrison/fault"
)

const suppressionColumns = `id, signature, asset, indicator, source, reason, created_by, created_at, expires_at, ended_at, hits`

func scanSuppression(row interface{ Scan(...any) error }) (alerting.Suppression, error) {
	var s alerting.Suppression
	var created, expires int64
	var ended sql.NullInt64
	err := row.Scan(&s.ID, &s.Signature, &s.Asset, &s.Indicator, &s.Source, &s.Reason, &s.CreatedBy, &created, &expires, &ended, &s.Hits)
	s.CreatedAt, s.ExpiresAt, s.EndedAt = fromMS(created), fromMS(expires), timeOf(ended)
	return s, err
}

// activeSuppressions are the organization's suppressions in force at now,
// read in the ingest transaction.
func activeSuppressions(ctx context.Context, q querier, orgID string, now time.Time) ([]alerting.Suppression, error) {
	return queryAll(ctx, q, "active suppressions", `SELECT `+suppressionColumns+` FROM alert_suppressions
		WHERE org_id = ? AND expires_at > ? AND ended_at IS NULL`, []any{orgID, ms(now)},
		func(rows *sql.Rows) (alerting.Suppression, error) { return scanSuppression(rows) })
}

// Suppressions lists an organization's suppressions, newest first.
func (s *Store) Suppressions(ctx context.Context, orgID string, limit, offset int) ([]alerting.Suppression, int, error) {
	return readPage(ctx, s, pageQuery{what: "suppressions", args: []any{orgID},
		count: `SELECT COUNT(*) FROM alert_suppressions WHERE org_id = ?`,
		list:  `SELECT ` + suppressionColumns + ` FROM alert_suppressions WHERE org_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`},
		Page{Limit: limit, Offset: offset}, func(rows *sql.Rows) (alerting.Suppression, error) { return scanSuppression(rows) })
}

// Suppression is one of the organization's suppressions.
func (s *Store) Suppression(ctx context.Context, orgID, id string) (alerting.Suppression, error) {
	sp, err := scanSuppression(s.reads().QueryRowContext(ctx, `SELECT `+suppressionColumns+` FROM alert_suppressions
		WHERE org_id = ? AND id = ?`, orgID, id))
	if err == sql.ErrNoRows {
		return sp, ErrNotFound
	}
	if err != nil {
		return sp, fmt.Errorf("suppression: %w", err)
	}
	return sp, nil
}

// errSuppressionLimit: the organization has MaxSuppressions in force.
var errSuppressionLimit = fault.New(fault.Conflict, fmt.Sprintf("The organization has %d suppressions in force, the most it may; end one first",
	alerting.MaxSuppressions))

// AddSuppression stores a suppression; the ingest that follows its commit
// honours it.
func (s *Store) AddSuppression(ctx context.Context, orgID string, sp alerting.Suppression) (alerting.Suppression, error) {
	now := s.now()
	sp.ID, sp.CreatedAt = NewID("sup", now), fromMS(ms(now))
	err := s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM alert_suppressions WHERE org_id = ? AND expires_at > ? AND ended_at IS NULL`,
			orgID, ms(now)).Scan(&n); err != nil {
			return fmt.Errorf("count suppressions: %w", err)
		}
		if n >= alerting.MaxSuppressions {
			return errSuppressionLimit
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO alert_suppressions (id, org_id, signature, asset, indicator, source, reason, created_by,
			created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, sp.ID, orgID, sp.Signature, sp.Asset, sp.Indicator, sp.Source,
			sp.Reason, sp.CreatedBy, ms(now), ms(sp.ExpiresAt))
		if err != nil {
			return fmt.Errorf("add suppression: %w", err)
		}
		return nil
	})
	return sp, err
}

// EndSuppression ends a suppression early; ending an ended or expired one
// changes nothing.
func (s *Store) EndSuppression(ctx context.Context, orgID, id string) (alerting.Suppression, error) {
	now := ms(s.now())
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE alert_suppressions SET ended_at = COALESCE(ended_at, MIN(?, expires_at)) WHERE org_id = ? AND id = ?`,
			now, orgID, id)
		return expectOne(res, err, "end suppression")
	})
	if err != nil {
		return alerting.Suppression{}, err
	}
	return s.Suppression(ctx, orgID, id)
}
