package compliance

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"

	"garrison/event"
	"garrison/sheet"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
	"garrison/wording"
)

// Report formats.
const (
	FormatJSON = "json"
	FormatCSV  = "csv"
	FormatHTML = "html"
	FormatMD   = "md"
)

// Document is a file to download.
type Document struct {
	Filename    string
	ContentType string
	Body        []byte
}

// AuditHeader is what a list of audits shows of each.
type AuditHeader struct {
	ReportID    string             `json:"report_id"`
	Status      string             `json:"status"`
	Frameworks  []string           `json:"frameworks"`
	AgentRunID  string             `json:"agent_run_id"`
	RequestedBy string             `json:"requested_by"`
	CreatedAt   string             `json:"created_at"`
	StartedAt   *string            `json:"started_at"`
	CompletedAt *string            `json:"completed_at"`
	Summary     map[string]Summary `json:"summary"`
}

// Header is the audit's list entry.
func (r AuditReport) Header() AuditHeader {
	return AuditHeader{ReportID: r.ID, Status: r.Status, Frameworks: r.Frameworks, AgentRunID: r.RunID, RequestedBy: r.RequestedBy,
		CreatedAt: timestamp.Format(r.CreatedAt), StartedAt: timestamp.Optional(r.StartedAt),
		CompletedAt: timestamp.Optional(r.CompletedAt), Summary: r.Summary}
}

// AuditDocument is an audit as the API and the JSON report show it.
type AuditDocument struct {
	AuditHeader
	Organization string            `json:"organization"`
	Error        *string           `json:"error"`
	Scope        string            `json:"scope"`
	Method       string            `json:"method"`
	Results      []FrameworkResult `json:"results"`
	Gaps         []GapView         `json:"gaps"`
	// RequesterLabel names the requester in the printed report.
	RequesterLabel string `json:"-"`
	// people names the requester and the attesters in the printed report.
	people People
}

// GapView is a gap the audit found, with its state now.
type GapView struct {
	AuditGap
	Status        string  `json:"status"`
	ClosedAt      *string `json:"closed_at"`
	ClosedByAudit *string `json:"closed_by_report_id"`
}

// Scope and method, as reports state them.
const (
	scopeText = "The organization's security operations data held by Garrison (accounts, API keys, alerts, events, " +
		"DNS telemetry, tickets, adopted policies) and the attestations its administrators recorded."
	methodText = "Each control is assessed by the automated checks mapped to it, over a snapshot of the data taken when " +
		"the audit ran: it fails if any check fails, passes if at least one passes and none fails, and is not applicable " +
		"if every check is. A control no check can evidence takes the result an administrator attested, until the " +
		"attestation expires; otherwise it is not assessed (manual) and needs an attestation. Completion is the share of applicable " +
		"controls that pass, every applicable control counted whether it was assessed or not."
)

// Document builds the audit's document for the organization.
func (r AuditReport) Document(organization string) AuditDocument {
	d := AuditDocument{AuditHeader: r.Header(), Organization: organization, Scope: scopeText, Method: methodText, Gaps: []GapView{}}
	if r.Status == store.AuditFailed && r.Error != "" {
		d.Error = &r.Error
	}
	if r.Results == nil {
		return d
	}
	d.Results = r.Results.Frameworks
	for _, g := range r.Results.Gaps {
		v := GapView{AuditGap: g, Status: "open"}
		if cur, ok := r.Gaps[g.GapID]; ok {
			v.Status, v.ClosedAt = cur.Status, timestamp.Optional(cur.ClosedAt)
			if cur.ClosedAuditID != "" {
				v.ClosedByAudit = &cur.ClosedAuditID
			}
		}
		d.Gaps = append(d.Gaps, v)
	}
	return d
}

