// Package ticket holds the rules of support tickets: what a submission
// must hold, which statuses a ticket may move between, and what members
// (as opposed to admins and API keys) may change. Who may see a ticket is
// actor's rule, asked by the store.
package ticket

import (
	"context"
	"slices"
	"strings"

	"garrison/actor"
	"garrison/fault"
	"garrison/store"
	"garrison/valid"
)

// defaultPriority is the priority of a ticket whose submitter gives none.
const defaultPriority = "medium"

// maxNote bounds the note of a change.
const maxNote = 2000

// moves lists, per status, the statuses a ticket may move to. Resolved and
// closed tickets are reopened before anything else.
var moves = map[string][]string{
	store.TicketOpen:       {store.TicketInProgress, store.TicketEscalated, store.TicketResolved, store.TicketClosed},
	store.TicketInProgress: {store.TicketOpen, store.TicketEscalated, store.TicketResolved, store.TicketClosed},
	store.TicketEscalated:  {store.TicketOpen, store.TicketInProgress, store.TicketResolved, store.TicketClosed},
	store.TicketResolved:   {store.TicketOpen, store.TicketClosed},
	store.TicketClosed:     {store.TicketOpen},
}

// memberStatuses are the statuses a member may set on a ticket they see;
// open only to reopen a resolved or closed one.
var memberStatuses = []string{store.TicketOpen, store.TicketResolved, store.TicketClosed}

// ErrMemberLimits: members may only resolve, close or reopen their tickets.
var ErrMemberLimits = fault.New(fault.Forbidden,
	"Members may only resolve, close or reopen their tickets; an admin changes priority, assignee and the rest")

// MoveError refuses a status change the ticket's status does not allow.
type MoveError struct {
	From, To string
}

func (e *MoveError) Error() string {
	return "A " + e.From + " ticket cannot move to " + e.To + "; allowed: " + strings.Join(moves[e.From], ", ")
}

// Fault is what the client is told: a conflict with the ticket's status.
func (e *MoveError) Fault() *fault.Error { return fault.New(fault.Conflict, e.Error()) }

// Submission is a new ticket.
type Submission struct {
	Subject, Description, Priority string
}

// Queue is what submitting needs of the agents: a wake-up for the triage run.
type Queue interface{ Notify() }

// Submit validates and stores a ticket with its triage run, spending one
// run of the organization's budget first (spend may refuse), then wakes
// the agents. A refused submission spends nothing.
func Submit(ctx context.Context, st *store.Store, q Queue, who actor.Actor, s Submission, triageAgent string, spend func() error) (store.Ticket, error) {
	s.Subject = strings.TrimSpace(s.Subject)
	if s.Priority == "" {
		s.Priority = defaultPriority
	}
	var p valid.Problems
	p.CheckText("subject", s.Subject, valid.TextRule{Max: store.MaxTicketSubject, Required: true, OneLine: true})
	p.CheckText("description", s.Description, valid.TextRule{Max: store.MaxTicketText, Required: true})
	p.Check(slices.Contains(store.TicketPriorities, s.Priority), "priority", "must be low, medium or high")
	if err := p.Err(); err != nil {
		return store.Ticket{}, err
	}
	if err := spend(); err != nil {
		return store.Ticket{}, err
	}
	t, err := st.SubmitTicket(ctx, store.NewTicket{OrgID: who.OrgID, CreatedBy: who.ID, Subject: s.Subject,
		Description: s.Description, Priority: s.Priority}, triageAgent)
	if err != nil {
		return t, err
	}
	q.Notify()
	return t, nil
}

// ValidStatus checks a status filter.
func ValidStatus(p *valid.Problems, field, status string) {
	p.Check(status == "" || slices.Contains(store.TicketStatuses, status), field, "must be one of "+strings.Join(store.TicketStatuses, ", "))
}

// Change is an update of a ticket; nil fields stay as they are. Assignee
// "" unassigns.
type Change struct {
	Status, Priority, Assignee *string
	Note                       string
}

// Update applies a change, checked against the ticket as it is inside the
// store's transaction, so two updates cannot both pass on a stale read, and
// returns the ticket with its thread.
func Update(ctx context.Context, st *store.Store, who actor.Actor, id string, ch Change) (store.TicketDetail, error) {
	var p valid.Problems
	p.Check(ch.Status == nil || slices.Contains(store.TicketStatuses, *ch.Status), "status", "must be one of "+strings.Join(store.TicketStatuses, ", "))
	p.Check(ch.Priority == nil || slices.Contains(store.TicketPriorities, *ch.Priority), "priority", "must be low, medium or high")
	p.CheckText("note", ch.Note, valid.TextRule{Max: maxNote})
	if ch.Status == nil && ch.Priority == nil && ch.Assignee == nil {
		p.Add("status", "or priority or assignee is required")
	}
	if err := p.Err(); err != nil {
		return store.TicketDetail{}, err
	}
	u := store.TicketUpdate{Status: ch.Status, Priority: ch.Priority, Assignee: ch.Assignee, Note: ch.Note, Actor: who.ID}
	member := !who.SeesOrganization()
	u.Check = func(t store.Ticket) error {
		if member && (ch.Priority != nil || ch.Assignee != nil || (ch.Status != nil && !slices.Contains(memberStatuses, *ch.Status))) {
			return ErrMemberLimits
		}
		// A member's "open" only reopens: it must not pull a ticket out of
		// the human queue.
		if member && ch.Status != nil && *ch.Status == store.TicketOpen && t.Status != store.TicketOpen &&
			t.Status != store.TicketResolved && t.Status != store.TicketClosed {
			return ErrMemberLimits
		}
		if ch.Status != nil && *ch.Status != t.Status && !slices.Contains(moves[t.Status], *ch.Status) {
			return &MoveError{From: t.Status, To: *ch.Status}
		}
		return nil
	}
	return st.UpdateTicket(ctx, who, id, u)
}

// Reply adds a message to a ticket's thread.
func Reply(ctx context.Context, st *store.Store, who actor.Actor, id string, m store.TicketMessage) error {
	var p valid.Problems
	p.CheckText("body", m.Body, valid.TextRule{Max: store.MaxTicketText, Required: true})
	if err := p.Err(); err != nil {
		return err
	}
	return st.AddTicketMessage(ctx, who, id, m)
}
