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
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// Change is one entry of an alert's history.
type Change struct {
	Status string
	Note   string
	Actor  string
	At     time.Time
}

// Detail is an alert with the newest events behind it and its history.
type Detail struct {
	Alert
	Events  []event.Event
	History []Change
}

// Filter selects alerts: by status and severities (none: all), a page of them.
type Filter struct {
	Status        string
	Severities    []event.Severity
	Limit, Offset int
}
