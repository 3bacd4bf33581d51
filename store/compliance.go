package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"garrison/event"
)

// Audit statuses: an audit's status is its compliance run's, with a
// cancelled run counted as failed.
const (
	AuditQueued    = "queued"
	AuditRunning   = "running"
	AuditCompleted = "completed"
	AuditFailed    = "failed"
)

// Audit is a compliance audit: one run of the compliance agent over some
// frameworks. Summary and Results are the engine's JSON, nil until the
// audit completes (Results only on Audit, not in lists).
type Audit struct {
	ID          string
	OrgID       string
	RunID       string
	Frameworks  []string
	Status      string
	RequestedBy string
	CreatedAt   time.Time
	StartedAt   *time.Time
	CompletedAt *time.Time
	Error       string
	Summary     json.RawMessage
	Results     json.RawMessage
}

// NewAudit asks QueueRun to store an audit with the run.
type NewAudit struct {
	Frameworks []string
}

const auditColumns = `a.id, a.org_id, a.run_id, a.frameworks, CASE r.status WHEN 'cancelled' THEN 'failed' ELSE r.status END,
	a.requested_by, a.created_at, r.started_at, a.completed_at, r.error, a.summary`

func scanAudit(row interface{ Scan(...any) error }, results bool) (Audit, error) {
	var a Audit
	var frameworks string
	var created int64
	var started, completed sql.NullInt64
	var summary, res sql.NullString
	dest := []any{&a.ID, &a.OrgID, &a.RunID, &frameworks, &a.Status, &a.RequestedBy, &created, &started, &completed, &a.Error, &summary}
	if results {
		dest = append(dest, &res)
	}
	err := row.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return Audit{}, ErrNotFound
	}
	if err != nil {
		return Audit{}, err
	}
	a.Frameworks = strings.Split(frameworks, ",")
	a.CreatedAt, a.StartedAt, a.CompletedAt = fromMS(created), optMS(started), optMS(completed)
	if summary.Valid {
		a.Summary = json.RawMessage(summary.String)
	}
	if res.Valid {
		a.Results = json.RawMessage(res.String)
	}
	return a, nil
}

// insertAudit stores the audit of a run being queued, in its transaction.
func insertAudit(ctx context.Context, tx *sql.Tx, run AgentRun, n NewAudit, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO compliance_audits (id, org_id, run_id, frameworks, requested_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, NewID("rpt", now), run.OrgID, run.ID, strings.Join(n.Frameworks, ","), run.RequestedBy, ms(now))
	if err != nil {
		return fmt.Errorf("queue audit: %w", err)
	}
	return nil
}

// Audits lists an organization's audits, newest first, without results.
func (s *Store) Audits(ctx context.Context, orgID string, p Page) ([]Audit, int, error) {
	return readPage(ctx, s, pageQuery{what: "audits",
		count: `SELECT COUNT(*) FROM compliance_audits WHERE org_id = ?`,
		list: `SELECT ` + auditColumns + ` FROM compliance_audits a JOIN agent_runs r ON r.id = a.run_id
			WHERE a.org_id = ? ORDER BY a.id DESC LIMIT ? OFFSET ?`,
		args: []any{orgID}}, p, func(rows *sql.Rows) (Audit, error) { return scanAudit(rows, false) })
}

// Audit reads one audit with its results.
func (s *Store) Audit(ctx context.Context, orgID, id string) (Audit, error) {
	a, err := scanAudit(s.reads().QueryRowContext(ctx, `SELECT `+auditColumns+`, a.results
		FROM compliance_audits a JOIN agent_runs r ON r.id = a.run_id WHERE a.id = ? AND a.org_id = ?`, id, orgID), true)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return a, fmt.Errorf("audit: %w", err)
	}
	return a, err
}

