package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"

	"garrison/agents"
	"garrison/store"
	"garrison/ticket"
	"garrison/timestamp"
	"garrison/valid"
)

type ticketView struct {
	ID                string          `json:"id"`
	Subject           string          `json:"subject"`
	Description       string          `json:"description"`
	Priority          string          `json:"priority"`
	Status            string          `json:"status"`
	Assignee          *string         `json:"assignee"`
	CreatedBy         string          `json:"created_by"`
	AITriage          json.RawMessage `json:"ai_triage"`
	AIResolutionSteps json.RawMessage `json:"ai_resolution_steps"`
	TriageStatus      string          `json:"triage_status"` // pending, completed or failed
	TriageRunID       *string         `json:"triage_run_id"`
	CreatedAt         string          `json:"created_at"`
	UpdatedAt         string          `json:"updated_at"`
	ResolvedAt        *string         `json:"resolved_at"`
	AlertID           *string         `json:"alert_id"` // the alert it was opened from
}

func newTicketView(t ticket.Ticket) ticketView {
	v := ticketView{ID: t.ID, Subject: t.Subject, Description: t.Description, Priority: t.Priority, Status: t.Status,
		Assignee: optString(t.Assignee), CreatedBy: t.CreatedBy, AITriage: t.Triage, AIResolutionSteps: t.ResolutionSteps,
		TriageStatus: "pending", TriageRunID: optString(t.TriageRunID), AlertID: optString(t.AlertID), CreatedAt: timestamp.Format(t.CreatedAt),
		UpdatedAt: timestamp.Format(t.UpdatedAt), ResolvedAt: timestamp.Optional(t.ResolvedAt)}
	switch {
	case t.Triage != nil:
		v.TriageStatus = "completed"
	case t.TriageRunStatus == store.RunFailed || t.TriageRunStatus == store.RunCancelled:
		v.TriageStatus = "failed"
	}
	if v.AITriage == nil {
		v.AITriage = json.RawMessage("null")
	}
	if v.AIResolutionSteps == nil {
		v.AIResolutionSteps = json.RawMessage("[]")
	}
	return v
}

type ticketMessageView struct {
	Author     string `json:"author"`
	AuthorKind string `json:"author_kind"`
	Body       string `json:"body"`
	At         string `json:"at"`
}

type ticketChangeView struct {
	Field string  `json:"field"`
	From  *string `json:"from"`
	To    *string `json:"to"`
	By    string  `json:"by"`
	Note  string  `json:"note"`
	At    string  `json:"at"`
}

type escalationView struct {
	Reason     string   `json:"reason"`
	Confidence *float64 `json:"confidence"`
	By         string   `json:"by"`
	At         string   `json:"at"`
}

type ticketSubmitRequest struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
	Priority    string `json:"priority,notnull,notempty"`
}

func (a *API) submitTicket(w http.ResponseWriter, r *http.Request) error {
	var req ticketSubmitRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	// Each ticket starts a triage run, spent from the same budget as others.
	spend := func() error { return a.ChargeAgentRun(w, r, p.OrgID) }
	t, err := ticket.Submit(r.Context(), a.Store, a.Agents, p.Actor, ticket.Submission(req), agents.TechSupportSlug, spend)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, newTicketView(t))
	return nil
}

func (a *API) listTickets(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	tickets, total, err := ticket.List(r.Context(), a.Store, principalFrom(r.Context()).Actor, r.URL.Query().Get("status"), page.Limit, page.Offset)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(tickets, newTicketView), total, page)
	return nil
}

func (a *API) getTicket(w http.ResponseWriter, r *http.Request) error {
	d, err := ticket.Get(r.Context(), a.Store, principalFrom(r.Context()).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newTicketDetailView(d))
	return nil
}

type ticketDetailView struct {
	ticketView
	Thread        []ticketMessageView `json:"thread"`
	StatusHistory []ticketChangeView  `json:"status_history"`
	EscalationLog []escalationView    `json:"escalation_log"`
}

func newTicketDetailView(d ticket.Detail) ticketDetailView {
	v := ticketDetailView{ticketView: newTicketView(d.Ticket), Thread: []ticketMessageView{}, StatusHistory: []ticketChangeView{},
		EscalationLog: []escalationView{}}
	for _, m := range d.Messages {
		v.Thread = append(v.Thread, ticketMessageView{m.Author, m.AuthorKind, m.Body, timestamp.Format(m.At)})
	}
	for _, c := range d.Changes {
		v.StatusHistory = append(v.StatusHistory, ticketChangeView{c.Field, optString(c.OldValue), optString(c.NewValue), c.Actor, c.Note, timestamp.Format(c.At)})
	}
	for _, e := range d.Escalations {
		v.EscalationLog = append(v.EscalationLog, escalationView{e.Reason, e.Confidence, e.Actor, timestamp.Format(e.At)})
	}
	return v
}

type ticketUpdateRequest struct {
	Status   *string         `json:"status,notnull"`
	Priority *string         `json:"priority,notnull"`
	Assignee json.RawMessage `json:"assignee"` // a user id, or null to unassign
	Note     string          `json:"note"`
}

func (a *API) updateTicket(w http.ResponseWriter, r *http.Request) error {
	var req ticketUpdateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	ch := ticket.Edit{Status: req.Status, Priority: req.Priority, Note: req.Note}
	if req.Assignee != nil {
		var assignee string
		if !bytes.Equal(req.Assignee, []byte("null")) && json.Unmarshal(req.Assignee, &assignee) != nil {
			return valid.Field("assignee", "must be a user id or null")
		}
		ch.Assignee = &assignee
	}
	d, err := ticket.Update(r.Context(), a.Store, principalFrom(r.Context()).Actor, r.PathValue("id"), ch)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newTicketDetailView(d))
	return nil
}

type ticketMessageRequest struct {
	Body string `json:"body"`
}

func (a *API) addTicketMessage(w http.ResponseWriter, r *http.Request) error {
	var req ticketMessageRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	m, err := ticket.Reply(r.Context(), a.Store, principalFrom(r.Context()).Actor, r.PathValue("id"), req.Body)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, ticketMessageView{m.Author, m.AuthorKind, m.Body, timestamp.Format(a.Now())})
	return nil
}