// Report renders a completed audit as a file: JSON, CSV (one row per
// control) or a printable HTML page.
func (e *Engine) Report(ctx context.Context, orgID, id, format string) (Document, error) {
	if format == "" {
		format = FormatJSON
	}
	if format != FormatJSON && format != FormatCSV && format != FormatHTML {
		return Document{}, valid.Field("format", "must be json, csv or html")
	}
	r, err := e.Audit(ctx, orgID, id)
	if err != nil {
		return Document{}, err
	}
	if r.Status != store.AuditCompleted || r.Results == nil {
		return Document{}, conflict(fmt.Sprintf("Audit %s is %s; its report can be downloaded once it has completed", r.ID, r.Status))
	}
	org, err := e.store.Org(ctx, orgID)
	if err != nil {
		return Document{}, err
	}
	doc := r.Document(org.Name)
	if doc.people, err = e.people(ctx, orgID); err != nil {
		return Document{}, err
	}
	doc.RequesterLabel = doc.people.Name(r.RequestedBy)
	base := "garrison-audit-" + r.ID
	switch format {
	case FormatCSV:
		body, err := auditCSV(doc)
		return Document{Filename: base + ".csv", ContentType: "text/csv; charset=utf-8", Body: body}, err
	case FormatHTML:
		body, err := auditHTML(doc)
		return Document{Filename: base + ".html", ContentType: "text/html; charset=utf-8", Body: body}, err
	}
	body, err := json.MarshalIndent(doc, "", "  ")
	return Document{Filename: base + ".json", ContentType: "application/json; charset=utf-8", Body: append(body, '\n')}, err
}

// auditCSV writes one row per control of each framework.
func auditCSV(d AuditDocument) ([]byte, error) {
	gapSeverity := map[string]event.Severity{}
	for _, g := range d.Gaps {
		gapSeverity[g.GapID] = g.Severity
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"framework", "control", "title", "result", "evidence", "gap_id", "severity"})
	// First a row per framework with its counts (no control), then a row
	// per control.
	for _, fr := range d.Results {
		w.Write(sheet.Safe(fr.Framework, "", "Summary of "+fr.Name, "", summaryText(fr.Summary), "", ""))
	}
	for _, fr := range d.Results {
		for _, c := range fr.Controls {
			gap, severity := "", ""
			if c.GapID != nil {
				gap, severity = *c.GapID, gapSeverity[*c.GapID].String()
			}
			w.Write(sheet.Safe(fr.Framework, c.ControlID, c.Title, c.Result, d.evidence(c), gap, severity))
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// summaryText states a framework's counts and completion in a sentence.
func summaryText(s Summary) string {
	return fmt.Sprintf("Completion %d%%: %d of %s pass. %d assessed (%d passing, %d failing), %d not assessed, %d not applicable; %s in all.",
		s.CompletionPercentage, s.Passing, wording.Count(s.Applicable, "applicable control", "applicable controls"), s.Assessed,
		s.Passing, s.Failing, s.NotAssessed, s.NotApplicable, wording.Count(s.ControlsTotal, "control", "controls"))
}

// evidence is a control's evidence in one line, people named.
func (d AuditDocument) evidence(c ControlResult) string {
	var parts []string
	for _, f := range c.Findings {
		parts = append(parts, f.Title+": "+f.Result+". "+f.Evidence)
	}
	if a := c.Attestation; a != nil && c.Basis == "attestation" {
		text := "Attested " + a.Status + " by " + d.people.Name(a.AttestedBy) + " on " + dateText(&a.AttestedAt)
		if a.Note != "" {
			text += ": " + a.Note
		}
		if a.EvidenceURL != nil {
			text += " (" + *a.EvidenceURL + ")"
		}
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return "No automated check evidences this control and it has not been attested."
	}
	return strings.Join(parts, " | ")
}

// AuditDocument is an audit as the API shows it, its organization named.
func (e *Engine) AuditDocument(ctx context.Context, orgID, id string) (AuditDocument, error) {
	r, err := e.Audit(ctx, orgID, id)
	if err != nil {
		return AuditDocument{}, err
	}
	org, err := e.store.Org(ctx, orgID)
	if err != nil {
		return AuditDocument{}, err
	}
	return r.Document(org.Name), nil
}
