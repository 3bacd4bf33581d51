package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"garrison/actor"
	"garrison/agents"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// AgentRuntime is what the API needs of the agents' runtime (agents.Runner).
type AgentRuntime interface {
	Start(ctx context.Context, req agents.Request, spend func() error) (agents.Accepted, error)
	// StartAudit starts a run of the compliance agent and returns its audit.
	StartAudit(ctx context.Context, req agents.Request, spend func() error) (agents.AuditAccepted, error)
	CancelRun(ctx context.Context, who actor.Actor, slug, slugField, id string) (store.AgentRun, error)
	// Statuses lists every agent for an organization on plan.
	Statuses(ctx context.Context, orgID, plan string) ([]agents.Status, error)
	Runs(ctx context.Context, who actor.Actor, slug, slugField string, p store.Page) ([]store.AgentRun, int, error)
	RunOf(ctx context.Context, who actor.Actor, slug, slugField, id string) (store.AgentRun, error)
	// Notify wakes the workers after a run was queued.
	Notify()
}

type agentView struct {
	Slug            string  `json:"slug"`
	Name            string  `json:"name"`
	Description     string  `json:"description"`
	PlanTier        string  `json:"plan_tier"`
	Available       bool    `json:"available"` // the organization's plan may run it
	Status          string  `json:"status"`    // running, queued or idle, for this organization
	Queued          int     `json:"queued"`
	Running         int     `json:"running"`
	LastExecutionAt *string `json:"last_execution_at"`
	LastStatus      *string `json:"last_status"`
}

func (a *API) listAgents(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	statuses, err := a.Agents.Statuses(r.Context(), p.OrgID, p.Plan)
	if err != nil {
		return err
	}
	var views []agentView
	for _, ag := range statuses {
		v := agentView{Slug: ag.Slug, Name: ag.Name, Description: ag.Description, PlanTier: ag.Plan,
			Available: ag.Available, Status: "idle", Queued: ag.Queued, Running: ag.Running,
			LastExecutionAt: timestamp.Optional(ag.LastRunAt), LastStatus: optString(ag.LastStatus)}
		switch {
		case ag.Running > 0:
			v.Status = store.RunRunning
		case ag.Queued > 0:
			v.Status = store.RunQueued
		}
		views = append(views, v)
	}
	writeData(w, http.StatusOK, views)
	return nil
}

func (a *API) executeAgent(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return a.startRun(w, r, r.PathValue("id"), "id", body)
}

// runAgent is the POST /agents/run form: the slug travels in the body.
func (a *API) runAgent(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := decodeJSON(body, &fields); err != nil {
		return err
	}
	var slug string
	if raw, ok := fields["agent"]; !ok {
		return valid.Field("agent", "is required: one of "+strings.Join(agents.Slugs(), ", "))
	} else if json.Unmarshal(raw, &slug) != nil {
		return valid.Field("agent", "must be a string")
	}
	delete(fields, "agent")
	rest, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	return a.startRun(w, r, slug, "agent", rest)
}

type runAccepted struct {
	AgentRunID                 string `json:"agent_run_id"`
	Agent                      string `json:"agent"`
	Status                     string `json:"status"`
	EstimatedCompletionSeconds int    `json:"estimated_completion_seconds"`
	QueuedAt                   string `json:"queued_at"`
}

// startRun is the one code path of both run forms: the agent starts the
// run, spending from the organization's run budget, and the answer is 202.
func (a *API) startRun(w http.ResponseWriter, r *http.Request, slug, slugField string, params []byte) error {
	p := principalFrom(r.Context())
	spend := func() error { return a.ChargeAgentRun(w, r, p.OrgID) }
	acc, err := a.Agents.Start(r.Context(), agents.Request{Slug: slug, SlugField: slugField, Params: params, Decode: decodeJSON,
		Plan: p.Plan, OrgKind: p.OrgKind, Who: p.Actor}, spend)
	if err != nil {
		return err
	}
	auditTarget(r, acc.Run.ID)
	auditDetail(r, "agent", acc.Run.Agent)
	writeData(w, http.StatusAccepted, runAccepted{AgentRunID: acc.Run.ID, Agent: acc.Run.Agent, Status: acc.Run.Status,
		EstimatedCompletionSeconds: acc.EstimatedCompletionSeconds, QueuedAt: timestamp.Format(acc.Run.QueuedAt)})
	return nil
}

type runView struct {
	AgentRunID    string          `json:"agent_run_id"`
	Agent         string          `json:"agent"`
	Status        string          `json:"status"`
	Params        json.RawMessage `json:"params"`
	RequestedBy   string          `json:"requested_by"`
	QueuedAt      string          `json:"queued_at"`
	StartedAt     *string         `json:"started_at"`
	FinishedAt    *string         `json:"finished_at"`
	DurationMS    *int64          `json:"duration_ms"`
	OutputSummary string          `json:"output_summary"`
	Output        json.RawMessage `json:"output"`
	Error         *string         `json:"error"`
	Recoveries    int             `json:"recoveries"`
}

func newRunView(r store.AgentRun, withOutput bool) runView {
	v := runView{AgentRunID: r.ID, Agent: r.Agent, Status: r.Status, Params: r.Params, RequestedBy: r.RequestedBy,
		QueuedAt: timestamp.Format(r.QueuedAt), StartedAt: timestamp.Optional(r.StartedAt), FinishedAt: timestamp.Optional(r.FinishedAt),
		DurationMS: r.DurationMS, OutputSummary: r.OutputSummary, Error: optString(r.Error), Recoveries: r.Recoveries,
		Output: json.RawMessage("null")}
	if withOutput && r.Output != nil {
		v.Output = r.Output
	}
	return v
}

func (a *API) listRuns(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	runs, total, err := a.Agents.Runs(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id"), "id", page)
	if err != nil {
		return err
	}
	views := make([]runView, len(runs))
	for i, run := range runs {
		views[i] = newRunView(run, false)
	}
	writeList(w, views, total, page)
	return nil
}

func (a *API) getRun(w http.ResponseWriter, r *http.Request) error {
	run, err := a.Agents.RunOf(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id"), "id", r.PathValue("run_id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newRunView(run, true))
	return nil
}

func (a *API) cancelRun(w http.ResponseWriter, r *http.Request) error {
	run, err := a.Agents.CancelRun(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id"), "id", r.PathValue("run_id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newRunView(run, true))
	return nil
}
