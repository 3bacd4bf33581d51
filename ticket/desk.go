package ticket

import (
	"context"
	"slices"
	"strings"

	"garrison/actor"
	"garrison/valid"
)

// Store is what the desk needs of the store; the store applies the rules
// of this package inside its transactions.
type Store interface {
	SubmitTicket(ctx context.Context, n New, triageAgent string) (Ticket, error)
	Ticket(ctx context.Context, who actor.Actor, id string) (Ticket, error)
	Tickets(ctx context.Context, who actor.Actor, status string, limit, offset int) ([]Ticket, int, error)
	TicketDetail(ctx context.Context, who actor.Actor, id string) (Detail, error)
	UpdateTicket(ctx context.Context, who actor.Actor, id string, w Write) (Detail, error)
	AddTicketMessage(ctx context.Context, who actor.Actor, id string, m Message) error
}

// Queue is what submitting needs of the agents: a wake-up for the triage run.
type Queue interface{ Notify() }

// Submission is a new ticket.
type Submission struct {
	Subject, Description, Priority string
}

// Submit validates and stores a ticket with its triage run, spending one
// run of the organization's budget first (spend may refuse), then wakes
// the agents. A refused submission spends nothing.
func Submit(ctx context.Context, st Store, q Queue, who actor.Actor, s Submission, triageAgent string, spend func() error) (Ticket, error) {
	s.Subject = strings.TrimSpace(s.Subject)
	if s.Priority == "" {
		s.Priority = defaultPriority
	}
	var p valid.Problems
	p.CheckText("subject", s.Subject, valid.TextRule{Max: MaxSubject, Required: true, OneLine: true})
	p.CheckText("description", s.Description, valid.TextRule{Max: MaxText, Required: true})
	validPriority(&p, s.Priority)
	if err := p.Err(); err != nil {
		return Ticket{}, err
	}
	if err := spend(); err != nil {
		return Ticket{}, err
	}
	t, err := st.SubmitTicket(ctx, New{OrgID: who.OrgID, CreatedBy: who.ID, Subject: s.Subject,
		Description: s.Description, Priority: s.Priority}, triageAgent)
	if err != nil {
		return t, err
	}
	q.Notify()
	return t, nil
}

// List is a page of the tickets who sees, newest first, optionally of one status.
func List(ctx context.Context, st Store, who actor.Actor, status string, limit, offset int) ([]Ticket, int, error) {
	var p valid.Problems
	ValidStatus(&p, "status", status)
	if err := p.Err(); err != nil {
		return nil, 0, err
	}
	return st.Tickets(ctx, who, status, limit, offset)
}

// Get is one ticket who sees, with its thread.
func Get(ctx context.Context, st Store, who actor.Actor, id string) (Detail, error) {
	return st.TicketDetail(ctx, who, id)
}

// Edit is a person's or key's update of a ticket; nil fields stay as they
// are. Assignee "" unassigns.
type Edit struct {
	Status, Priority, Assignee *string
	Note                       string
}

// Update applies a change, checked against the ticket as it is inside the
// store's transaction, so two updates cannot both pass on a stale read, and
// returns the ticket with its thread.
func Update(ctx context.Context, st Store, who actor.Actor, id string, ch Edit) (Detail, error) {
	var p valid.Problems
	p.Check(ch.Status == nil || slices.Contains(Statuses, *ch.Status), "status", "must be one of "+strings.Join(Statuses, ", "))
	if ch.Priority != nil {
		validPriority(&p, *ch.Priority)
	}
	p.CheckText("note", ch.Note, valid.TextRule{Max: maxNote})
	if ch.Status == nil && ch.Priority == nil && ch.Assignee == nil {
		p.Add("status", "or priority or assignee is required")
	}
	if err := p.Err(); err != nil {
		return Detail{}, err
	}
	member := !who.SeesOrganization()
	return st.UpdateTicket(ctx, who, id, Write{Status: ch.Status, Priority: ch.Priority, Assignee: ch.Assignee, Note: ch.Note,
		Actor: who.ID, Check: func(t Ticket) error { return checkMove(t, member, ch.Status, ch.Priority, ch.Assignee) }})
}

// Reply adds a message to a ticket's thread, in the name of who.
func Reply(ctx context.Context, st Store, who actor.Actor, id, body string) (Message, error) {
	var p valid.Problems
	p.CheckText("body", body, valid.TextRule{Max: MaxText, Required: true})
	if err := p.Err(); err != nil {
		return Message{}, err
	}
	m := Message{Author: who.ID, AuthorKind: AuthorUser, Body: body}
	if who.Kind == actor.Key {
		m.AuthorKind = AuthorAPIKey
	}
	if err := st.AddTicketMessage(ctx, who, id, m); err != nil {
		return Message{}, err
	}
	return m, nil
}
