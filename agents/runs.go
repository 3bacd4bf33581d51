package agents

import (
	"context"

	"garrison/actor"
	"garrison/store"
)

// Status is an agent as an organization sees it: whether its plan includes
// the agent, and the organization's runs of it.
type Status struct {
	Agent
	Available bool
	store.AgentActivity
}

// Statuses lists every agent for an organization on plan.
func (r *Runner) Statuses(ctx context.Context, orgID, plan string) ([]Status, error) {
	activity, err := r.cfg.Store.AgentActivities(ctx, orgID, Slugs())
	if err != nil {
		return nil, err
	}
	var out []Status
	for _, ag := range All() {
		out = append(out, Status{Agent: ag, Available: ag.AllowedOn(plan), AgentActivity: activity[ag.Slug]})
	}
	return out, nil
}

// Runs is a page of one agent's runs that who sees, newest first; slugField
// names the request field that named the agent, for its error.
func (r *Runner) Runs(ctx context.Context, who actor.Actor, slug, slugField string, p store.Page) ([]store.AgentRun, int, error) {
	ag, err := Find(slug, slugField)
	if err != nil {
		return nil, 0, err
	}
	return r.cfg.Store.Runs(ctx, store.RunScope{Who: who, Agent: ag.Slug}, p)
}

// RunOf is one run of an agent that who sees.
func (r *Runner) RunOf(ctx context.Context, who actor.Actor, slug, slugField, id string) (store.AgentRun, error) {
	ag, err := Find(slug, slugField)
	if err != nil {
		return store.AgentRun{}, err
	}
	return r.cfg.Store.Run(ctx, store.RunScope{Who: who, Agent: ag.Slug}, id)
}
