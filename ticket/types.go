// Package ticket holds support tickets: their vocabulary, what a
// submission must hold, which statuses a ticket may move between, when it
// goes to the human queue, and what members (as opposed to admins and API
// keys) may change. Who may see a ticket is actor's rule. The store applies
// these rules inside its transactions; the desk (desk.go) is what the API
// and the agents call.
package ticket

import (
	"encoding/json"
	"time"
)

// Statuses (docs/api.md).
const (
	Open       = "open"
	InProgress = "in_progress"
	Escalated  = "escalated"
	Resolved   = "resolved"
	Closed     = "closed"
)

// Statuses lists every status.
var Statuses = []string{Open, InProgress, Escalated, Resolved, Closed}

// Priorities lists the priorities, lowest first.
var Priorities = []string{"low", "medium", "high"}

// Limits of a ticket's texts, as the API and the triage agent take them.
const (
	MaxSubject = 200
	MaxText    = 10_000
	// maxNote bounds the note of a change.
	maxNote = 2000
)

// Author kinds of messages.
const (
	AuthorUser   = "user"
	AuthorAPIKey = "apikey"
	AuthorAgent  = "agent"
)

// Ticket is a support ticket.
type Ticket struct {
	ID              string
	OrgID           string
	CreatedBy       string
	Subject         string
	Description     string
	Priority        string
	Status          string
	Assignee        string // a user id, "" when unassigned
	Triage          json.RawMessage
	ResolutionSteps json.RawMessage
	TriageRunID     string
	TriageRunStatus string // status of the triage run, "" when there is none
	CreatedAt       time.Time
	UpdatedAt       time.Time
	ResolvedAt      *time.Time
	AlertID         string // the alert it was opened from, "" when none
}

// Message is one entry of a ticket's conversation.
type Message struct {
	Author     string
	AuthorKind string
	Body       string
	At         time.Time
}

// Change is one entry of a ticket's history.
type Change struct {
	Field    string
	OldValue string
	NewValue string
	Actor    string
	Note     string
	At       time.Time
}

// Escalation is one entry of a ticket's escalation log.
type Escalation struct {
	Reason     string
	Confidence *float64
	Actor      string
	At         time.Time
}

// Detail is a ticket with its conversation, history and escalation log,
// oldest first.
type Detail struct {
	Ticket
	Messages    []Message
	Changes     []Change
	Escalations []Escalation
}

// New is a ticket to store.
type New struct {
	OrgID       string
	CreatedBy   string
	Subject     string
	Description string
	Priority    string
	AlertID     string // the alert it is opened from, "" for none
}

// Write is what an update asks the store to write; nil fields stay as
// they are. Assignee "" unassigns.
type Write struct {
	Status   *string
	Priority *string
	Assignee *string
	Note     string
	Actor    string
	// Check vets the change against the ticket as it is inside the
	// transaction, so two updates cannot both pass on a stale read.
	Check func(current Ticket) error
}

// Triage is what the tech-support agent concluded about a ticket.
type Triage struct {
	Result   json.RawMessage // category, confidence, suggested priority, ...
	Steps    json.RawMessage // a JSON array of resolution steps
	Message  string          // the first message of the thread
	Actor    string          // the agent's slug
	RunID    string          // the run triaging; it must still be running
	Escalate *Escalation     // non-nil sends the ticket to the human queue
}

// Load is what the account manager reports of an organization's tickets.
type Load struct {
	ByStatus        map[string]int
	Escalated30d    int
	Resolved30d     int
	MeanResolveTime time.Duration // over tickets resolved in the last 30 days
}
