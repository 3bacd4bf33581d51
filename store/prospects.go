package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// ProspectInput is a prospect's fields as imported.
type ProspectInput struct {
	Company, Domain, Vertical, Region       string
	Employees                               *int
	ContactName, ContactEmail, ContactPhone string
	Notes                                   string
	Attributes                              map[string]string
}

// Prospect is a stored prospect.
type Prospect struct {
	ProspectInput
	ID, OrgID            string
	CreatedAt, UpdatedAt time.Time
}

// ImportCounts says what an import did.
type ImportCounts struct{ Created, Merged, Unchanged int }

const prospectColumns = `id, org_id, domain, company, vertical, region, employees, contact_name, contact_email, contact_phone, notes,
	attributes, created_at, updated_at`

func scanProspect(row interface{ Scan(...any) error }) (Prospect, error) {
	var p Prospect
	var employees sql.NullInt64
	var attrs string
	var created, updated int64
	if err := row.Scan(&p.ID, &p.OrgID, &p.Domain, &p.Company, &p.Vertical, &p.Region, &employees, &p.ContactName, &p.ContactEmail,
		&p.ContactPhone, &p.Notes, &attrs, &created, &updated); err != nil {
		return Prospect{}, fmt.Errorf("prospect: %w", err)
	}
	if employees.Valid {
		n := int(employees.Int64)
		p.Employees = &n
	}
	if err := json.Unmarshal([]byte(attrs), &p.Attributes); err != nil {
		return Prospect{}, fmt.Errorf("prospect %s attributes: %w", p.ID, err)
	}
	p.CreatedAt, p.UpdatedAt = fromMS(created), fromMS(updated)
	return p, nil
}

func nullInt(n *int) any {
	if n == nil {
		return nil
	}
	return *n
}

// ImportProspects stores prospects in one transaction: a new domain is
// created; an existing one takes merge(stored, imported) and, when that
// changed anything, records the merge (who, when, which fields).
func (s *Store) ImportProspects(ctx context.Context, orgID, actor string, in []ProspectInput,
	merge func(old, newer ProspectInput) (ProspectInput, error)) (ImportCounts, error) {
	var c ImportCounts
	if s.OnReserve() {
		return c, ErrDiskFull
	}
	now := s.now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		c = ImportCounts{}
		for _, p := range in {
			old, err := scanProspect(tx.QueryRowContext(ctx, `SELECT `+prospectColumns+` FROM prospects WHERE org_id = ? AND domain = ?`, orgID, p.Domain))
			if errors.Is(err, sql.ErrNoRows) {
				attrs, _ := json.Marshal(p.Attributes)
				if _, err := tx.ExecContext(ctx, `INSERT INTO prospects (`+prospectColumns+`, search) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					NewID("prs", now), orgID, p.Domain, p.Company, p.Vertical, p.Region, nullInt(p.Employees), p.ContactName, p.ContactEmail,
					p.ContactPhone, p.Notes, string(attrs), ms(now), ms(now), searchText(p)); err != nil {
					return fmt.Errorf("insert prospect: %w", err)
				}
				c.Created++
				continue
			}
			if err != nil {
				return err
			}
			merged, err := merge(old.ProspectInput, p)
			if err != nil {
				return err
			}
			changes := prospectChanges(old.ProspectInput, merged)
			if len(changes) == 0 {
				c.Unchanged++
				continue
			}
			attrs, _ := json.Marshal(merged.Attributes)
			if _, err := tx.ExecContext(ctx, `UPDATE prospects SET company = ?, vertical = ?, region = ?, employees = ?, contact_name = ?,
				contact_email = ?, contact_phone = ?, notes = ?, attributes = ?, updated_at = ?, search = ? WHERE id = ?`, merged.Company, merged.Vertical,
				merged.Region, nullInt(merged.Employees), merged.ContactName, merged.ContactEmail, merged.ContactPhone, merged.Notes,
				string(attrs), ms(now), searchText(merged), old.ID); err != nil {
				return fmt.Errorf("merge prospect: %w", err)
			}
			recorded, _ := json.Marshal(changes)
			if _, err := tx.ExecContext(ctx, `INSERT INTO prospect_merges (prospect_id, changes, actor, at) VALUES (?, ?, ?, ?)`,
				old.ID, string(recorded), actor, ms(now)); err != nil {
				return fmt.Errorf("record merge: %w", err)
			}
			c.Merged++
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM prospects WHERE org_id = ?`, orgID).Scan(&n); err != nil {
			return fmt.Errorf("count prospects: %w", err)
		}
		if n > MaxProspectsPerOrg {
			return ErrProspectLimit
		}
		return nil
	})
	return c, err
}

