package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"garrison/agents"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// ticketPriority is the priority of a ticket whose submitter gives none.
const ticketPriority = "medium"

// ticketMoves lists, per status, the statuses a ticket may move to.
// Resolved and closed tickets are reopened before anything else.
var ticketMoves = map[string][]string{
	store.TicketOpen:       {store.TicketInProgress, store.TicketEscalated, store.TicketResolved, store.TicketClosed},
	store.TicketInProgress: {store.TicketOpen, store.TicketEscalated, store.TicketResolved, store.TicketClosed},
	store.TicketEscalated:  {store.TicketOpen, store.TicketInProgress, store.TicketResolved, store.TicketClosed},
	store.TicketResolved:   {store.TicketOpen, store.TicketClosed},
	store.TicketClosed:     {store.TicketOpen},
}

// memberStatuses are the statuses a member may set on a ticket they see;
// open only to reopen a resolved or closed one.
var memberStatuses = []string{store.TicketOpen, store.TicketResolved, store.TicketClosed}

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
}

func newTicketView(t store.Ticket) ticketView {
	v := ticketView{ID: t.ID, Subject: t.Subject, Description: t.Description, Priority: t.Priority, Status: t.Status,
		Assignee: optString(t.Assignee), CreatedBy: t.CreatedBy, AITriage: t.Triage, AIResolutionSteps: t.ResolutionSteps,
		TriageStatus: "pending", TriageRunID: optString(t.TriageRunID), CreatedAt: timestamp.Format(t.CreatedAt),
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

// ticketViewer is the user a principal's tickets are limited to: members
// see those they submitted or are assigned; admins and API keys see all.
func ticketViewer(p Principal) string {
	if p.Kind == KindSession && p.User.Role != store.RoleAdmin {
		return p.User.ID
	}
	return ""
}

// canSee reports whether the principal may see the ticket (the same rule
// as TicketFilter.VisibleTo).
func canSee(p Principal, t store.Ticket) bool {
	viewer := ticketViewer(p)
	return viewer == "" || t.CreatedBy == viewer || t.Assignee == viewer
}

// ticketFor reads a ticket the principal may see; others are 404.
func (a *API) ticketFor(ctx context.Context, p Principal, id string) (store.Ticket, error) {
	t, err := a.Store.Ticket(ctx, p.OrgID, id)
	if err != nil {
		return t, err
	}
	if !canSee(p, t) {
		return store.Ticket{}, notFound()
	}
	return t, nil
}

func (a *API) visibleTicket(r *http.Request) (store.Ticket, error) {
	return a.ticketFor(r.Context(), principalFrom(r.Context()), r.PathValue("id"))
}

type ticketSubmitRequest struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
	Priority    string `json:"priority"`
}

func (a *API) submitTicket(w http.ResponseWriter, r *http.Request) error {
	var req ticketSubmitRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	req.Subject = strings.TrimSpace(req.Subject)
	if req.Priority == "" {
		req.Priority = ticketPriority
	}
	var p valid.Problems
	p.Check(req.Subject != "" && len(req.Subject) <= store.MaxTicketSubject && valid.Text(req.Subject) && !strings.Contains(req.Subject, "\n"),
		"subject", "is required: one line of at most 200 bytes")
	p.Check(strings.TrimSpace(req.Description) != "" && len(req.Description) <= store.MaxTicketText && valid.Text(req.Description),
		"description", "is required: text of at most 10000 bytes")
	p.Check(slices.Contains(store.TicketPriorities, req.Priority), "priority", "must be low, medium or high")
	if err := p.Err(); err != nil {
		return err
	}
	pr := principalFrom(r.Context())
	// Each ticket starts a triage run, spent from the same budget as others.
	if err := a.ChargeAgentRun(w, r, pr.OrgID); err != nil {
		return err
	}
	t, err := a.Store.SubmitTicket(r.Context(), store.NewTicket{OrgID: pr.OrgID, CreatedBy: actor(pr), Subject: req.Subject,
		Description: req.Description, Priority: req.Priority}, agents.TechSupportSlug)
	if err != nil {
		return err
	}
	a.Agents.Notify()
	writeData(w, http.StatusCreated, newTicketView(t))
	return nil
}

func (a *API) listTickets(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	pr := principalFrom(r.Context())
	f := store.TicketFilter{Page: page, Status: r.URL.Query().Get("status"), VisibleTo: ticketViewer(pr)}
	if f.Status != "" && !slices.Contains(store.TicketStatuses, f.Status) {
		return valid.Field("status", "must be one of "+strings.Join(store.TicketStatuses, ", "))
	}
	tickets, total, err := a.Store.Tickets(r.Context(), pr.OrgID, f)
	if err != nil {
		return err
	}
	views := make([]ticketView, len(tickets))
	for i, t := range tickets {
		views[i] = newTicketView(t)
	}
	writeList(w, views, total, page)
	return nil
}

func (a *API) getTicket(w http.ResponseWriter, r *http.Request) error {
	t, err := a.visibleTicket(r)
	if err != nil {
		return err
	}
	return a.writeTicketDetail(w, r, t)
}

type ticketDetailView struct {
	ticketView
	Thread        []ticketMessageView `json:"thread"`
	StatusHistory []ticketChangeView  `json:"status_history"`
	EscalationLog []escalationView    `json:"escalation_log"`
}

// writeTicketDetail answers a ticket with its thread, history and escalations.
func (a *API) writeTicketDetail(w http.ResponseWriter, r *http.Request, t store.Ticket) error {
	msgs, changes, escalations, err := a.Store.TicketThread(r.Context(), t.ID)
	if err != nil {
		return err
	}
	v := ticketDetailView{ticketView: newTicketView(t), Thread: []ticketMessageView{}, StatusHistory: []ticketChangeView{},
		EscalationLog: []escalationView{}}
	for _, m := range msgs {
		v.Thread = append(v.Thread, ticketMessageView{m.Author, m.AuthorKind, m.Body, timestamp.Format(m.At)})
	}
	for _, c := range changes {
		v.StatusHistory = append(v.StatusHistory, ticketChangeView{c.Field, optString(c.OldValue), optString(c.NewValue), c.Actor, c.Note, timestamp.Format(c.At)})
	}
	for _, e := range escalations {
		v.EscalationLog = append(v.EscalationLog, escalationView{e.Reason, e.Confidence, e.Actor, timestamp.Format(e.At)})
	}
	writeData(w, http.StatusOK, v)
	return nil
}

type ticketUpdateRequest struct {
	Status   *string         `json:"status"`
	Priority *string         `json:"priority"`
	Assignee json.RawMessage `json:"assignee"` // a user id, or null to unassign
	Note     string          `json:"note"`
}

func (a *API) updateTicket(w http.ResponseWriter, r *http.Request) error {
	var req ticketUpdateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	var p valid.Problems
	u := store.TicketUpdate{Status: req.Status, Priority: req.Priority, Note: req.Note}
	if req.Assignee != nil {
		var assignee string
		if !bytes.Equal(req.Assignee, []byte("null")) && json.Unmarshal(req.Assignee, &assignee) != nil {
			p.Add("assignee", "must be a user id or null")
		}
		u.Assignee = &assignee
	}
	p.Check(req.Status == nil || slices.Contains(store.TicketStatuses, *req.Status), "status",
		"must be one of "+strings.Join(store.TicketStatuses, ", "))
	p.Check(req.Priority == nil || slices.Contains(store.TicketPriorities, *req.Priority), "priority", "must be low, medium or high")
	p.Check(len(req.Note) <= 2000 && valid.Text(req.Note), "note", "must be at most 2000 bytes of text")
	if req.Status == nil && req.Priority == nil && req.Assignee == nil {
		p.Add("status", "or priority or assignee is required")
	}
	if err := p.Err(); err != nil {
		return err
	}
	pr := principalFrom(r.Context())
	member := ticketViewer(pr) != ""
	const memberRule = "Members may only resolve, close or reopen their tickets; an admin changes priority, assignee and the rest"
	u.Actor = actor(pr)
	// Checked against the ticket as read inside the update's transaction.
	u.Check = func(t store.Ticket) error {
		if !canSee(pr, t) {
			return notFound()
		}
		if member && (req.Priority != nil || req.Assignee != nil || (req.Status != nil && !slices.Contains(memberStatuses, *req.Status))) {
			return forbidden(memberRule)
		}
		// A member's "open" only reopens: it must not pull a ticket out of
		// the human queue.
		if member && req.Status != nil && *req.Status == store.TicketOpen && t.Status != store.TicketOpen &&
			t.Status != store.TicketResolved && t.Status != store.TicketClosed {
			return forbidden(memberRule)
		}
		if req.Status != nil && *req.Status != t.Status && !slices.Contains(ticketMoves[t.Status], *req.Status) {
			return conflict("A " + t.Status + " ticket cannot move to " + *req.Status + "; allowed: " + strings.Join(ticketMoves[t.Status], ", "))
		}
		return nil
	}
	t, err := a.Store.UpdateTicket(r.Context(), pr.OrgID, r.PathValue("id"), u)
	if err != nil {
		return err
	}
	return a.writeTicketDetail(w, r, t)
}

type ticketMessageRequest struct {
	Body string `json:"body"`
}

func (a *API) addTicketMessage(w http.ResponseWriter, r *http.Request) error {
	var req ticketMessageRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.Body) == "" || len(req.Body) > store.MaxTicketText || !valid.Text(req.Body) {
		return valid.Field("body", "is required: text of at most 10000 bytes")
	}
	t, err := a.visibleTicket(r)
	if err != nil {
		return err
	}
	pr := principalFrom(r.Context())
	m := store.TicketMessage{Author: actor(pr), AuthorKind: store.AuthorUser, Body: req.Body}
	if pr.Kind == KindAPIKey {
		m.AuthorKind = store.AuthorAPIKey
	}
	if err := a.Store.AddTicketMessage(r.Context(), pr.OrgID, t.ID, m); err != nil {
		return err
	}
	writeData(w, http.StatusCreated, ticketMessageView{m.Author, m.AuthorKind, m.Body, timestamp.Format(a.Now())})
	return nil
}

type notificationView struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Title     string `json:"title"`
	Body      string `json:"body"`
	Ref       string `json:"ref"`
	Audience  string `json:"audience"`
	CreatedAt string `json:"created_at"`
}

func (a *API) listNotifications(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	pr := principalFrom(r.Context())
	audiences := []string{store.AudienceAdmins}
	if pr.Kind == KindSession {
		audiences = []string{pr.User.ID}
		if pr.User.Role == store.RoleAdmin {
			audiences = append(audiences, store.AudienceAdmins)
		}
	}
	list, total, err := a.Store.Notifications(r.Context(), pr.OrgID, audiences, page)
	if err != nil {
		return err
	}
	views := make([]notificationView, len(list))
	for i, n := range list {
		views[i] = notificationView{n.ID, n.Kind, n.Title, n.Body, n.Ref, n.Audience, timestamp.Format(n.CreatedAt)}
	}
	writeList(w, views, total, page)
	return nil
}
