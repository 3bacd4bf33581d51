// Package agents holds Garrison's six agents and the runtime that runs
// them: durable runs taken from SQLite by a bounded pool of goroutines.
//
// Each agent is a deterministic analyzer over the organization's own data,
// so an air-gapped appliance needs nothing else. When a language model is
// configured it only rephrases the analyzer's facts (see narrate.go).
package agents

import (
	"context"
	"slices"
	"time"

	"garrison/account"
	"garrison/compliance"
	"garrison/llm"
	"garrison/mail"
	"garrison/store"
	"garrison/valid"
)

// Agent is one of the six agents.
type Agent struct {
	Slug        string
	Name        string
	Description string
	Plan        string // the lowest plan that may run it
	newParams   func() Params
	analyze     func(ctx context.Context, env *Env, run store.AgentRun, p Params) (Report, error)
}

// Params are an agent's request parameters. Validate records each bad field.
type Params interface {
	Validate(p *valid.Problems)
}

// NewParams returns an empty parameter value to decode a request into.
func (a Agent) NewParams() Params { return a.newParams() }

// AllowedOn reports whether an organization on plan may run the agent.
func (a Agent) AllowedOn(plan string) bool {
	return account.PlanIncludes(plan, a.Plan)
}

// Report is what an analyzer concludes.
type Report struct {
	Output  map[string]any // structured result, stored as the run's output
	Summary string         // one paragraph stating the facts
	Task    string         // what the summary is, for a language model
	// Apply, when set, writes the run's effects (a ticket's triage) once the
	// run is otherwise done, so a run stopped earlier changes nothing.
	Apply func(ctx context.Context) error
}

// Env is what analyzers may read.
type Env struct {
	Store      *store.Store
	Now        func() time.Time
	CVEs       CVEIntel
	Compliance *compliance.Engine
	Mailer     *mail.Mailer // writes the mails agents send (nil: none)
	LLM        *llm.Client  // the on-prem model, nil without one

}

// registry is in the order of the specification.
var registry = []Agent{mspHunter, threatResearcher, techSupport, complianceAgent, accountManager, onboardingAgent}

// All returns the six agents in a stable order.
func All() []Agent { return slices.Clone(registry) }

// Lookup finds an agent by slug.
func Lookup(slug string) (Agent, bool) {
	for _, a := range registry {
		if a.Slug == slug {
			return a, true
		}
	}
	return Agent{}, false
}

// Slugs lists the valid agent slugs.
func Slugs() []string {
	out := make([]string, len(registry))
	for i, a := range registry {
		out[i] = a.Slug
	}
	return out
}

// promptLimit bounds the free-text prompt every agent accepts.
const promptLimit = 4000

// checkText validates an optional free-text field.
func checkText(p *valid.Problems, field, v string, limit int) {
	p.CheckText(field, v, valid.TextRule{Max: limit})
}
