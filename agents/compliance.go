package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"garrison/account"
	"garrison/compliance"
	"garrison/store"
	"garrison/valid"
)

var complianceAgent = Agent{
	Slug: "compliance", Name: "Compliance Auditor", Plan: account.PlanStarter,
	Description: "Audits the organization against SOC 2, HIPAA, NIST CSF 2.0 and CIS Controls v8: automated checks over " +
		"its own data (accounts, API keys, alerts, monitoring, DNS filtering, tickets, adopted policies) evidence the " +
		"controls, administrators attest the rest, and every failing control becomes a gap with remediation steps.",
	newParams: func() Params { return &complianceParams{} },
	analyze:   audit,
}

type complianceParams struct {
	Prompt    string `json:"prompt"`
	Framework string `json:"framework,notempty"` // the strict decoder refuses "": leave it out for all
}

func (p *complianceParams) Validate(problems *valid.Problems) {
	checkText(problems, "prompt", p.Prompt, promptLimit)
	problems.Check(p.Framework == "" || slices.Contains(compliance.FrameworkIDs(), p.Framework), "framework",
		"must be one of "+strings.Join(compliance.FrameworkIDs(), ", "))
}

// AuditFrameworks are the frameworks the run audits: every run of the
// compliance agent is an audit, stored with the run (Start).
func (p *complianceParams) AuditFrameworks() []string {
	if p.Framework != "" {
		return []string{p.Framework}
	}
	return compliance.FrameworkIDs()
}

// worstGapsNamed is how many gaps the summary names.
const worstGapsNamed = 3

func audit(ctx context.Context, env *Env, run store.AgentRun, params Params) (Report, error) {
	p := params.(*complianceParams)
	frameworks := p.AuditFrameworks()
	record, err := env.Compliance.AuditByRun(ctx, run.OrgID, run.ID)
	if err != nil && !errors.Is(err, store.ErrNotFound) { // a run queued before audits were stored has none
		return Report{}, err
	}
	a, err := env.Compliance.Assess(ctx, run.OrgID, frameworks)
	if err != nil {
		return Report{}, err
	}
	summaries := map[string]compliance.Summary{}
	var parts []string
	for _, fr := range a.Frameworks {
		summaries[fr.Framework] = fr.Summary
		parts = append(parts, fmt.Sprintf("%s %d%% (%d of %d applicable controls pass, %d not assessed)", fr.Name,
			fr.Summary.CompletionPercentage, fr.Summary.Passing, fr.Summary.Applicable, fr.Summary.NotAssessed))
	}
	var worst []map[string]any
	var named []string
	for _, g := range a.Gaps[:min(len(a.Gaps), worstGapsNamed)] {
		worst = append(worst, map[string]any{"framework": g.Framework, "control_id": g.ControlID, "title": g.ControlTitle,
			"severity": g.Severity})
		named = append(named, fmt.Sprintf("%s %s %s (%s)", frameworkName(g.Framework), g.ControlID, g.ControlTitle, g.Severity))
	}
	out := map[string]any{"report_id": nil, "frameworks": frameworks, "summary": summaries, "gaps": len(a.Gaps),
		"worst_gaps": nonNil(worst)}
	if record.ID != "" {
		out["report_id"] = record.ID
	}
	summary := "Compliance: " + joinList(parts) + ". "
	if len(a.Gaps) == 0 {
		summary += "No control fails."
	} else {
		summary += fmt.Sprintf("%d gaps; the worst: %s.", len(a.Gaps), joinList(named))
	}
	rep := Report{Output: out, Summary: summary, Task: "a compliance audit summary"}
	if record.ID != "" {
		rep.Apply = func(ctx context.Context) error { return env.Compliance.Record(ctx, record, a) }
	}
	return rep, nil
}

func frameworkName(id string) string {
	if fw, ok := compliance.LookupFramework(id); ok {
		return fw.Name
	}
	return id
}

// AuditAccepted is a queued audit.
type AuditAccepted struct {
	Accepted
	Audit store.Audit
}

// StartAudit queues a run of the compliance agent (an audit of one
// framework, or all four) as Start does, and returns its audit.
func (r *Runner) StartAudit(ctx context.Context, req Request, spend func() error) (AuditAccepted, error) {
	req.Slug, req.SlugField = complianceAgent.Slug, "agent"
	acc, err := r.Start(ctx, req, spend)
	if err != nil {
		return AuditAccepted{}, err
	}
	a, err := r.env.Compliance.AuditByRun(ctx, req.Who.OrgID, acc.Run.ID)
	return AuditAccepted{Accepted: acc, Audit: a}, err
}

// joinList writes "a, b and c".
func joinList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
