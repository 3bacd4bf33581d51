package handlers

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"garrison/store"

	"garrison/event"
	"garrison/timestamp"
	"garrison/valid"
)

type eventView struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Severity   string          `json:"severity"`
	Timestamp  string          `json:"timestamp"`
	Source     string          `json:"source"`
	Asset      string          `json:"asset"`
	Message    string          `json:"message"`
	Indicator  *string         `json:"indicator"`
	Details    json.RawMessage `json:"details"`
	AlertID    *string         `json:"alert_id"`
	ReceivedAt string          `json:"received_at"`
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func newEventView(e event.Event) eventView {
	details := json.RawMessage(e.Details)
	if details == nil {
		details = json.RawMessage("null")
	}
	return eventView{ID: e.ID, Type: e.Type, Severity: e.Severity.String(), Timestamp: timestamp.Format(e.Timestamp),
		Source: e.Source, Asset: e.Asset, Message: e.Message, Indicator: optString(e.Indicator), Details: details,
		AlertID: optString(e.AlertID), ReceivedAt: timestamp.Format(e.ReceivedAt)}
}

// parseTimeRange reads the from and to of a list: RFC 3339, to given in
// whole seconds covering that second (times are shown to the second), and
// from not after to.
func parseTimeRange(p *valid.Problems, r *http.Request) (from, to *time.Time) {
	q := r.URL.Query()
	from, to = parseTime(p, "from", q.Get("from")), parseTime(p, "to", q.Get("to"))
	if to != nil && to.Nanosecond() == 0 {
		end := to.Add(time.Second - time.Millisecond)
		to = &end
	}
	if from != nil && to != nil && from.After(*to) {
		p.Add("from", "must not be after to")
	}
	return from, to
}

func parseTime(p *valid.Problems, field, v string) *time.Time {
	if v == "" {
		return nil
	}
	t, err := timestamp.Parse(v)
	if err != nil {
		p.Add(field, "must be an RFC 3339 timestamp")
		return nil
	}
	return &t
}

func (a *API) listEvents(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	var p valid.Problems
	f := store.EventFilter{Page: page, Severities: event.ParseSeverities(&p, "severity", q.Get("severity"))}
	if v := q.Get("type"); v != "" {
		for _, t := range strings.Split(v, ",") {
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
	f.From, f.To = parseTimeRange(&p, r)
	switch q.Get("sort") {
	case "", "timestamp":
	case "severity":
		f.SortBySeverity = true
	default:
		p.Add("sort", "must be timestamp or severity")
	}
	switch q.Get("order") {
	case "", "desc":
	case "asc":
		f.Ascending = true
	default:
		p.Add("order", "must be asc or desc")
	}
	if err := p.Err(); err != nil {
		return err
	}
	events, total, err := a.Store.Events(r.Context(), principalFrom(r.Context()).OrgID, f)
	if err != nil {
		return err
	}
	views := make([]eventView, len(events))
	for i, e := range events {
		views[i] = newEventView(e)
	}
	writeEventList(w, views, total, page)
	return nil
}
