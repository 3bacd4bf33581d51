package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"garrison/timestamp"
)

// Remediation statuses.
const (
	RemediationApplied        = "applied"
	RemediationManualRequired = "manual_required"
	RemediationPlanned        = "planned"
)

// Kinds of RemediationAction: the changes Garrison makes to close a gap.
const (
	ActionSetKeyExpiry = "set_key_expiry" // KeyID, ExpiresAt
	ActionRevokeKey    = "revoke_key"     // KeyID
	ActionAdoptPolicy  = "adopt_policy"   // TemplateID
)

// RemediationAction is one change to make.
type RemediationAction struct {
	Kind       string
	KeyID      string
	ExpiresAt  time.Time
	TemplateID string
}

// Change is what one action changed, before and after.
type Change struct {
	Object string `json:"object"` // api_key, policy_template
	ID     string `json:"id"`
	Field  string `json:"field"`
	Before any    `json:"before"`
	After  any    `json:"after"`
}

// Remediation is the record of one remediation request.
type Remediation struct {
	ID        string
	OrgID     string
	GapID     string
	Status    string
	Changes   []Change
	PassesNow *bool
	Actor     string
	CreatedAt time.Time
}

// RecordRemediation makes the actions' changes and records the remediation
// in one transaction: all of it happens or none. An action whose object is
// already as wanted (a key revoked meanwhile) changes nothing and is not
// listed.
func (s *Store) RecordRemediation(ctx context.Context, orgID, gapID, status, actor string, actions []RemediationAction) (Remediation, error) {
	now := s.now()
	r := Remediation{ID: NewID("rem", now), OrgID: orgID, GapID: gapID, Status: status, Actor: actor,
		CreatedAt: fromMS(ms(now)), Changes: []Change{}}
	write := s.write
	if len(actions) > 0 {
		write = s.writeAuth // keys may change: authentication must see it
	}
	err := write(ctx, func(tx *sql.Tx) error {
		for _, a := range actions {
			c, changed, err := applyAction(ctx, tx, orgID, actor, a, now)
			if err != nil {
				return err
			}
			if changed {
				r.Changes = append(r.Changes, c)
			}
		}
		changes, err := json.Marshal(r.Changes)
		if err != nil {
			return fmt.Errorf("encode changes: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO compliance_remediations (id, org_id, gap_id, status, changes, actor, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, r.ID, orgID, gapID, status, string(changes), actor, ms(now)); err != nil {
			return fmt.Errorf("record remediation: %w", err)
		}
		return nil
	})
	if err != nil {
		return Remediation{}, err
	}
	return r, nil
}

func applyAction(ctx context.Context, tx *sql.Tx, orgID, actor string, a RemediationAction, now time.Time) (Change, bool, error) {
	switch a.Kind {
	case ActionSetKeyExpiry:
		var before sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT expires_at FROM api_keys WHERE id = ? AND org_id = ? AND revoked_at IS NULL`,
			a.KeyID, orgID).Scan(&before)
		if errors.Is(err, sql.ErrNoRows) {
			return Change{}, false, nil
		}
		if err != nil {
			return Change{}, false, fmt.Errorf("read key expiry: %w", err)
		}
		after := ms(a.ExpiresAt)
		if before.Valid && before.Int64 <= after {
			return Change{}, false, nil // already expires as soon
		}
		if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET expires_at = ? WHERE id = ? AND org_id = ?`, after, a.KeyID, orgID); err != nil {
			return Change{}, false, fmt.Errorf("set key expiry: %w", err)
		}
		var was any
		if before.Valid {
			was = timestamp.Format(fromMS(before.Int64))
		}
		return Change{Object: "api_key", ID: a.KeyID, Field: "expires_at", Before: was, After: timestamp.Format(fromMS(after))}, true, nil
	case ActionRevokeKey:
		res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND org_id = ? AND revoked_at IS NULL`,
			ms(now), a.KeyID, orgID)
		if err != nil {
			return Change{}, false, fmt.Errorf("revoke key: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			return Change{}, false, err
		}
		return Change{Object: "api_key", ID: a.KeyID, Field: "status", Before: "active", After: "revoked"}, true, nil
	case ActionAdoptPolicy:
		created, err := adoptPolicy(ctx, tx, orgID, a.TemplateID, actor, now)
		if err != nil || !created {
			return Change{}, false, err
		}
		return Change{Object: "policy_template", ID: a.TemplateID, Field: "adopted", Before: false, After: true}, true, nil
	}
	return Change{}, false, fmt.Errorf("unknown remediation action %q", a.Kind)
}

// SetRemediationOutcome records whether the control passed when re-checked
// right after the remediation.
func (s *Store) SetRemediationOutcome(ctx context.Context, orgID, id string, passes bool) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE compliance_remediations SET passes_now = ? WHERE id = ? AND org_id = ?`, passes, id, orgID)
		return expectOne(res, err, "remediation outcome")
	})
}

// Remediations lists the remediations of the organization's gaps among
// gapIDs, oldest first, by gap.
func (s *Store) Remediations(ctx context.Context, orgID string, gapIDs []string) (map[string][]Remediation, error) {
	out := map[string][]Remediation{}
	for _, gapID := range gapIDs {
		rows, err := s.reads().QueryContext(ctx, `SELECT id, status, changes, passes_now, actor, created_at FROM compliance_remediations
			WHERE org_id = ? AND gap_id = ? ORDER BY id`, orgID, gapID)
		if err != nil {
			return nil, fmt.Errorf("remediations: %w", err)
		}
		for rows.Next() {
			r := Remediation{OrgID: orgID, GapID: gapID}
			var changes string
			var passes sql.NullBool
			var at int64
			if err := rows.Scan(&r.ID, &r.Status, &changes, &passes, &r.Actor, &at); err != nil {
				rows.Close()
				return nil, fmt.Errorf("remediations: %w", err)
			}
			if err := json.Unmarshal([]byte(changes), &r.Changes); err != nil {
				rows.Close()
				return nil, fmt.Errorf("remediation changes: %w", err)
			}
			if passes.Valid {
				r.PassesNow = &passes.Bool
			}
			r.CreatedAt = fromMS(at)
			out[gapID] = append(out[gapID], r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("remediations: %w", err)
		}
	}
	return out, nil
}
