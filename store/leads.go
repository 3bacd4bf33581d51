package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"garrison/valid"
)

// Lead statuses.
const LeadNew = "new"

// Lead is a scored prospect in the pipeline.
type Lead struct {
	ID, OrgID, ProspectID string
	Status                string
	Score                 int
	ScoreReasons          json.RawMessage
	Summary               string
	SummarySource         string // "facts" or "llm:<model>"
	RunID                 string
	CreatedAt, UpdatedAt  time.Time
	Prospect              Prospect
	History               []LeadChange // for one lead only
}

// LeadChange is an entry of a lead's history.
type LeadChange struct {
	Kind     string // "status" or "score"
	From, To *string
	Note     string
	Actor    string
	At       time.Time
}

// LeadScore is what a hunter run computed for a prospect.
type LeadScore struct {
	ProspectID    string
	Scored        time.Time // the prospect's updated_at the score was computed from
	Score         int
	Reasons       json.RawMessage
	Summary       string
	SummarySource string
}

// LeadOutcome says what a hunter run did to one lead.
type LeadOutcome struct {
	LeadID, ProspectID string
	Created            bool
	ScoreFrom          *int // set when the score changed
	Score              int
}

const leadColumns = `l.id, l.org_id, l.prospect_id, l.status, l.score, l.score_reasons, l.intelligence_summary, l.summary_source, l.run_id,
	l.created_at, l.updated_at, p.id, p.org_id, p.domain, p.company, p.vertical, p.region, p.employees, p.contact_name, p.contact_email,
	p.contact_phone, p.notes, p.attributes, p.created_at, p.updated_at`

const leadFrom = ` FROM leads l JOIN prospects p ON p.id = l.prospect_id `

func scanLead(row interface{ Scan(...any) error }) (Lead, error) {
	var l Lead
	var reasons string
	var created, updated int64
	var p Prospect
	var employees sql.NullInt64
	var attrs string
	var pc, pu int64
	if err := row.Scan(&l.ID, &l.OrgID, &l.ProspectID, &l.Status, &l.Score, &reasons, &l.Summary, &l.SummarySource, &l.RunID, &created, &updated,
		&p.ID, &p.OrgID, &p.Domain, &p.Company, &p.Vertical, &p.Region, &employees, &p.ContactName, &p.ContactEmail, &p.ContactPhone, &p.Notes,
		&attrs, &pc, &pu); err != nil {
		return Lead{}, fmt.Errorf("lead: %w", err)
	}
	if employees.Valid {
		n := int(employees.Int64)
		p.Employees = &n
	}
	if err := json.Unmarshal([]byte(attrs), &p.Attributes); err != nil {
		return Lead{}, fmt.Errorf("lead %s prospect attributes: %w", l.ID, err)
	}
	p.CreatedAt, p.UpdatedAt = fromMS(pc), fromMS(pu)
	l.ScoreReasons, l.CreatedAt, l.UpdatedAt, l.Prospect = json.RawMessage(reasons), fromMS(created), fromMS(updated), p
	return l, nil
}

func addLeadChange(ctx context.Context, tx *sql.Tx, leadID string, c LeadChange) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO lead_history (lead_id, kind, from_v, to_v, note, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		leadID, c.Kind, c.From, *c.To, c.Note, c.Actor, ms(c.At)); err != nil {
		return fmt.Errorf("lead history: %w", err)
	}
	return nil
}

func itoaPtr(n int) *string { s := fmt.Sprint(n); return &s }

