package agents

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"garrison/store"
	"garrison/valid"
)

var mspHunter = Agent{
	Slug: "msp-hunter", Name: "MSP Hunter", Plan: store.PlanPro,
	Description: "Scores imported prospects into leads for the MSP's sales pipeline, by vertical and region (Pro and Ultimate plans).",
	newParams:   func() Params { return &hunterParams{} },
	analyze:     huntLeads,
}

// verticals the hunter scores for.
var verticals = []string{"healthcare", "dental", "legal", "finance", "accounting", "insurance", "manufacturing",
	"construction", "education", "nonprofit", "government", "retail", "hospitality", "real_estate", "technology", "logistics"}

type hunterParams struct {
	Prompt   string `json:"prompt"`
	Vertical string `json:"vertical"`
	Region   string `json:"region"`
}

func (p *hunterParams) Validate(problems *valid.Problems) {
	checkText(problems, "prompt", p.Prompt, promptLimit)
	checkText(problems, "region", p.Region, 100)
	problems.Check(p.Vertical == "" || slices.Contains(verticals, p.Vertical), "vertical", "must be one of "+strings.Join(verticals, ", "))
}

// regulatedVerticals carry compliance obligations, the strongest MSP buying signal.
var regulatedVerticals = []string{"healthcare", "dental", "legal", "finance", "accounting", "insurance", "government"}

func huntLeads(_ context.Context, _ *Env, _ store.AgentRun, params Params) (Report, error) {
	p := params.(*hunterParams)
	criteria := map[string]any{"vertical": p.Vertical, "region": p.Region,
		"scoring": []string{
			"vertical match: 30 points, plus 10 for a regulated vertical (" + strings.Join(regulatedVerticals, ", ") + ")",
			"region match: 20 points",
			"company size of 10 to 500 employees: 20 points",
			"signals of need (no security staff, recent incident, compliance deadline): 10 points each, at most 20",
		}}
	out := map[string]any{"criteria": criteria, "prospects_considered": 0, "leads": []any{},
		"note": "No prospects have been imported. Import them with POST /api/outreach/prospects when the lead pipeline is enabled; the hunter scores them into leads."}
	scope := "all verticals"
	if p.Vertical != "" {
		scope = "the " + p.Vertical + " vertical"
	}
	if p.Region != "" {
		scope += " in " + p.Region
	}
	summary := fmt.Sprintf("No prospects to score for %s: none have been imported yet.", scope)
	return Report{Output: out, Summary: summary, Task: "a lead scoring run"}, nil
}