// AuditByRun reads the audit a run of the compliance agent carries out.
func (s *Store) AuditByRun(ctx context.Context, orgID, runID string) (Audit, error) {
	a, err := scanAudit(s.reads().QueryRowContext(ctx, `SELECT `+auditColumns+`
		FROM compliance_audits a JOIN agent_runs r ON r.id = a.run_id WHERE a.run_id = ? AND a.org_id = ?`, runID, orgID), false)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return a, fmt.Errorf("audit of run: %w", err)
	}
	return a, err
}

// LatestAudits returns, for each framework audited so far, the newest
// completed audit that covered it (without results).
func (s *Store) LatestAudits(ctx context.Context, orgID string) (map[string]Audit, error) {
	// Completed audits newest first; the first one seen per framework wins.
	// Bounded: four frameworks need at most the four newest that differ.
	rows, err := s.reads().QueryContext(ctx, `SELECT `+auditColumns+` FROM compliance_audits a JOIN agent_runs r ON r.id = a.run_id
		WHERE a.org_id = ? AND a.completed_at IS NOT NULL AND r.status = 'completed' ORDER BY a.completed_at DESC, a.id DESC LIMIT 64`, orgID)
	if err != nil {
		return nil, fmt.Errorf("latest audits: %w", err)
	}
	defer rows.Close()
	out := map[string]Audit{}
	for rows.Next() {
		a, err := scanAudit(rows, false)
		if err != nil {
			return nil, fmt.Errorf("latest audits: %w", err)
		}
		for _, f := range a.Frameworks {
			if _, ok := out[f]; !ok {
				out[f] = a
			}
		}
	}
	return out, rows.Err()
}

// GapInput is a control an audit found failing.
type GapInput struct {
	Framework string
	ControlID string
	Severity  event.Severity
	Detail    json.RawMessage // what failed, its evidence and the steps
}

// GapKey names a control of a framework: "soc2/CC6.1".
func GapKey(framework, controlID string) string { return framework + "/" + controlID }

