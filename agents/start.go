package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"garrison/account"
	"garrison/actor"
	"garrison/outreach"
	"garrison/store"
	"garrison/valid"
)

// Find resolves an agent slug given in field; an unknown one is refused
// naming the six.
func Find(slug, field string) (Agent, error) {
	ag, ok := Lookup(slug)
	if !ok {
		return ag, valid.Field(field, fmt.Sprintf("names no agent (got %s). Valid agents: %s", quoteShort(slug), strings.Join(Slugs(), ", ")))
	}
	return ag, nil
}

// quoteShort quotes a client-supplied value for a message, cut to 64 bytes.
func quoteShort(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return `"` + strings.ToValidUTF8(s, "") + `"`
}

// Permit refuses an agent the plan does not include.
func (a Agent) Permit(plan string) error {
	return account.RequirePlan("The "+a.Slug+" agent", a.Plan, plan)
}

// Request is a run to start, as the API received it.
type Request struct {
	Slug      string // the agent
	SlugField string // the request field that named it ("id" or "agent"), for errors
	// Params is the agent's parameters, a JSON object, read with Decode
	// (the API's strict decoder).
	Params []byte
	Decode func(body []byte, dst any) error
	Plan   string // the organization's
	// OrgKind is the organization's kind: the lead hunter works a
	// provider's pipeline, never a client's.
	OrgKind string
	// Who requests the run, in their organization: a run that reads a
	// ticket needs the requester to see it.
	Who actor.Actor
}

// Accepted is a queued run and when it should be done.
type Accepted struct {
	Run                        store.AgentRun
	EstimatedCompletionSeconds int
}

// Start checks, in this order, the agent, the plan and the parameters,
// spends one run of the organization's budget (spend may refuse), stores
// the run as queued and wakes the workers. A refused request spends nothing.
func (r *Runner) Start(ctx context.Context, req Request, spend func() error) (Accepted, error) {
	ag, err := Find(req.Slug, req.SlugField)
	if err != nil {
		return Accepted{}, err
	}
	if err := ag.Permit(req.Plan); err != nil {
		return Accepted{}, err
	}
	if ag.Slug == mspHunter.Slug {
		if err := outreach.Permit(req.OrgKind, req.Plan); err != nil {
			return Accepted{}, err
		}
	}
	params := ag.NewParams()
	if err := req.Decode(req.Params, params); err != nil {
		return Accepted{}, err
	}
	var p valid.Problems
	params.Validate(&p)
	if err := p.Err(); err != nil {
		return Accepted{}, err
	}
	if ref, ok := params.(interface{ TicketRef() string }); ok && ref.TicketRef() != "" {
		if _, err := r.cfg.Store.Ticket(ctx, req.Who, ref.TicketRef()); err != nil {
			return Accepted{}, err
		}
	}
	if err := spend(); err != nil {
		return Accepted{}, err
	}
	stored, err := json.Marshal(params)
	if err != nil {
		return Accepted{}, fmt.Errorf("encode run parameters: %w", err)
	}
	nr := store.NewRun{OrgID: req.Who.OrgID, Agent: ag.Slug, Params: stored, RequestedBy: req.Who.ID}
	if a, ok := params.(interface{ AuditFrameworks() []string }); ok {
		nr.Audit = &store.NewAudit{Frameworks: a.AuditFrameworks()}
	}
	run, err := r.cfg.Store.QueueRun(ctx, nr)
	if err != nil {
		return Accepted{}, err
	}
	r.Notify()
	// The run is stored: from here on nothing may turn the answer into an error.
	estimate, err := r.Estimate(ctx, run)
	if err != nil {
		r.cfg.Log.Warn("estimate agent run", "run", run.ID, "err", err)
		estimate = 1
	}
	return Accepted{Run: run, EstimatedCompletionSeconds: estimate}, nil
}

// CancelRun cancels a queued or running run of an agent that who sees,
// stopping it if a worker holds it; a run that already ended is
// store.ErrRunEnded.
func (r *Runner) CancelRun(ctx context.Context, who actor.Actor, slug, slugField, id string) (store.AgentRun, error) {
	ag, err := Find(slug, slugField)
	if err != nil {
		return store.AgentRun{}, err
	}
	run, err := r.cfg.Store.CancelRun(ctx, store.RunScope{Who: who, Agent: ag.Slug}, id)
	if err != nil {
		return run, err
	}
	r.Cancel(run.ID)
	return run, nil
}