// MaxProspectsPerOrg bounds an organization's prospects (and so a hunter
// run's work).
const MaxProspectsPerOrg = 100_000

// searchText is what q matches: the company and domain, lower-cased by Go
// (SQLite's lower() folds ASCII only).
func searchText(p ProspectInput) string { return strings.ToLower(p.Company) + " " + p.Domain }

// FieldChange is one field a merge changed.
type FieldChange struct {
	Field string `json:"field"`
	From  any    `json:"from"`
	To    any    `json:"to"`
}

func prospectChanges(a, b ProspectInput) []FieldChange {
	var out []FieldChange
	for _, f := range []struct {
		name     string
		from, to any
	}{{"company", a.Company, b.Company}, {"vertical", a.Vertical, b.Vertical}, {"region", a.Region, b.Region},
		{"employees", a.Employees, b.Employees}, {"contact_name", a.ContactName, b.ContactName}, {"contact_email", a.ContactEmail, b.ContactEmail},
		{"contact_phone", a.ContactPhone, b.ContactPhone}, {"notes", a.Notes, b.Notes}, {"attributes", a.Attributes, b.Attributes}} {
		if !reflect.DeepEqual(f.from, f.to) {
			out = append(out, FieldChange{f.name, f.from, f.to})
		}
	}
	return out
}

// Prospects lists the organization's prospects by company.
func (s *Store) Prospects(ctx context.Context, orgID string, p Page) ([]Prospect, int, error) {
	return readPage(ctx, s, pageQuery{what: "prospects", args: []any{orgID},
		count: `SELECT COUNT(*) FROM prospects WHERE org_id = ?`,
		list:  `SELECT ` + prospectColumns + ` FROM prospects WHERE org_id = ? ORDER BY company, domain LIMIT ? OFFSET ?`},
		p, func(rows *sql.Rows) (Prospect, error) { return scanProspect(rows) })
}

// ProspectFilter selects the prospects a hunter run scores.
type ProspectFilter struct {
	Vertical                   string // "" any
	MinEmployees, MaxEmployees *int
}

// MatchingProspects reads the prospects a hunter run considers (region is
// matched by the caller, who normalizes it).
func (s *Store) MatchingProspects(ctx context.Context, orgID string, f ProspectFilter) ([]Prospect, error) {
	// What scoring reads; attributes are not among it.
	q, args := `SELECT `+strings.Replace(prospectColumns, "attributes", "'{}'", 1)+` FROM prospects WHERE org_id = ?`, []any{orgID}
	if f.Vertical != "" {
		q += ` AND vertical = ?`
		args = append(args, f.Vertical)
	}
	if f.MinEmployees != nil {
		q += ` AND employees >= ?`
		args = append(args, *f.MinEmployees)
	}
	if f.MaxEmployees != nil {
		q += ` AND employees <= ?`
		args = append(args, *f.MaxEmployees)
	}
	return queryAll(ctx, s.reads(), "matching prospects", q+` ORDER BY domain`, args, func(rows *sql.Rows) (Prospect, error) { return scanProspect(rows) })
}