// CompleteAudit records an audit's outcome in one transaction: each failing
// control's open gap is updated (keeping its id) or opened, the open gaps
// of the audited frameworks whose controls no longer fail are closed, and
// then build, given the gap ids by GapKey, makes the results and summary
// stored with the audit.
func (s *Store) CompleteAudit(ctx context.Context, orgID, auditID string, frameworks []string, failing []GapInput,
	build func(gapIDs map[string]string) (results, summary []byte, err error)) error {
	now := s.now()
	return s.write(ctx, func(tx *sql.Tx) error {
		ids := map[string]string{}
		for _, g := range failing {
			var id string
			err := tx.QueryRowContext(ctx, `UPDATE compliance_gaps SET severity = ?, detail = ?, last_audit_id = ?, updated_at = ?
				WHERE org_id = ? AND framework = ? AND control_id = ? AND status = 'open' RETURNING id`,
				g.Severity, string(g.Detail), auditID, ms(now), orgID, g.Framework, g.ControlID).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				id = NewID("gap", now)
				_, err = tx.ExecContext(ctx, `INSERT INTO compliance_gaps (id, org_id, framework, control_id, status, severity, detail,
					opened_audit_id, last_audit_id, opened_at, updated_at) VALUES (?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?)`,
					id, orgID, g.Framework, g.ControlID, g.Severity, string(g.Detail), auditID, auditID, ms(now), ms(now))
			}
			if err != nil {
				return fmt.Errorf("record gap: %w", err)
			}
			ids[GapKey(g.Framework, g.ControlID)] = id
		}
		for _, f := range frameworks {
			if _, err := tx.ExecContext(ctx, `UPDATE compliance_gaps SET status = 'closed', closed_audit_id = ?, closed_at = ?, updated_at = ?
				WHERE org_id = ? AND framework = ? AND status = 'open' AND last_audit_id <> ?`,
				auditID, ms(now), ms(now), orgID, f, auditID); err != nil {
				return fmt.Errorf("close fixed gaps: %w", err)
			}
		}
		results, summary, err := build(ids)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE compliance_audits SET results = ?, summary = ?, completed_at = ? WHERE id = ? AND org_id = ?`,
			string(results), string(summary), ms(now), auditID, orgID)
		return expectOne(res, err, "complete audit")
	})
}

// Gap is a failing control, open until an audit finds it passing.
type Gap struct {
	ID            string
	OrgID         string
	Framework     string
	ControlID     string
	Status        string // open or closed
	Severity      event.Severity
	Detail        json.RawMessage
	OpenedAuditID string
	LastAuditID   string
	ClosedAuditID string
	OpenedAt      time.Time
	UpdatedAt     time.Time
	ClosedAt      *time.Time
}

const gapColumns = `id, org_id, framework, control_id, status, severity, detail, opened_audit_id, last_audit_id,
	COALESCE(closed_audit_id, ''), opened_at, updated_at, closed_at`

func scanGap(row interface{ Scan(...any) error }) (Gap, error) {
	var g Gap
	var detail string
	var opened, updated int64
	var closed sql.NullInt64
	err := row.Scan(&g.ID, &g.OrgID, &g.Framework, &g.ControlID, &g.Status, &g.Severity, &detail, &g.OpenedAuditID,
		&g.LastAuditID, &g.ClosedAuditID, &opened, &updated, &closed)
	if errors.Is(err, sql.ErrNoRows) {
		return Gap{}, ErrNotFound
	}
	if err != nil {
		return Gap{}, err
	}
	g.Detail, g.OpenedAt, g.UpdatedAt, g.ClosedAt = json.RawMessage(detail), fromMS(opened), fromMS(updated), optMS(closed)
	return g, nil
}

// Gap reads one gap of the organization.
func (s *Store) Gap(ctx context.Context, orgID, id string) (Gap, error) {
	g, err := scanGap(s.reads().QueryRowContext(ctx, `SELECT `+gapColumns+` FROM compliance_gaps WHERE id = ? AND org_id = ?`, id, orgID))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return g, fmt.Errorf("gap: %w", err)
	}
	return g, err
}

// GapsByID reads the organization's gaps among ids (at most maxGapLookup).
func (s *Store) GapsByID(ctx context.Context, orgID string, ids []string) (map[string]Gap, error) {
	out := map[string]Gap{}
	for len(ids) > 0 {
		n := min(len(ids), 200)
		chunk := ids[:n]
		ids = ids[n:]
		args := []any{orgID}
		for _, id := range chunk {
			args = append(args, id)
		}
		rows, err := s.reads().QueryContext(ctx, `SELECT `+gapColumns+` FROM compliance_gaps WHERE org_id = ? AND id IN (?`+
			strings.Repeat(", ?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("gaps: %w", err)
		}
		for rows.Next() {
			g, err := scanGap(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("gaps: %w", err)
			}
			out[g.ID] = g
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("gaps: %w", err)
		}
	}
	return out, nil
}

// OpenGapCounts counts the organization's open gaps per framework.
func (s *Store) OpenGapCounts(ctx context.Context, orgID string) (map[string]int, error) {
	rows, err := s.reads().QueryContext(ctx, `SELECT framework, COUNT(*) FROM compliance_gaps
		WHERE org_id = ? AND status = 'open' GROUP BY framework`, orgID)
	if err != nil {
		return nil, fmt.Errorf("open gaps: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var f string
		var n int
		if err := rows.Scan(&f, &n); err != nil {
			return nil, fmt.Errorf("open gaps: %w", err)
		}
		out[f] = n
	}
	return out, rows.Err()
}

// Attestation is an admin's statement about a control.
type Attestation struct {
	Framework   string
	ControlID   string
	Status      string // pass, fail or not_applicable
	Note        string
	EvidenceURL string
	ExpiresAt   *time.Time
	AttestedBy  string
	AttestedAt  time.Time
}

// Attest records (or replaces) the attestation of a control.
func (s *Store) Attest(ctx context.Context, orgID string, a Attestation) (Attestation, error) {
	now := s.now()
	a.AttestedAt = fromMS(ms(now))
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO compliance_attestations (org_id, framework, control_id, status, note, evidence_url,
			expires_at, attested_by, attested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (org_id, framework, control_id) DO UPDATE SET status = excluded.status, note = excluded.note,
			evidence_url = excluded.evidence_url, expires_at = excluded.expires_at, attested_by = excluded.attested_by,
			attested_at = excluded.attested_at`,
			orgID, a.Framework, a.ControlID, a.Status, a.Note, a.EvidenceURL, nullMS(a.ExpiresAt), a.AttestedBy, ms(now))
		if err != nil {
			return fmt.Errorf("attest: %w", err)
		}
		return nil
	})
	return a, err
}

