package compliance

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"garrison/event"
	"garrison/store"
	"garrison/timestamp"
)

// Results of a control or a check.
const (
	Pass          = "pass"
	Fail          = "fail"
	Manual        = "manual"
	NotApplicable = "not_applicable"
)

// Config configures the engine.
type Config struct {
	Store    *store.Store
	Now      func() time.Time
	Settings Settings
}

// Engine evaluates, records and reports compliance.
type Engine struct {
	store    *store.Store
	now      func() time.Time
	settings Settings
}

// New makes an engine.
func New(cfg Config) *Engine {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Engine{store: cfg.Store, now: cfg.Now, settings: cfg.Settings}
}

// ControlResult is a control's outcome in an audit.
type ControlResult struct {
	ControlID string `json:"control_id"`
	Title     string `json:"title"`
	Family    string `json:"family"`
	Result    string `json:"result"`
	// Basis says what the result rests on: "checks" (automated),
	// "attestation" or "none" (manual, nobody attested it).
	Basis       string           `json:"basis"`
	Findings    []Finding        `json:"findings"`
	Attestation *AttestationView `json:"attestation"`
	GapID       *string          `json:"gap_id"`
}

// AttestationView is an attestation as reports show it.
type AttestationView struct {
	Status      string  `json:"status"`
	Note        string  `json:"note"`
	EvidenceURL *string `json:"evidence_url"`
	ExpiresAt   *string `json:"expires_at"`
	Expired     bool    `json:"expired"`
	AttestedBy  string  `json:"attested_by"`
	AttestedAt  string  `json:"attested_at"`
}

func newAttestationView(a store.Attestation, now time.Time) *AttestationView {
	v := &AttestationView{Status: a.Status, Note: a.Note, ExpiresAt: timestamp.Optional(a.ExpiresAt),
		Expired: a.ExpiresAt != nil && !a.ExpiresAt.After(now), AttestedBy: a.AttestedBy, AttestedAt: timestamp.Format(a.AttestedAt)}
	if a.EvidenceURL != "" {
		v.EvidenceURL = &a.EvidenceURL
	}
	return v
}

// Summary counts a framework's controls by result. Completion is over
// every applicable control, assessed or not: a control nobody assessed
// (manual: no check evidences it and no attestation holds) is not passing.
type Summary struct {
	ControlsTotal int `json:"controls_total"`
	Passed        int `json:"passed"`
	Failed        int `json:"failed"`
	Manual        int `json:"manual"`
	NotApplicable int `json:"not_applicable"`
	// Applicable are the controls that are not not-applicable: assessed
	// and not assessed.
	Applicable int `json:"applicable"`
	// Assessed have a result from checks or a current attestation: passing
	// and failing.
	Assessed    int `json:"assessed"`
	Passing     int `json:"passing"`
	Failing     int `json:"failing"`
	NotAssessed int `json:"not_assessed"`
	// CompletionPercentage is 100 × passing ÷ applicable, rounded down; 0
	// with no applicable control.
	CompletionPercentage int `json:"completion_percentage"`
}

func (s *Summary) add(result string) {
	s.ControlsTotal++
	switch result {
	case Pass:
		s.Passed++
	case Fail:
		s.Failed++
	case Manual:
		s.Manual++
	case NotApplicable:
		s.NotApplicable++
	}
	s.derive()
}

// derive computes the counts that follow from the results, so that a
// summary stored before they existed reads the same as a new one.
func (s *Summary) derive() {
	s.Passing, s.Failing, s.NotAssessed = s.Passed, s.Failed, s.Manual
	s.Assessed = s.Passing + s.Failing
	s.Applicable = s.Assessed + s.NotAssessed
	s.CompletionPercentage = 0
	if s.Applicable > 0 {
		s.CompletionPercentage = 100 * s.Passing / s.Applicable
	}
}

