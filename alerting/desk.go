package alerting

import (
	"context"

	"garrison/actor"
	"garrison/event"
	"garrison/valid"
)

// EventsShown bounds the events listed with one alert.
const EventsShown = 100

// Store is what the desk needs of the store.
type Store interface {
	Alerts(ctx context.Context, orgID string, f Filter) ([]Alert, int, error)
	AlertDetail(ctx context.Context, orgID, id string, eventsShown int) (Detail, error)
	SetAlertStatus(ctx context.Context, orgID, id, status, note, actor string) (Alert, error)
}

func validStatus(p *valid.Problems, status string) {
	p.Check(status == Open || status == Resolved, "status", "must be open or resolved")
}

// Query is a list request as given: a status and a comma list of
// severities, each empty for all.
type Query struct {
	Status, Severity string
	Limit, Offset    int
}

// List is a page of the organization's alerts, most recently active first.
func List(ctx context.Context, st Store, who actor.Actor, q Query) ([]Alert, int, error) {
	var p valid.Problems
	f := Filter{Status: q.Status, Severities: event.ParseSeverities(&p, "severity", q.Severity), Limit: q.Limit, Offset: q.Offset}
	if f.Status != "" {
		validStatus(&p, f.Status)
	}
	if err := p.Err(); err != nil {
		return nil, 0, err
	}
	return st.Alerts(ctx, who.OrgID, f)
}

// Get is one alert with its newest events and its history.
func Get(ctx context.Context, st Store, who actor.Actor, id string) (Detail, error) {
	return st.AlertDetail(ctx, who.OrgID, id, EventsShown)
}

// SetStatus resolves or reopens an alert in who's name, with a note.
func SetStatus(ctx context.Context, st Store, who actor.Actor, id, status, note string) (Alert, error) {
	var p valid.Problems
	validStatus(&p, status)
	p.CheckText("note", note, valid.TextRule{Max: MaxNote})
	if err := p.Err(); err != nil {
		return Alert{}, err
	}
	return st.SetAlertStatus(ctx, who.OrgID, id, status, note, who.ID)
}