// Attestations returns the organization's attestations by GapKey.
func (s *Store) Attestations(ctx context.Context, orgID string) (map[string]Attestation, error) {
	rows, err := s.reads().QueryContext(ctx, `SELECT framework, control_id, status, note, evidence_url, expires_at, attested_by,
		attested_at FROM compliance_attestations WHERE org_id = ?`, orgID)
	if err != nil {
		return nil, fmt.Errorf("attestations: %w", err)
	}
	defer rows.Close()
	out := map[string]Attestation{}
	for rows.Next() {
		var a Attestation
		var expires sql.NullInt64
		var at int64
		if err := rows.Scan(&a.Framework, &a.ControlID, &a.Status, &a.Note, &a.EvidenceURL, &expires, &a.AttestedBy, &at); err != nil {
			return nil, fmt.Errorf("attestations: %w", err)
		}
		a.ExpiresAt, a.AttestedAt = optMS(expires), fromMS(at)
		out[GapKey(a.Framework, a.ControlID)] = a
	}
	return out, rows.Err()
}

// PolicyAdoption records that an organization adopted a policy template.
type PolicyAdoption struct {
	TemplateID string
	AdoptedBy  string
	AdoptedAt  time.Time
}

// AdoptPolicy records an adoption; adopting again keeps the first record.
// created says whether this call made it.
func (s *Store) AdoptPolicy(ctx context.Context, orgID, templateID, actor string) (a PolicyAdoption, created bool, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		var err error
		created, err = adoptPolicy(ctx, tx, orgID, templateID, actor, s.now())
		if err != nil {
			return err
		}
		a, err = scanAdoption(tx.QueryRowContext(ctx, `SELECT template_id, adopted_by, adopted_at FROM policy_adoptions
			WHERE org_id = ? AND template_id = ?`, orgID, templateID))
		return err
	})
	return a, created, err
}

func adoptPolicy(ctx context.Context, tx *sql.Tx, orgID, templateID, actor string, now time.Time) (bool, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO policy_adoptions (org_id, template_id, adopted_by, adopted_at) VALUES (?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, orgID, templateID, actor, ms(now))
	if err != nil {
		return false, fmt.Errorf("adopt policy: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func scanAdoption(row interface{ Scan(...any) error }) (PolicyAdoption, error) {
	var a PolicyAdoption
	var at int64
	if err := row.Scan(&a.TemplateID, &a.AdoptedBy, &at); err != nil {
		return a, fmt.Errorf("policy adoption: %w", err)
	}
	a.AdoptedAt = fromMS(at)
	return a, nil
}

// PolicyAdoptions returns the organization's adoptions by template id.
func (s *Store) PolicyAdoptions(ctx context.Context, orgID string) (map[string]PolicyAdoption, error) {
	rows, err := s.reads().QueryContext(ctx, `SELECT template_id, adopted_by, adopted_at FROM policy_adoptions WHERE org_id = ?`, orgID)
	if err != nil {
		return nil, fmt.Errorf("policy adoptions: %w", err)
	}
	defer rows.Close()
	out := map[string]PolicyAdoption{}
	for rows.Next() {
		a, err := scanAdoption(rows)
		if err != nil {
			return nil, err
		}
		out[a.TemplateID] = a
	}
	return out, rows.Err()
}
