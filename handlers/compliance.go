package handlers

import (
	"errors"
	"mime"
	"net/http"

	"garrison/agents"
	"garrison/compliance"
	"garrison/store"
	"garrison/timestamp"
)

type resultCounts struct {
	Passed        int `json:"passed"`
	Failed        int `json:"failed"`
	Manual        int `json:"manual"`
	NotApplicable int `json:"not_applicable"`
}

type frameworkView struct {
	ID                   string       `json:"id"`
	Name                 string       `json:"name"`
	Version              string       `json:"version"`
	Enabled              bool         `json:"enabled"`
	CompletionPercentage int          `json:"completion_percentage"`
	Applicable           int          `json:"applicable"`
	Assessed             int          `json:"assessed"`
	Passing              int          `json:"passing"`
	Failing              int          `json:"failing"`
	NotAssessed          int          `json:"not_assessed"`
	OpenGaps             int          `json:"open_gaps"`
	LastAuditAt          *string      `json:"last_audit_at"`
	LastReportID         *string      `json:"last_report_id"`
	ControlsTotal        int          `json:"controls_total"`
	Results              resultCounts `json:"results"`
}

func (a *API) complianceOverview(w http.ResponseWriter, r *http.Request) error {
	statuses, err := a.Compliance.Overview(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	views := make([]frameworkView, len(statuses))
	for i, s := range statuses {
		views[i] = frameworkView{ID: s.ID, Name: s.Name, Version: s.Version, Enabled: s.Enabled,
			CompletionPercentage: s.Summary.CompletionPercentage, Applicable: s.Summary.Applicable, Assessed: s.Summary.Assessed,
			Passing: s.Summary.Passing, Failing: s.Summary.Failing, NotAssessed: s.Summary.NotAssessed, OpenGaps: s.OpenGaps, LastAuditAt: timestamp.Optional(s.LastAuditAt),
			LastReportID: optString(s.LastReportID), ControlsTotal: s.ControlsTotal,
			Results: resultCounts{s.Summary.Passed, s.Summary.Failed, s.Summary.Manual, s.Summary.NotApplicable}}
	}
	writeData(w, http.StatusOK, map[string]any{"frameworks": views})
	return nil
}

type auditAccepted struct {
	ReportID                   string   `json:"report_id"`
	AgentRunID                 string   `json:"agent_run_id"`
	Status                     string   `json:"status"`
	Frameworks                 []string `json:"frameworks"`
	EstimatedCompletionSeconds int      `json:"estimated_completion_seconds"`
	CreatedAt                  string   `json:"created_at"`
}

// startAudit queues an audit: a run of the compliance agent, charged to
// the organization's agent-run budget like any other.
func (a *API) startAudit(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	p := principalFrom(r.Context())
	acc, err := a.Agents.StartAudit(r.Context(), agents.Request{Params: body, Decode: decodeJSON, Plan: p.Plan, Who: p.Actor}, func() error { return a.ChargeAgentRun(w, r, p.OrgID) })
	if err != nil {
		return err
	}
	auditTarget(r, acc.Audit.ID)
	auditDetail(r, "agent_run_id", acc.Run.ID)
	writeData(w, http.StatusAccepted, auditAccepted{ReportID: acc.Audit.ID, AgentRunID: acc.Run.ID, Status: acc.Audit.Status,
		Frameworks: acc.Audit.Frameworks, EstimatedCompletionSeconds: acc.EstimatedCompletionSeconds,
		CreatedAt: timestamp.Format(acc.Audit.CreatedAt)})
	return nil
}

func (a *API) listAudits(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	audits, total, err := a.Compliance.Audits(r.Context(), principalFrom(r.Context()).OrgID, page)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(audits, compliance.AuditReport.Header), total, page)
	return nil
}

func (a *API) getAudit(w http.ResponseWriter, r *http.Request) error {
	doc, err := a.Compliance.AuditDocument(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, doc)
	return nil
}

