package handlers

import (
	"encoding/json"
	"net/http"

	"garrison/dashboard"
	"garrison/event"
	"garrison/timestamp"
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

func (a *API) listEvents(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	events, total, err := a.Dashboard.Events(r.Context(), principalFrom(r.Context()).OrgID, dashboard.EventQuery{Page: page,
		Severity: q.Get("severity"), Type: q.Get("type"), From: q.Get("from"), To: q.Get("to"), Sort: q.Get("sort"), Order: q.Get("order")})
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
