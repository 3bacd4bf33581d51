package alerting

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
	UpdateAlerts(ctx context.Context, orgID string, ids []string, w Write) ([]Alert, error)
	AcknowledgeAlert(ctx context.Context, orgID, id, actor string) (Alert, error)
}

// MaxBulk bounds the alerts one bulk change takes.
const MaxBulk = 200

func validStatus(p *valid.Problems, status string) {
	p.Check(status == Open || status == Resolved, "status", "must be open or resolved")
}

// Query is a list request as given: a status and a comma list of
// severities, each empty for all, and a search of the alerts' events.
type Query struct {
	Status, Severity string
	Search           event.SearchQuery
	Limit, Offset    int
}

// List is a page of the organization's alerts, most recently active first.
func List(ctx context.Context, st Store, who actor.Actor, q Query) ([]Alert, int, error) {
	f, err := q.Filter()
	if err != nil {
		return nil, 0, err
	}
	return st.Alerts(ctx, who.OrgID, f)
}

// Filter judges a list's filters as given.
func (q Query) Filter() (Filter, error) {
	var p valid.Problems
	f := Filter{Status: q.Status, Severities: event.ParseSeverities(&p, "severity", q.Severity), Limit: q.Limit, Offset: q.Offset,
		Search: event.ParseSearch(&p, q.Search)}
	if f.Status != "" {
		validStatus(&p, f.Status)
	}
	return f, p.Err()
}

// Get is one alert with its newest events and its history.
func Get(ctx context.Context, st Store, who actor.Actor, id string) (Detail, error) {
	return st.AlertDetail(ctx, who.OrgID, id, EventsShown)
}

// Edit is a person's or key's change of an alert: its status (resolving
// with a note and, optionally, a disposition) and who works it. Nil fields
// stay as they are; Assignee "" releases the alert.
type Edit struct {
	Status      *string
	Disposition string
	Note        string
	Assignee    *string
}

// check judges an edit: a resolution says whether the alert was real
// (its disposition), so closing alerts without looking is not work.
func (e Edit) check(p *valid.Problems, bulk bool) {
	switch {
	case e.Status == nil && e.Assignee == nil:
		p.Add("status", "must be open or resolved")
	case e.Status != nil:
		validStatus(p, *e.Status)
	}
	resolving := e.Status != nil && *e.Status == Resolved
	oneOf := "one of " + strings.Join(Dispositions, ", ")
	switch {
	case e.Disposition != "" && !resolving:
		p.Add("disposition", "is given only when resolving")
	case e.Disposition != "" && !slices.Contains(Dispositions, e.Disposition):
		p.Add("disposition", "must be "+oneOf)
	case bulk && resolving && e.Disposition == "":
		p.Add("disposition", "is required to resolve several alerts at once, saying whether they were real: "+oneOf)
	case resolving && e.Disposition == "":
		p.Add("disposition", "is required to resolve an alert, saying whether it was real: "+oneOf)
	}
	p.CheckText("note", e.Note, valid.TextRule{Max: MaxNote})
}

func (e Edit) write(who actor.Actor) Write {
	return Write{Status: e.Status, Disposition: e.Disposition, Note: e.Note, Assignee: e.Assignee, Actor: who.ID}
}

// Update changes one alert in who's name.
func Update(ctx context.Context, st Store, who actor.Actor, id string, e Edit) (Alert, error) {
	var p valid.Problems
	e.check(&p, false)
	if err := p.Err(); err != nil {
		return Alert{}, err
	}
	out, err := st.UpdateAlerts(ctx, who.OrgID, []string{id}, e.write(who))
	if err != nil {
		return Alert{}, err
	}
	return out[0], nil
}

// UpdateMany makes one change to several alerts at once, all or none, in
// who's name: at most MaxBulk, each named once, and a resolution names its
// disposition.
func UpdateMany(ctx context.Context, st Store, who actor.Actor, ids []string, e Edit) ([]Alert, error) {
	var p valid.Problems
	seen := map[string]bool{}
	for _, id := range ids {
		p.Check(id != "" && !seen[id], "ids", "must name each alert once")
		seen[id] = true
	}
	p.Check(len(ids) > 0 && len(ids) <= MaxBulk, "ids", fmt.Sprintf("must hold 1 to %d alert ids", MaxBulk))
	e.check(&p, true)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return st.UpdateAlerts(ctx, who.OrgID, ids, e.write(who))
}

// Acknowledge records that who saw the alert and will act on it; the first
// acknowledgement stays.
func Acknowledge(ctx context.Context, st Store, who actor.Actor, id string) (Alert, error) {
	return st.AcknowledgeAlert(ctx, who.OrgID, id, who.ID)
}
