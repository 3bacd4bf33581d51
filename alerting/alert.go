package alerting

import (
	"time"

	"garrison/event"
)

// Alert statuses.
const (
	Open     = "open"
	Resolved = "resolved"
)

// Statuses lists the statuses an alert may have.
var Statuses = []string{Open, Resolved}

// MaxNote bounds the note of a status change.
const MaxNote = 2000

// Dispositions say, on resolution, whether an alert was real.
const (
	TruePositive  = "true_positive"
	FalsePositive = "false_positive"
	Benign        = "benign" // real activity, and allowed
	Duplicate     = "duplicate"
)

// Dispositions lists every disposition.
var Dispositions = []string{TruePositive, FalsePositive, Benign, Duplicate}

// Actions of an alert's history.
const (
	ActionStatus      = "status"      // resolved or reopened
	ActionAssign      = "assign"      // taken by a user, or released
	ActionAcknowledge = "acknowledge" // seen by someone who will act
)

// Alert is a distillation of events that needs a human.
type Alert struct {
	ID                string
	Severity          event.Severity
	Category          string
	Title             string
	Asset             string
	Indicator         string
	RecommendedAction string
	Status            string
	EventCount        int
	FirstSeen         time.Time
	LastSeen          time.Time
	Note              string
	ResolvedAt        *time.Time
	ResolvedBy        string
	// Disposition is the last resolution's, "" while open or when none
	// was given.
	Disposition    string
	Assignee       string // a user of the organization, "" when nobody took it
	AcknowledgedAt *time.Time
	AcknowledgedBy string
	TicketID       string // the ticket opened from it, "" when none
	Rule           *Rule  // the detection rule that opened it, nil for Garrison's own rules
	IncidentID     string // the incident of its attacker, "" when none
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Change is one entry of an alert's history: a status change (with its
// disposition when resolved), an assignment or an acknowledgement.
type Change struct {
	Action      string
	Status      string // the alert's status after the change
	Disposition string
	Assignee    string // an assignment's user, "" when released
	Note        string
	Actor       string
	At          time.Time
}

// Write is what a change asks the store to write to one or more alerts;
// nil fields stay as they are. Assignee "" releases the alert.
type Write struct {
	Status      *string
	Disposition string // with Status resolved
	Note        string
	Assignee    *string
	Actor       string
}

// Detail is an alert with the newest events behind it and its history.
type Detail struct {
	Alert
	Events  []event.Event
	History []Change
}

// Filter selects alerts: by status and severities (none: all), a page of them.
type Filter struct {
	Status     string
	Severities []event.Severity
	// Search: the alert's asset is the search's, its title or indicator
	// holds the text, and one of its events has the other fields.
	Search        event.Search
	Limit, Offset int
}