// UpsertLeads writes a hunter run's scores in one transaction: a prospect
// without a lead gets one (status new); an existing lead keeps its status
// and takes the new score, reasons and summary, the score change recorded.
func (s *Store) UpsertLeads(ctx context.Context, orgID, runID, actor string, scores []LeadScore) ([]LeadOutcome, error) {
	now := s.now()
	var out []LeadOutcome
	err := s.write(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		for _, sc := range scores {
			// A run that read the prospect before it changed leaves the lead
			// to the run that reads it after.
			var prospectAt int64
			if err := tx.QueryRowContext(ctx, `SELECT updated_at FROM prospects WHERE org_id = ? AND id = ?`, orgID, sc.ProspectID).Scan(&prospectAt); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					continue // deleted meanwhile
				}
				return fmt.Errorf("prospect of lead: %w", err)
			}
			if prospectAt > ms(sc.Scored) {
				continue
			}
			var id string
			var score int
			var reasons, summary string
			err := tx.QueryRowContext(ctx, `SELECT id, score, score_reasons, intelligence_summary FROM leads WHERE org_id = ? AND prospect_id = ?`,
				orgID, sc.ProspectID).Scan(&id, &score, &reasons, &summary)
			if errors.Is(err, sql.ErrNoRows) {
				id = NewID("lead", now)
				if _, err := tx.ExecContext(ctx, `INSERT INTO leads (id, org_id, prospect_id, status, score, score_reasons, intelligence_summary,
					summary_source, run_id, created_at, updated_at) VALUES (?, ?, ?, 'new', ?, ?, ?, ?, ?, ?, ?)`, id, orgID, sc.ProspectID, sc.Score,
					string(sc.Reasons), sc.Summary, sc.SummarySource, runID, ms(now), ms(now)); err != nil {
					return fmt.Errorf("insert lead: %w", err)
				}
				status := LeadNew
				if err := addLeadChange(ctx, tx, id, LeadChange{Kind: "status", To: &status, Note: "scored by the msp-hunter agent", Actor: actor, At: now}); err != nil {
					return err
				}
				if err := addLeadChange(ctx, tx, id, LeadChange{Kind: "score", To: itoaPtr(sc.Score), Actor: actor, At: now}); err != nil {
					return err
				}
				out = append(out, LeadOutcome{LeadID: id, ProspectID: sc.ProspectID, Created: true, Score: sc.Score})
				continue
			}
			if err != nil {
				return fmt.Errorf("lead lookup: %w", err)
			}
			if score == sc.Score && reasons == string(sc.Reasons) && summary == sc.Summary {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE leads SET score = ?, score_reasons = ?, intelligence_summary = ?, summary_source = ?, run_id = ?,
				updated_at = ? WHERE id = ?`, sc.Score, string(sc.Reasons), sc.Summary, sc.SummarySource, runID, ms(now), id); err != nil {
				return fmt.Errorf("update lead: %w", err)
			}
			o := LeadOutcome{LeadID: id, ProspectID: sc.ProspectID, Score: sc.Score}
			if score != sc.Score {
				prev := score
				o.ScoreFrom = &prev
				if err := addLeadChange(ctx, tx, id, LeadChange{Kind: "score", From: itoaPtr(score), To: itoaPtr(sc.Score), Actor: actor, At: now}); err != nil {
					return err
				}
			}
			out = append(out, o)
		}
		return nil
	})
	return out, err
}

// LeadQuery filters and orders the pipeline.
type LeadQuery struct {
	Status, Vertical, Region, Q string
	MinScore                    *int
	Sort                        string // "score" (default) or "updated"
}

// Leads lists the organization's leads that pass the query.
func (s *Store) Leads(ctx context.Context, orgID string, q LeadQuery, p Page) ([]Lead, int, error) {
	where, args := `l.org_id = ?`, []any{orgID}
	if q.Status != "" {
		where += ` AND l.status = ?`
		args = append(args, q.Status)
	}
	if q.MinScore != nil {
		where += ` AND l.score >= ?`
		args = append(args, *q.MinScore)
	}
	if q.Vertical != "" {
		where += ` AND p.vertical = ?`
		args = append(args, q.Vertical)
	}
	if q.Region != "" {
		where += ` AND p.region = ? COLLATE NOCASE`
		args = append(args, q.Region)
	}
	if q.Q != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(strings.ToLower(q.Q)) + "%"
		where += ` AND p.search LIKE lower(?) ESCAPE '\'` // search is stored lower-case
		args = append(args, like)
	}
	order := `l.score DESC, l.id`
	if q.Sort == "updated" {
		order = `l.updated_at DESC, l.id`
	}
	return readPage(ctx, s, pageQuery{what: "leads", args: args,
		count: `SELECT COUNT(*)` + leadFrom + `WHERE ` + where,
		list:  `SELECT ` + leadColumns + leadFrom + `WHERE ` + where + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`},
		p, func(rows *sql.Rows) (Lead, error) { return scanLead(rows) })
}

// LeadByID reads one lead of the organization with its history.
func (s *Store) LeadByID(ctx context.Context, orgID, id string) (Lead, error) {
	var l Lead
	err := s.read(ctx, func(tx querier) error {
		var err error
		l, err = scanLead(tx.QueryRowContext(ctx, `SELECT `+leadColumns+leadFrom+`WHERE l.org_id = ? AND l.id = ?`, orgID, id))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		l.History, err = queryAll(ctx, tx, "lead history", `SELECT kind, from_v, to_v, note, actor, at FROM lead_history WHERE lead_id = ? ORDER BY id`,
			[]any{id}, func(rows *sql.Rows) (LeadChange, error) {
				var c LeadChange
				var at int64
				err := rows.Scan(&c.Kind, &c.From, &c.To, &c.Note, &c.Actor, &at)
				c.At = fromMS(at)
				return c, err
			})
		return err
	})
	return l, err
}

// SetLeadStatus moves a lead to status, recording who, when and why; a
// move to the status it has changes nothing (changed false).
func (s *Store) SetLeadStatus(ctx context.Context, orgID, id, status, note, actor string) (changed bool, err error) {
	now := s.now()
	err = s.write(ctx, func(tx *sql.Tx) error {
		changed = false // a write run again (PostgreSQL) starts over
		var cur string
		err := tx.QueryRowContext(ctx, `SELECT status FROM leads WHERE org_id = ? AND id = ?`, orgID, id).Scan(&cur)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("lead status: %w", err)
		}
		if cur == status {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE leads SET status = ?, updated_at = ? WHERE id = ?`, status, ms(now), id); err != nil {
			return fmt.Errorf("set lead status: %w", err)
		}
		changed = true
		return addLeadChange(ctx, tx, id, LeadChange{Kind: "status", From: &cur, To: &status, Note: note, Actor: actor, At: now})
	})
	return changed, err
}