// NotAudited is a framework's summary before its first audit: every
// control is applicable until shown otherwise, and none is assessed.
func NotAudited(controls int) Summary {
	s := Summary{ControlsTotal: controls, Manual: controls}
	s.derive()
	s.Manual = 0 // no result recorded
	return s
}

// FrameworkResult is one framework's part of an audit.
type FrameworkResult struct {
	Framework string          `json:"framework"`
	Name      string          `json:"name"`
	Version   string          `json:"version"`
	Summary   Summary         `json:"summary"`
	Controls  []ControlResult `json:"controls"`
}

// GapDetail is what a failing control's gap records.
type GapDetail struct {
	Framework        string         `json:"framework"`
	ControlID        string         `json:"control_id"`
	ControlTitle     string         `json:"control_title"`
	Severity         event.Severity `json:"severity"`
	Failed           []Finding      `json:"failed"`
	RemediationSteps []string       `json:"remediation_steps"`
	AutoRemediable   bool           `json:"auto_remediable"`
}

// Assessment is the outcome of evaluating frameworks over one snapshot of
// facts.
type Assessment struct {
	At         time.Time
	Frameworks []FrameworkResult
	Gaps       []GapDetail // the failing controls, most severe first
}

// evaluation evaluates each check once over facts.
type evaluation struct {
	facts    *Facts
	findings map[string]Finding
}

func (ev *evaluation) finding(c *Check) Finding {
	f, ok := ev.findings[c.ID]
	if !ok {
		f = c.run(ev.facts)
		ev.findings[c.ID] = f
	}
	return f
}

// control evaluates one control: its checks when it has any (one failing
// check fails it; all not applicable makes it not applicable), else an
// attestation that has not expired, else it is manual.
func (ev *evaluation) control(fw *Framework, c Control) (ControlResult, *GapDetail) {
	r := ControlResult{ControlID: c.ID, Title: c.Title, Family: c.Family, Findings: []Finding{}}
	checks := checksByControl[store.GapKey(fw.ID, c.ID)]
	a, attested := ev.facts.Attestations[store.GapKey(fw.ID, c.ID)]
	if attested {
		r.Attestation = newAttestationView(a, ev.facts.Now)
	}
	var failed []*Check
	switch {
	case len(checks) > 0:
		r.Basis, r.Result = "checks", NotApplicable
		for _, ch := range checks {
			f := ev.finding(ch)
			r.Findings = append(r.Findings, f)
			switch {
			case f.Result == Fail:
				r.Result = Fail
				failed = append(failed, ch)
			case f.Result == Pass && r.Result != Fail:
				r.Result = Pass
			}
		}
	case attested && !r.Attestation.Expired:
		r.Basis, r.Result = "attestation", a.Status
	default:
		r.Basis, r.Result = "none", Manual
	}
	if r.Result != Fail {
		return r, nil
	}
	g := &GapDetail{Framework: fw.ID, ControlID: c.ID, ControlTitle: c.Title, Failed: []Finding{}, RemediationSteps: []string{}}
	if len(failed) == 0 { // attested as failing
		g.Severity = event.Medium
		g.RemediationSteps = []string{
			"Put the control in place: " + c.Title + ".",
			"Keep the evidence (a document, a ticket, a screenshot) where an auditor can see it.",
			"Attest the control again on the Compliance page, as passing, with a link to the evidence.",
		}
		return r, g
	}
	sev := event.Info
	g.AutoRemediable = true
	for _, ch := range failed {
		sev = max(sev, ch.Severity)
		g.Failed = append(g.Failed, ev.finding(ch))
		for _, s := range ch.Steps {
			if !slices.Contains(g.RemediationSteps, s) {
				g.RemediationSteps = append(g.RemediationSteps, s)
			}
		}
		g.AutoRemediable = g.AutoRemediable && ch.fix != nil
	}
	g.Severity = sev
	return r, g
}

