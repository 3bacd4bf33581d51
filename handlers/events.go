package handlers

import (
	"encoding/json"
	"net/http"
	"net/url"

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
	Fields     *fieldsView     `json:"fields"`
	// Original is the record as received; only an event read alone
	// carries it (null when it came as native JSON).
	Original *string `json:"original,omitempty"`
}

// fieldsView is an event's normalised fields, those it has.
type fieldsView struct {
	SrcIP       string `json:"src_ip,omitempty"`
	DstIP       string `json:"dst_ip,omitempty"`
	SrcPort     int    `json:"src_port,omitempty"`
	DstPort     int    `json:"dst_port,omitempty"`
	User        string `json:"user,omitempty"`
	Process     string `json:"process,omitempty"`
	CommandLine string `json:"command_line,omitempty"`
	Host        string `json:"host,omitempty"`
	Rule        string `json:"rule,omitempty"`
	Action      string `json:"action,omitempty"`
}

func newFieldsView(f event.Fields) *fieldsView {
	if f.IsZero() {
		return nil
	}
	v := &fieldsView{SrcPort: int(f.SrcPort), DstPort: int(f.DstPort), User: f.User, Process: f.Process,
		CommandLine: f.CommandLine, Host: f.Host, Rule: f.Rule, Action: f.Action}
	if f.SrcIP.IsValid() {
		v.SrcIP = f.SrcIP.String()
	}
	if f.DstIP.IsValid() {
		v.DstIP = f.DstIP.String()
	}
	return v
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
		AlertID: optString(e.AlertID), ReceivedAt: timestamp.Format(e.ReceivedAt), Fields: newFieldsView(e.Fields)}
}

func (a *API) listEvents(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	q := eventQuery(r)
	q.Page = page
	events, total, err := a.Dashboard.Events(r.Context(), principalFrom(r.Context()).OrgID, q)
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

// eventQuery reads the events list's filters from the query.
func eventQuery(r *http.Request) dashboard.EventQuery {
	q := r.URL.Query()
	return dashboard.EventQuery{Severity: q.Get("severity"), Type: q.Get("type"), From: q.Get("from"), To: q.Get("to"),
		Sort: q.Get("sort"), Order: q.Get("order"), Search: searchQuery(q)}
}

// searchQuery reads the field search the events and alerts lists share.
func searchQuery(q url.Values) event.SearchQuery {
	return event.SearchQuery{SrcIP: q.Get("src_ip"), DstIP: q.Get("dst_ip"), Asset: q.Get("asset"), User: q.Get("user"),
		Rule: q.Get("rule"), Source: q.Get("source"), Q: q.Get("q")}
}

// getEvent answers one event with the record as it was received.
func (a *API) getEvent(w http.ResponseWriter, r *http.Request) error {
	e, err := a.Dashboard.Event(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	v := newEventView(e)
	v.Original = optString(e.Original)
	writeData(w, http.StatusOK, v)
	return nil
}
