package compliance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"garrison/fault"
	"garrison/store"
)

// conflict refuses a request that does not fit the record's state (a
// report not completed yet, a closed gap, an automated control).
func conflict(message string) error { return fault.New(fault.Conflict, message) }

// ErrNeedsAdmin refuses a change only an administrator may make.
var ErrNeedsAdmin = errors.New("this change needs an administrator")

// AuditReport is an audit with its parsed results and the gaps it found as
// they stand now.
type AuditReport struct {
	store.Audit
	Summary map[string]Summary
	Results *AuditResults        // nil until completed
	Gaps    map[string]store.Gap // current state of the gaps the audit found, by id
}

// Audits lists the organization's audits, newest first.
func (e *Engine) Audits(ctx context.Context, orgID string, p store.Page) ([]AuditReport, int, error) {
	audits, total, err := e.store.Audits(ctx, orgID, p)
	if err != nil {
		return nil, 0, err
	}
	out := make([]AuditReport, len(audits))
	for i, a := range audits {
		if out[i], err = parseAudit(a); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// Audit reads one audit with its results.
func (e *Engine) Audit(ctx context.Context, orgID, id string) (AuditReport, error) {
	a, err := e.store.Audit(ctx, orgID, id)
	if err != nil {
		return AuditReport{}, err
	}
	r, err := parseAudit(a)
	if err != nil || r.Results == nil {
		return r, err
	}
	var ids []string
	for _, g := range r.Results.Gaps {
		ids = append(ids, g.GapID)
	}
	r.Gaps, err = e.store.GapsByID(ctx, orgID, ids)
	return r, err
}

// AuditByRun reads the audit a compliance run carries out.
func (e *Engine) AuditByRun(ctx context.Context, orgID, runID string) (store.Audit, error) {
	return e.store.AuditByRun(ctx, orgID, runID)
}

func parseAudit(a store.Audit) (AuditReport, error) {
	r := AuditReport{Audit: a}
	if a.Summary != nil {
		if err := json.Unmarshal(a.Summary, &r.Summary); err != nil {
			return r, fmt.Errorf("audit %s summary: %w", a.ID, err)
		}
		for id, s := range r.Summary {
			s.derive()
			r.Summary[id] = s
		}
	}
	if a.Results != nil && a.Status == store.AuditCompleted {
		r.Results = &AuditResults{}
		if err := json.Unmarshal(a.Results, r.Results); err != nil {
			return r, fmt.Errorf("audit %s results: %w", a.ID, err)
		}
		for i := range r.Results.Frameworks {
			r.Results.Frameworks[i].Summary.derive()
		}
	}
	return r, nil
}

// FrameworkStatus is where an organization stands on one framework: the
// latest completed audit that covered it, and the gaps open now.
type FrameworkStatus struct {
	ID            string
	Name          string
	Version       string
	Enabled       bool
	OpenGaps      int
	LastAuditAt   *time.Time
	LastReportID  string
	ControlsTotal int
	Summary       Summary // NotAudited before the first audit
}

// Overview reads each framework's status.
func (e *Engine) Overview(ctx context.Context, orgID string) ([]FrameworkStatus, error) {
	latest, err := e.store.LatestAudits(ctx, orgID)
	if err != nil {
		return nil, err
	}
	open, err := e.store.OpenGapCounts(ctx, orgID)
	if err != nil {
		return nil, err
	}
	var out []FrameworkStatus
	for _, fw := range frameworks {
		s := FrameworkStatus{ID: fw.ID, Name: fw.Name, Version: fw.Version, Enabled: true, OpenGaps: open[fw.ID],
			ControlsTotal: len(fw.Controls), Summary: NotAudited(len(fw.Controls))}
		if a, ok := latest[fw.ID]; ok {
			r, err := parseAudit(a)
			if err != nil {
				return nil, err
			}
			s.LastAuditAt, s.LastReportID, s.Summary = a.CompletedAt, a.ID, r.Summary[fw.ID]
		}
		out = append(out, s)
	}
	return out, nil
}

// OpenGaps counts the organization's open gaps in all frameworks.
func (e *Engine) OpenGaps(ctx context.Context, orgID string) (int, error) {
	open, err := e.store.OpenGapCounts(ctx, orgID)
	n := 0
	for _, c := range open {
		n += c
	}
	return n, err
}

// AuditSummary is a completed audit's summary by framework.
func AuditSummary(a store.Audit) (map[string]Summary, error) {
	r, err := parseAudit(a)
	return r.Summary, err
}