// assess evaluates the frameworks over facts.
func assess(facts *Facts, frameworkIDs []string) Assessment {
	ev := &evaluation{facts: facts, findings: map[string]Finding{}}
	out := Assessment{At: facts.Now}
	for _, id := range frameworkIDs {
		fw, ok := LookupFramework(id)
		if !ok {
			continue
		}
		fr := FrameworkResult{Framework: fw.ID, Name: fw.Name, Version: fw.Version, Controls: make([]ControlResult, 0, len(fw.Controls))}
		for _, c := range fw.Controls {
			r, gap := ev.control(fw, c)
			fr.Summary.add(r.Result)
			fr.Controls = append(fr.Controls, r)
			if gap != nil {
				out.Gaps = append(out.Gaps, *gap)
			}
		}
		out.Frameworks = append(out.Frameworks, fr)
	}
	slices.SortStableFunc(out.Gaps, func(a, b GapDetail) int { return cmp.Compare(b.Severity, a.Severity) })
	return out
}

// Assess evaluates the frameworks for the organization now.
func (e *Engine) Assess(ctx context.Context, orgID string, frameworkIDs []string) (Assessment, error) {
	facts, err := e.gather(ctx, orgID)
	if err != nil {
		return Assessment{}, err
	}
	return assess(facts, frameworkIDs), nil
}

// AuditResults is the JSON stored with a completed audit.
type AuditResults struct {
	AuditedAt  string            `json:"audited_at"`
	Frameworks []FrameworkResult `json:"frameworks"`
	Gaps       []AuditGap        `json:"gaps"`
}

// AuditGap is a gap as the audit found it.
type AuditGap struct {
	GapID string `json:"gap_id"`
	GapDetail
}

// Record stores an assessment as the outcome of an audit: its gaps opened,
// kept or closed, and its results.
func (e *Engine) Record(ctx context.Context, audit store.Audit, a Assessment) error {
	var failing []store.GapInput
	for _, g := range a.Gaps {
		detail, err := json.Marshal(g)
		if err != nil {
			return fmt.Errorf("encode gap: %w", err)
		}
		failing = append(failing, store.GapInput{Framework: g.Framework, ControlID: g.ControlID, Severity: g.Severity, Detail: detail})
	}
	return e.store.CompleteAudit(ctx, audit.OrgID, audit.ID, audit.Frameworks, failing, func(ids map[string]string) ([]byte, []byte, error) {
		res := AuditResults{AuditedAt: timestamp.Format(a.At), Frameworks: a.Frameworks, Gaps: []AuditGap{}}
		for i := range res.Frameworks {
			fr := &res.Frameworks[i]
			for j := range fr.Controls {
				if id, ok := ids[store.GapKey(fr.Framework, fr.Controls[j].ControlID)]; ok {
					fr.Controls[j].GapID = &id
				}
			}
		}
		for _, g := range a.Gaps {
			res.Gaps = append(res.Gaps, AuditGap{GapID: ids[store.GapKey(g.Framework, g.ControlID)], GapDetail: g})
		}
		summary := map[string]Summary{}
		for _, fr := range a.Frameworks {
			summary[fr.Framework] = fr.Summary
		}
		results, err := json.Marshal(res)
		if err != nil {
			return nil, nil, fmt.Errorf("encode audit results: %w", err)
		}
		sum, err := json.Marshal(summary)
		if err != nil {
			return nil, nil, fmt.Errorf("encode audit summary: %w", err)
		}
		return results, sum, nil
	})
}

// DataFindings evaluates the checks over the organization's operational
// data (identity, monitoring, response; not policy adoption) now.
func (e *Engine) DataFindings(ctx context.Context, orgID string) ([]Finding, error) {
	facts, err := e.gather(ctx, orgID)
	if err != nil {
		return nil, err
	}
	out := make([]Finding, len(dataChecks))
	for i, c := range dataChecks {
		out[i] = c.run(facts)
	}
	return out, nil
}