// LeadsWonSince lists the leads moved to won since the time.
func (s *Store) LeadsWonSince(ctx context.Context, orgID string, since time.Time) ([]Lead, error) {
	return queryAll(ctx, s.reads(), "won leads", `SELECT `+leadColumns+leadFrom+`WHERE l.org_id = ? AND l.status = 'won' AND EXISTS (
		SELECT 1 FROM lead_history h WHERE h.lead_id = l.id AND h.kind = 'status' AND h.to_v = 'won' AND h.at >= ?) ORDER BY l.updated_at DESC`,
		[]any{orgID, ms(since)}, func(rows *sql.Rows) (Lead, error) { return scanLead(rows) })
}

// ConvertLead makes a won lead of the provider a client organization named
// after its prospect, and names the client in the lead's history, in one
// transaction. A lead not won is ErrLeadNotWon; one converted already,
// ErrLeadConverted.
func (s *Store) ConvertLead(ctx context.Context, providerID, leadID, actor string) (Org, error) {
	now := s.now()
	var clientID string
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		var status, name string
		var converted bool
		err := tx.QueryRowContext(ctx, `SELECT l.status, p.company,
			EXISTS (SELECT 1 FROM lead_history h WHERE h.lead_id = l.id AND h.kind = 'client')
			FROM leads l JOIN prospects p ON p.id = l.prospect_id WHERE l.org_id = ? AND l.id = ?`, providerID, leadID).
			Scan(&status, &name, &converted)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("lead to convert: %w", err)
		}
		switch {
		case converted:
			return ErrLeadConverted
		case status != "won":
			return ErrLeadNotWon
		}
		if clientID, err = createClient(ctx, tx, NewClient{ProviderID: providerID, Name: valid.Clip(name, valid.MaxName), Creator: actor}, now); err != nil {
			return err
		}
		return addLeadChange(ctx, tx, leadID, LeadChange{Kind: "client", To: &clientID, Note: "became the client " + name, Actor: actor, At: now})
	})
	if err != nil {
		return Org{}, err
	}
	return s.Org(ctx, clientID)
}
