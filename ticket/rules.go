package ticket

import (
	"slices"
	"strings"

	"garrison/fault"
	"garrison/valid"
)

// defaultPriority is the priority of a ticket whose submitter gives none.
const defaultPriority = "medium"

// moves lists, per status, the statuses a ticket may move to. Resolved and
// closed tickets are reopened before anything else.
var moves = map[string][]string{
	Open:       {InProgress, Escalated, Resolved, Closed},
	InProgress: {Open, Escalated, Resolved, Closed},
	Escalated:  {Open, InProgress, Resolved, Closed},
	Resolved:   {Open, Closed},
	Closed:     {Open},
}

// memberStatuses are the statuses a member may set on a ticket they see;
// open only to reopen a resolved or closed one.
var memberStatuses = []string{Open, Resolved, Closed}

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

// checkMove vets a change of a ticket by its status as it is now: whether a
// member may make it, and whether the status may move there.
func checkMove(current Ticket, member bool, status, priority, assignee *string) error {
	if member && (priority != nil || assignee != nil || (status != nil && !slices.Contains(memberStatuses, *status))) {
		return ErrMemberLimits
	}
	// A member's "open" only reopens: it must not pull a ticket out of the
	// human queue.
	if member && status != nil && *status == Open && current.Status != Open && current.Status != Resolved && current.Status != Closed {
		return ErrMemberLimits
	}
	if status != nil && *status != current.Status && !slices.Contains(moves[current.Status], *status) {
		return &MoveError{From: current.Status, To: *status}
	}
	return nil
}

// Counts as resolved: a ticket moving to status is resolved from then on
// (its first resolution time is kept); moving elsewhere clears it.
func Resolves(status string) bool { return status == Resolved || status == Closed }

// TriageEscalates says whether an unsure triage sends a ticket in status to
// the human queue: only while it is open; a person moved it otherwise.
func TriageEscalates(status string) bool { return status == Open }

// ManualEscalation is the log entry of a person escalating a ticket; the
// note says why, or the entry says who.
func ManualEscalation(actor, note string) Escalation {
	if note == "" {
		note = "Escalated by " + actor
	}
	return Escalation{Reason: note, Actor: actor}
}

// UntriagedEscalation is the log entry of an open ticket whose triage run
// ended (runStatus: failed or cancelled) without triaging it: a technician
// takes it over.
func UntriagedEscalation(runStatus string) Escalation {
	return Escalation{Actor: "garrison", Reason: "Automatic triage " + runStatus + "; a technician needs to review this ticket."}
}

// ValidStatus checks a status filter.
func ValidStatus(p *valid.Problems, field, status string) {
	p.Check(status == "" || slices.Contains(Statuses, status), field, "must be one of "+strings.Join(Statuses, ", "))
}

func validPriority(p *valid.Problems, priority string) {
	p.Check(slices.Contains(Priorities, priority), "priority", "must be low, medium or high")
}
