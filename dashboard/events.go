package dashboard

import (
	"context"
	"slices"
	"strings"

	"garrison/event"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// EventQuery is the events list's filters as given: comma lists of
// severities and types, an RFC 3339 range, sort (timestamp or severity)
// and order (desc or asc); empty ones take their default.
type EventQuery struct {
	Severity, Type, From, To, Sort, Order string
	// Search by an event's fields: an address or CIDR, exact names, and
	// text in the message, rule or indicator.
	Search event.SearchQuery
	Page   store.Page
}

// Events is a page of the organization's events, after judging the
// filters.
func (b *Board) Events(ctx context.Context, orgID string, q EventQuery) ([]event.Event, int, error) {
	f, err := eventFilter(q)
	if err != nil {
		return nil, 0, err
	}
	return b.store.Events(ctx, orgID, f)
}

// ExportEvents hands every event passing the filters to each, oldest
// first, in constant memory; the query's page and sort are not used.
func (b *Board) ExportEvents(ctx context.Context, orgID string, q EventQuery, each func(event.Event) error) error {
	f, err := eventFilter(q)
	if err != nil {
		return err
	}
	return b.store.EachEvent(ctx, orgID, f, each)
}

// Event is one of the organization's events, with its original record.
func (b *Board) Event(ctx context.Context, orgID, id string) (event.Event, error) {
	return b.store.Event(ctx, orgID, id)
}

// eventFilter judges the events list's filters.
func eventFilter(q EventQuery) (store.EventFilter, error) {
	var p valid.Problems
	f := store.EventFilter{Page: q.Page, Severities: event.ParseSeverities(&p, "severity", q.Severity), Search: event.ParseSearch(&p, q.Search)}
	if q.Type != "" {
		for _, t := range strings.Split(q.Type, ",") {
			t = strings.TrimSpace(t)
			if !slices.Contains(event.Types, t) {
				p.Add("type", "must be a comma list of "+strings.Join(event.Types, ", "))
				break
			}
			if !slices.Contains(f.Types, t) {
				f.Types = append(f.Types, t)
			}
		}
	}
	f.From, f.To = timestamp.ParseRange(&p, q.From, q.To)
	switch q.Sort {
	case "", "timestamp":
	case "severity":
		f.SortBySeverity = true
	default:
		p.Add("sort", "must be timestamp or severity")
	}
	switch q.Order {
	case "", "desc":
	case "asc":
		f.Ascending = true
	default:
		p.Add("order", "must be asc or desc")
	}
	return f, p.Err()
}

// Threats is a page of the organization's threat indicators, most active
// first.
func (b *Board) Threats(ctx context.Context, orgID string, p store.Page) ([]store.Threat, int, error) {
	return b.store.Threats(ctx, orgID, p)
}

// Health is whether the server answers: Down when its database cannot be
// read; otherwise Degraded names why writes fail, "" when they do not.
func (b *Board) Health() (down bool, degraded string) {
	if b.store.Healthy() != nil {
		return true, ""
	}
	return false, b.store.WriteFailure()
}
