package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"garrison/account"
	"garrison/llm"
	"garrison/outreach"
	"garrison/store"
	"garrison/valid"
)

var mspHunter = Agent{
	Slug: "msp-hunter", Name: "MSP Hunter", Plan: account.PlanPro,
	Description: "Scores imported prospects into leads for the MSP's sales pipeline, by vertical and region, with the reasons " +
		"for every point and an intelligence summary (Pro and Ultimate plans).",
	newParams: func() Params { return &hunterParams{} },
	analyze:   huntLeads,
}

// Limits of a hunter run.
const (
	defaultHuntLimit = 100
	maxHuntLimit     = 10000
	// phrasedLeads is how many of the best leads the language model, when
	// there is one, phrases the summary of: each is one model call.
	phrasedLeads = 10
)

type hunterParams struct {
	Prompt       string `json:"prompt"`
	Vertical     string `json:"vertical"`
	Region       string `json:"region"`
	MinEmployees *int   `json:"min_employees"`
	MaxEmployees *int   `json:"max_employees"`
	Limit        *int   `json:"limit"`
}

func (p *hunterParams) Validate(problems *valid.Problems) {
	checkText(problems, "prompt", p.Prompt, promptLimit)
	checkText(problems, "region", p.Region, 100)
	problems.Check(p.Vertical == "" || slices.Contains(outreach.Verticals, p.Vertical), "vertical", "must be one of "+strings.Join(outreach.Verticals, ", "))
	problems.Check(p.MinEmployees == nil || *p.MinEmployees >= 0, "min_employees", "must be 0 or more")
	problems.Check(p.MaxEmployees == nil || *p.MaxEmployees >= 0 && (p.MinEmployees == nil || *p.MaxEmployees >= *p.MinEmployees),
		"max_employees", "must be 0 or more, and at least min_employees")
	problems.Check(p.Limit == nil || *p.Limit >= 1 && *p.Limit <= maxHuntLimit, "limit", "must be from 1 to 10000")
}

// scoredProspect is a prospect with its score.
type scoredProspect struct {
	p       store.Prospect
	score   int
	reasons []outreach.Reason
}

// huntLeads scores the matching prospects with the outreach model and,
// once the run is done, writes the best as leads: new ones enter the
// pipeline as new, existing ones keep their status and take the new score
// (a change is recorded).
func huntLeads(ctx context.Context, env *Env, run store.AgentRun, params Params) (Report, error) {
	p := params.(*hunterParams)
	// A run queued before a downgrade writes no leads after it.
	org, err := env.Store.Org(ctx, run.OrgID)
	if err != nil {
		return Report{}, err
	}
	if err := outreach.Permit(org.Kind, org.Plan); err != nil {
		return Report{}, &Failure{err.Error() + "."}
	}
	crit := outreach.Criteria{Vertical: p.Vertical, Region: p.Region}
	found, err := env.Store.MatchingProspects(ctx, run.OrgID, store.ProspectFilter{Vertical: p.Vertical, MinEmployees: p.MinEmployees,
		MaxEmployees: p.MaxEmployees})
	if err != nil {
		return Report{}, err
	}
	var scored []scoredProspect
	for _, pr := range found {
		if !crit.Matches(pr) {
			continue
		}
		score, reasons := outreach.Score(pr, crit)
		scored = append(scored, scoredProspect{pr, score, reasons})
	}
	slices.SortStableFunc(scored, func(a, b scoredProspect) int { return b.score - a.score })
	limit := defaultHuntLimit
	if p.Limit != nil {
		limit = *p.Limit
	}
	kept := scored[:min(limit, len(scored))]

	scores := make([]store.LeadScore, len(kept))
	for i, s := range kept {
		plain := outreach.Summary(s.p, s.score, s.reasons)
		text, source := plain, "facts"
		if env.LLM != nil && i < phrasedLeads {
			facts := map[string]any{"company": s.p.Company, "domain": s.p.Domain, "vertical": s.p.Vertical, "region": s.p.Region,
				"employees": s.p.Employees, "score": s.score, "score_reasons": s.reasons}
			if ph, err := llm.Phrase(ctx, env.LLM, "a two-sentence sales intelligence summary of this prospect for an MSP", facts, plain); err == nil && ph.ByModel() {
				text, source = ph.Text, "llm:"+ph.Model
			}
		}
		reasons, _ := json.Marshal(s.reasons)
		scores[i] = store.LeadScore{ProspectID: s.p.ID, Scored: s.p.UpdatedAt, Score: s.score, Reasons: reasons, Summary: text, SummarySource: source}
	}

	criteria := map[string]any{"vertical": p.Vertical, "region": p.Region, "min_employees": p.MinEmployees, "max_employees": p.MaxEmployees,
		"limit": limit, "model": "docs/api.md: vertical fit 5–25, compliance pressure 0–15, size band 3–20, region match 15, signals in the notes up to 25, contact up to 5; at most 100"}
	out := map[string]any{"criteria": criteria, "prospects_considered": len(scored), "leads_created": []any{}, "leads_updated": []any{},
		"leads_unchanged": 0}
	scope := "all verticals"
	if p.Vertical != "" {
		scope = "the " + p.Vertical + " vertical"
	}
	if p.Region != "" {
		scope += " in " + p.Region
	}
	summary := fmt.Sprintf("No prospects match %s; import a CSV file of them on the Leads page (Import prospects from a CSV file).", scope)
	if len(kept) > 0 {
		best := kept[0]
		summary = fmt.Sprintf("Scored %d prospects for %s and kept the best %d as leads; the strongest is %s (%s) at %d of 100.",
			len(scored), scope, len(kept), best.p.Company, best.p.Domain, best.score)
	}
	rep := Report{Output: out, Summary: summary, Task: "a lead scoring run"}
	if len(kept) == 0 {
		return rep, nil
	}
	rep.Apply = func(ctx context.Context) error {
		outcomes, err := env.Store.UpsertLeads(ctx, run.OrgID, run.ID, "agent:msp-hunter ("+run.ID+")", scores)
		if err != nil {
			return err
		}
		scoreOf := map[string]scoredProspect{}
		for _, s := range kept {
			scoreOf[s.p.ID] = s
		}
		var created, updated []map[string]any
		for _, o := range outcomes {
			s := scoreOf[o.ProspectID]
			item := map[string]any{"lead_id": o.LeadID, "company": s.p.Company, "domain": s.p.Domain, "score": o.Score}
			if o.Created {
				created = append(created, item)
				continue
			}
			item["score_from"] = o.ScoreFrom
			updated = append(updated, item)
		}
		out["leads_created"], out["leads_updated"] = nonNil(created), nonNil(updated)
		out["leads_unchanged"] = len(kept) - len(outcomes)
		return nil
	}
	return rep, nil
}
