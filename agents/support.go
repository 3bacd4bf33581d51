package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"garrison/account"
	"garrison/actor"
	"garrison/alerting"
	"garrison/event"
	"garrison/store"
	"garrison/ticket"
	"garrison/timestamp"
	"garrison/triage"
	"garrison/valid"
)

// TechSupportSlug is the agent that triages submitted tickets.
const TechSupportSlug = "tech-support"

var techSupport = Agent{
	Slug: TechSupportSlug, Name: "Tech Support", Plan: account.PlanStarter,
	Description: "Triages a support ticket or problem description: category, suggested priority and confidence, with " +
		"resolution steps from a knowledge base of common MSP problems; unsure triages go to a human.",
	newParams: func() Params { return &supportParams{} },
	analyze:   triageTicket,
}

type supportParams struct {
	Prompt      string `json:"prompt"`
	TicketID    string `json:"ticket_id"`
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

// TicketRef names the ticket the run would read and triage, so the API can
// check the caller may see it.
func (p *supportParams) TicketRef() string { return p.TicketID }

func (p *supportParams) Validate(problems *valid.Problems) {
	checkText(problems, "prompt", p.Prompt, promptLimit)
	checkText(problems, "subject", p.Subject, ticket.MaxSubject)
	checkText(problems, "description", p.Description, ticket.MaxText)
	checkText(problems, "ticket_id", p.TicketID, 64)
	problems.Check(p.TicketID != "" || strings.TrimSpace(p.Prompt+p.Subject+p.Description) != "",
		"ticket_id", "or a prompt, subject or description is required")
}

// triageTicket classifies the problem. With a ticket_id it triages that
// ticket: the result, the first reply and, when unsure, the escalation are
// written to it together.
func triageTicket(ctx context.Context, env *Env, run store.AgentRun, params Params) (Report, error) {
	p := params.(*supportParams)
	subject, description := p.Subject, strings.TrimSpace(p.Description+"\n"+p.Prompt)
	var tk *ticket.Ticket
	if p.TicketID != "" {
		t, err := env.Store.Ticket(ctx, actor.Garrison(run.OrgID), p.TicketID)
		if errors.Is(err, store.ErrNotFound) {
			return Report{}, &Failure{"Ticket " + p.TicketID + " does not exist in this organization."}
		}
		if err != nil {
			return Report{}, err
		}
		tk, subject, description = &t, t.Subject, t.Description
	}
	res := triage.Classify(subject, description)
	incident, isIncident := triage.Incident(res, subject, description)
	escalate := res.Confidence < triage.EscalateBelow || isIncident
	out := map[string]any{"triage": res, "escalated": escalate, "escalation_threshold": triage.EscalateBelow}
	if isIncident {
		out["security_incident"] = incident
	}
	summary := fmt.Sprintf("Triaged as %s (%s) with confidence %.2f; suggested priority %s.", res.Title, res.Category,
		res.Confidence, res.Priority)
	switch {
	case isIncident:
		summary += fmt.Sprintf(" It reports a security incident (%s): escalated at once, and an alert raised for the on-call engineer.", incident)
	case escalate:
		summary += fmt.Sprintf(" Confidence is below %.2f, so a technician should take it.", triage.EscalateBelow)
	default:
		summary += " First step: " + res.Steps[0]
	}
	report := Report{Output: out, Summary: summary, Task: "a support ticket triage"}
	if tk != nil {
		out["ticket_id"] = tk.ID
		report.Apply = func(ctx context.Context) error {
			applied, err := applyTriage(ctx, env, run, *tk, res, escalate, incident)
			out["applied_to_ticket"] = applied
			if err != nil || !applied || !isIncident {
				return err
			}
			alertID, err := raiseIncident(ctx, env, *tk, res, incident)
			out["alert_id"] = alertID
			return err
		}
	}
	return report, nil
}

func applyTriage(ctx context.Context, env *Env, run store.AgentRun, t ticket.Ticket, res triage.Result, escalate bool, incident string) (bool, error) {
	result, err := json.Marshal(map[string]any{"category": res.Category, "title": res.Title, "confidence": res.Confidence,
		"suggested_priority": res.Priority, "evidence": nonNil(res.Evidence), "reasons": nonNil(res.Reasons),
		"run_id": run.ID, "triaged_at": timestamp.Format(env.Now())})
	if err != nil {
		return false, err
	}
	steps, err := json.Marshal(res.Steps)
	if err != nil {
		return false, err
	}
	tr := ticket.Triage{Result: result, Steps: steps, Actor: TechSupportSlug, RunID: run.ID, Message: firstReply(res, escalate, incident)}
	if escalate {
		c := res.Confidence
		reason := fmt.Sprintf("Triage confidence %.2f is below %.2f: a technician needs to review this ticket.", res.Confidence, triage.EscalateBelow)
		if incident != "" {
			reason = fmt.Sprintf("A security incident (%s): escalated at once.", incident)
		}
		tr.Escalate = &ticket.Escalation{Confidence: &c, Actor: TechSupportSlug, Reason: reason}
	}
	return env.Store.ApplyTriage(ctx, t.OrgID, t.ID, tr)
}

// incidentCategory is the alert category of a ticket's incident.
var incidentCategory = map[string]string{triage.IncidentRansomware: event.CategoryMalware, triage.IncidentAccount: event.CategoryIntrusion,
	triage.IncidentPhishing: event.CategoryIntrusion, triage.IncidentDataLoss: event.CategoryPolicy}

// raiseIncident opens the critical alert of a security ticket, linked to
// it both ways: the routing rules page the on-call engineer as for any
// critical alert.
func raiseIncident(ctx context.Context, env *Env, t ticket.Ticket, res triage.Result, incident string) (string, error) {
	action := "Follow the ticket's resolution steps."
	if len(res.Steps) > 0 {
		action = res.Steps[0]
	}
	spec := alerting.Spec{Fingerprint: "ticket|" + t.ID, Severity: event.Critical, Category: incidentCategory[incident],
		Title: fmt.Sprintf("Security incident reported (%s): %s", incident, t.Subject), Asset: "ticket " + t.ID, RecommendedAction: action}
	id, _, err := env.Store.RaiseAlert(ctx, t.OrgID, spec, env.Now())
	if err != nil {
		return "", err
	}
	return id, env.Store.LinkAlertTicket(ctx, t.OrgID, id, t.ID)
}

// firstReply is the agent's first message in the ticket's thread, to the
// person who reported it: what happens next and, for an incident, what to
// do now. The resolution steps are the technician's runbook and stay on
// the ticket.
func firstReply(res triage.Result, escalate bool, incident string) string {
	title := strings.ToLower(res.Title)
	switch {
	case incident != "":
		return fmt.Sprintf("Thanks for reporting this. It looks like %s, a security incident: the on-call technician has been "+
			"alerted and will contact you. Until then: %s", incident, triage.RequesterAdvice(incident))
	case escalate:
		return fmt.Sprintf("Thanks for the report. It looks like it may be about %s, but I am not sure enough, so a technician "+
			"will pick it up and reply here.", title)
	}
	return fmt.Sprintf("Thanks for the report. This looks like %s; a technician has the steps to fix it and will reply here. "+
		"Add anything that changes, such as an error message or when it started.", title)
}