func (a *API) downloadAudit(w http.ResponseWriter, r *http.Request) error {
	format, _ := queryValue(r, "format")
	doc, err := a.Compliance.Report(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"), format)
	if err != nil {
		return err
	}
	writeDocument(w, doc)
	return nil
}

// writeDocument answers with a file to save. A report or policy opened from
// the server's origin runs nothing and loads nothing: it has no scripts,
// and the policy says so.
func writeDocument(w http.ResponseWriter, doc compliance.Document) {
	h := w.Header()
	h["Content-Type"] = []string{doc.ContentType}
	h["Content-Disposition"] = []string{mime.FormatMediaType("attachment", map[string]string{"filename": doc.Filename})}
	h["Content-Security-Policy"] = []string{"default-src 'none'; style-src 'unsafe-inline'; sandbox"}
	w.WriteHeader(http.StatusOK)
	w.Write(doc.Body)
}

type attestRequest struct {
	Status      string  `json:"status"`
	Note        string  `json:"note"`
	EvidenceURL string  `json:"evidence_url"`
	ExpiresAt   *string `json:"expires_at"`
}

func (a *API) attestControl(w http.ResponseWriter, r *http.Request) error {
	var req attestRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	at, err := a.Compliance.Attest(r.Context(), compliance.AttestRequest{OrgID: p.OrgID, Framework: r.PathValue("framework"),
		ControlID: r.PathValue("control_id"), Status: req.Status, Note: req.Note, EvidenceURL: req.EvidenceURL,
		ExpiresAt: req.ExpiresAt, Actor: p.ID})
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, at)
	return nil
}

type templateView struct {
	ID          string              `json:"id"`
	Name        string              `json:"name"`
	Description string              `json:"description"`
	Controls    map[string][]string `json:"controls"`
	DownloadURL string              `json:"download_url"`
	Adopted     bool                `json:"adopted"`
	AdoptedAt   *string             `json:"adopted_at"`
	AdoptedBy   *string             `json:"adopted_by"`
}

func newTemplateView(t compliance.TemplateStatus) templateView {
	v := templateView{ID: t.ID, Name: t.Name, Description: t.Description, Controls: t.Controls,
		DownloadURL: "/api/compliance/templates/" + t.ID + "/download"}
	if t.Adoption != nil {
		v.Adopted, v.AdoptedAt, v.AdoptedBy = true, timestamp.Optional(&t.Adoption.AdoptedAt), &t.Adoption.AdoptedBy
	}
	return v
}

func (a *API) listTemplates(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	all, err := a.Compliance.Templates(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	shown := all[min(page.Offset, len(all)):min(page.Offset+page.Limit, len(all))]
	writeList(w, mapSlice(shown, newTemplateView), len(all), page)
	return nil
}

func (a *API) downloadTemplate(w http.ResponseWriter, r *http.Request) error {
	format, _ := queryValue(r, "format")
	doc, err := a.Compliance.TemplateDocument(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"), format)
	if err != nil {
		return err
	}
	writeDocument(w, doc)
	return nil
}

func (a *API) adoptTemplate(w http.ResponseWriter, r *http.Request) error {
	if _, err := readBody(r); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	t, created, err := a.Compliance.Adopt(r.Context(), p.OrgID, r.PathValue("id"), p.ID)
	if err != nil {
		return err
	}
	if created {
		auditDetail(r, "adopted", "now")
	} else {
		auditDetail(r, "adopted", "already")
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeData(w, status, newTemplateView(t))
	return nil
}

type remediateRequest struct {
	GapID     string `json:"gap_id"`
	AutoApply *bool  `json:"auto_apply"`
}

type remediationView struct {
	RemediationID    string         `json:"remediation_id"`
	GapID            string         `json:"gap_id"`
	Framework        string         `json:"framework"`
	ControlID        string         `json:"control_id"`
	Status           string         `json:"status"`
	RemediationSteps []string       `json:"remediation_steps"`
	Changes          []store.Change `json:"changes"`
	ControlResult    *string        `json:"control_result"`
	ControlPasses    *bool          `json:"control_passes"`
	Message          string         `json:"message"`
	RequestedBy      string         `json:"requested_by"`
	CreatedAt        string         `json:"created_at"`
}

func (a *API) remediate(w http.ResponseWriter, r *http.Request) error {
	var req remediateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	res, err := a.Compliance.Remediate(r.Context(), compliance.RemediateRequest{OrgID: p.OrgID, GapID: req.GapID,
		AutoApply: req.AutoApply, Actor: p.ID, MayAdminister: p.level() >= Admin})
	if errors.Is(err, compliance.ErrNeedsAdmin) {
		return authorize(p, Admin)
	}
	if err != nil {
		return err
	}
	auditTarget(r, res.ID)
	auditDetail(r, "gap_id", res.GapID)
	writeData(w, http.StatusOK, remediationView{RemediationID: res.ID, GapID: res.GapID, Framework: res.Gap.Framework,
		ControlID: res.Gap.ControlID, Status: res.Status, RemediationSteps: res.Steps, Changes: res.Changes,
		ControlResult: optString(res.ControlResult), ControlPasses: res.PassesNow, Message: res.Message,
		RequestedBy: res.Actor, CreatedAt: timestamp.Format(res.CreatedAt)})
	return nil
}
