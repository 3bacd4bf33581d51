package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"garrison/fault"
)

// DetectionChoice is an organization's choice over a shipped rule set
// (Kind "set") or one rule (Kind "rule").
type DetectionChoice struct {
	Kind, Name string
	Enabled    bool
	UpdatedAt  time.Time
	UpdatedBy  string
}

// CustomRule is a detection rule an organization wrote, as its YAML.
type CustomRule struct {
	OrgID     string // whose: the organization's own, or its provider's
	ID        string
	Title     string
	Level     string
	YAML      string
	CreatedAt time.Time
	CreatedBy string
	UpdatedAt time.Time
}

// DetectionConfig is what an organization's detection is made of: its own
// choices and rules, and its provider's, which apply to it too.
type DetectionConfig struct {
	Own, Provider   []DetectionChoice
	Rules           []CustomRule // its own, then its provider's
	ProviderID      string       // "" when it has none
	OwnRules, Total int
}

// MaxCustomRules bounds an organization's own rules, and MaxCustomText
// their text together.
const (
	MaxCustomRules = 500
	MaxCustomText  = 4 << 20
)

var (
	errCustomRuleLimit = fault.New(fault.Conflict, fmt.Sprintf("The organization has %d rules of its own, the most it may; delete one first", MaxCustomRules))
	errCustomTextLimit = fault.New(fault.Conflict, fmt.Sprintf("The organization's own rules would pass %d MiB of text together, the most they may; delete one first", MaxCustomText>>20))
)

// ErrRuleExists: the organization (or its provider) has a rule of that id.
var ErrRuleExists = fault.New(fault.Conflict, "A rule with that id exists already")

const customRuleColumns = `org_id, id, title, level, yaml, created_at, created_by, updated_at`

func scanCustomRule(rows interface{ Scan(...any) error }) (CustomRule, error) {
	var r CustomRule
	var created, updated int64
	err := rows.Scan(&r.OrgID, &r.ID, &r.Title, &r.Level, &r.YAML, &created, &r.CreatedBy, &updated)
	r.CreatedAt, r.UpdatedAt = fromMS(created), fromMS(updated)
	return r, err
}

// Detection reads an organization's detection config with its provider's.
func (s *Store) Detection(ctx context.Context, orgID string) (DetectionConfig, error) {
	var c DetectionConfig
	q := s.reads()
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(provider_id, '') FROM orgs WHERE id = ?`, orgID).Scan(&c.ProviderID); err != nil {
		if err == sql.ErrNoRows {
			return c, ErrNotFound
		}
		return c, fmt.Errorf("organization's provider: %w", err)
	}
	choices := func(org string) ([]DetectionChoice, error) {
		return queryAll(ctx, q, "detection choices", `SELECT kind, name, enabled, updated_at, updated_by
			FROM detection_choices WHERE org_id = ? ORDER BY kind, name`, []any{org}, func(rows *sql.Rows) (DetectionChoice, error) {
			var ch DetectionChoice
			var at int64
			err := rows.Scan(&ch.Kind, &ch.Name, &ch.Enabled, &at, &ch.UpdatedBy)
			ch.UpdatedAt = fromMS(at)
			return ch, err
		})
	}
	rules := func(org string) ([]CustomRule, error) {
		return queryAll(ctx, q, "custom rules", `SELECT `+customRuleColumns+` FROM detection_custom_rules
			WHERE org_id = ? ORDER BY title, id`, []any{org}, func(rows *sql.Rows) (CustomRule, error) { return scanCustomRule(rows) })
	}
	var err error
	if c.Own, err = choices(orgID); err != nil {
		return c, err
	}
	if c.Rules, err = rules(orgID); err != nil {
		return c, err
	}
	c.OwnRules = len(c.Rules)
	if c.ProviderID != "" {
		if c.Provider, err = choices(c.ProviderID); err != nil {
			return c, err
		}
		inherited, err := rules(c.ProviderID)
		if err != nil {
			return c, err
		}
		c.Rules = append(c.Rules, inherited...)
	}
	c.Total = len(c.Rules)
	return c, nil
}

// SetDetectionChoice records an organization's choice over a set or a
// rule; Clear removes it, so that its provider's or the default applies.
func (s *Store) SetDetectionChoice(ctx context.Context, orgID string, ch DetectionChoice, clear bool) error {
	return s.writeAnnouncing(ctx, TopicDetection, func(tx *sql.Tx) error {
		var err error
		if clear {
			_, err = tx.ExecContext(ctx, `DELETE FROM detection_choices WHERE org_id = ? AND kind = ? AND name = ?`, orgID, ch.Kind, ch.Name)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO detection_choices (org_id, kind, name, enabled, updated_at, updated_by)
				VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (org_id, kind, name) DO UPDATE SET enabled = excluded.enabled,
				updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
				orgID, ch.Kind, ch.Name, ch.Enabled, ms(ch.UpdatedAt), ch.UpdatedBy)
		}
		if err != nil {
			return fmt.Errorf("detection choice: %w", err)
		}
		return nil
	})
}

// AddCustomRule stores an organization's rule. Its id must be new to the
// organization, to its provider and to the provider's clients: a rule
// reaches all of them.
func (s *Store) AddCustomRule(ctx context.Context, orgID string, r CustomRule) error {
	return s.writeAnnouncing(ctx, TopicDetection, func(tx *sql.Tx) error {
		var n, text int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(octet_length(yaml)), 0) FROM detection_custom_rules
			WHERE org_id = ?`, orgID).Scan(&n, &text); err != nil {
			return fmt.Errorf("count custom rules: %w", err)
		}
		if n >= MaxCustomRules {
			return errCustomRuleLimit
		}
		if text+len(r.YAML) > MaxCustomText {
			return errCustomTextLimit
		}
		var taken bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM detection_custom_rules r JOIN orgs o ON o.id = r.org_id
			WHERE r.id = ? AND (o.id = ? OR o.id = (SELECT provider_id FROM orgs WHERE id = ?) OR o.provider_id = ?))`,
			r.ID, orgID, orgID, orgID).Scan(&taken); err != nil {
			return fmt.Errorf("custom rule's id: %w", err)
		}
		if taken {
			return ErrRuleExists
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO detection_custom_rules (`+customRuleColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			orgID, r.ID, r.Title, r.Level, r.YAML, ms(r.CreatedAt), r.CreatedBy, ms(r.UpdatedAt))
		if err != nil {
			return fmt.Errorf("insert custom rule: %w", err)
		}
		return nil
	})
}

// DeleteCustomRule deletes one of the organization's own rules, and the
// choices made about it.
func (s *Store) DeleteCustomRule(ctx context.Context, orgID, id string) error {
	return s.writeAnnouncing(ctx, TopicDetection, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM detection_custom_rules WHERE org_id = ? AND id = ?`, orgID, id)
		if err != nil {
			return fmt.Errorf("delete custom rule: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM detection_choices WHERE org_id = ? AND kind = 'rule' AND name = ?`, orgID, id); err != nil {
			return fmt.Errorf("delete custom rule's choice: %w", err)
		}
		return nil
	})
}
