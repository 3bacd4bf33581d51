package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"garrison/agents"
	"garrison/alerting"
	"garrison/ticket"
	"garrison/timestamp"
	"garrison/valid"
)

type alertView struct {
	ID                string  `json:"id"`
	Severity          string  `json:"severity"`
	Category          string  `json:"category"`
	Title             string  `json:"title"`
	AffectedAsset     string  `json:"affected_asset"`
	Indicator         *string `json:"indicator"`
	RecommendedAction string  `json:"recommended_action"`
	Status            string  `json:"status"`
	EventCount        int     `json:"event_count"`
	FirstSeen         string  `json:"first_seen"`
	LastSeen          string  `json:"last_seen"`
	Note              string  `json:"note"`
	ResolvedAt        *string `json:"resolved_at"`
	ResolvedBy        *string `json:"resolved_by"`
	Disposition       *string `json:"disposition"`
	Assignee          *string `json:"assignee"`
	AcknowledgedAt    *string `json:"acknowledged_at"`
	AcknowledgedBy    *string `json:"acknowledged_by"`
	TicketID          *string `json:"ticket_id"`
	// Rule is the detection rule that opened the alert, with its author
	// (the Detection Rule License asks every alert to keep it); null for
	// Garrison's own severity and burst rules.
	Rule *alerting.Rule `json:"rule"`
	// IncidentID is the incident of the alert's attacker, null when it
	// names none.
	IncidentID *string `json:"incident_id"`
	CreatedAt  string  `json:"created_at"`
	UpdatedAt  string  `json:"updated_at"`
}

func newAlertView(a alerting.Alert) alertView {
	return alertView{ID: a.ID, Severity: a.Severity.String(), Category: a.Category, Title: a.Title,
		AffectedAsset: a.Asset, Indicator: optString(a.Indicator), RecommendedAction: a.RecommendedAction, Status: a.Status,
		EventCount: a.EventCount, FirstSeen: timestamp.Format(a.FirstSeen), LastSeen: timestamp.Format(a.LastSeen), Note: a.Note,
		ResolvedAt: timestamp.Optional(a.ResolvedAt), ResolvedBy: optString(a.ResolvedBy), Disposition: optString(a.Disposition),
		Assignee: optString(a.Assignee), AcknowledgedAt: timestamp.Optional(a.AcknowledgedAt), AcknowledgedBy: optString(a.AcknowledgedBy),
		TicketID: optString(a.TicketID), Rule: a.Rule, IncidentID: optString(a.IncidentID), CreatedAt: timestamp.Format(a.CreatedAt), UpdatedAt: timestamp.Format(a.UpdatedAt)}
}

type alertChangeView struct {
	Action      string  `json:"action"`
	Status      string  `json:"status"`
	Disposition *string `json:"disposition"`
	Assignee    *string `json:"assignee"`
	Note        string  `json:"note"`
	By          string  `json:"by"`
	At          string  `json:"at"`
}

func (a *API) listAlerts(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	alerts, total, err := alerting.List(r.Context(), a.Store, principalFrom(r.Context()).Actor,
		alerting.Query{Status: q.Get("status"), Severity: q.Get("severity"), Limit: page.Limit, Offset: page.Offset,
			Search: searchQuery(q)})
	if err != nil {
		return err
	}
	views := make([]alertView, len(alerts))
	for i, al := range alerts {
		views[i] = newAlertView(al)
	}
	writeList(w, views, total, page)
	return nil
}

// getAlert answers one alert with the events behind it and its history.
func (a *API) getAlert(w http.ResponseWriter, r *http.Request) error {
	d, err := alerting.Get(r.Context(), a.Store, principalFrom(r.Context()).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	out := struct {
		alertView
		Events  []eventView       `json:"events"`
		History []alertChangeView `json:"history"`
	}{alertView: newAlertView(d.Alert), Events: mapSlice(d.Events, newEventView), History: []alertChangeView{}}
	for _, c := range d.History {
		out.History = append(out.History, alertChangeView{Action: c.Action, Status: c.Status, Disposition: optString(c.Disposition),
			Assignee: optString(c.Assignee), Note: c.Note, By: c.Actor, At: timestamp.Format(c.At)})
	}
	writeData(w, http.StatusOK, out)
	return nil
}

type alertUpdateRequest struct {
	Status      *string         `json:"status"`
	Disposition string          `json:"disposition"`
	Note        string          `json:"note"`
	Assignee    json.RawMessage `json:"assignee"` // a user id, or null to release
}

// edit is the request as the alert rules take it.
func (req alertUpdateRequest) edit() (alerting.Edit, error) {
	e := alerting.Edit{Status: req.Status, Disposition: req.Disposition, Note: req.Note}
	if req.Assignee != nil {
		var assignee string
		if !bytes.Equal(req.Assignee, []byte("null")) && json.Unmarshal(req.Assignee, &assignee) != nil {
			return e, valid.Field("assignee", "must be a user id or null")
		}
		e.Assignee = &assignee
	}
	return e, nil
}

func (a *API) updateAlert(w http.ResponseWriter, r *http.Request) error {
	var req alertUpdateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	e, err := req.edit()
	if err != nil {
		return err
	}
	al, err := alerting.Update(r.Context(), a.Store, principalFrom(r.Context()).Actor, r.PathValue("id"), e)
	if err != nil {
		return err
	}
	if e.Disposition != "" {
		auditDetail(r, "disposition", e.Disposition)
	}
	writeData(w, http.StatusOK, newAlertView(al))
	return nil
}

type alertBulkRequest struct {
	IDs         []string        `json:"ids"`
	Status      *string         `json:"status"`
	Disposition string          `json:"disposition"`
	Note        string          `json:"note"`
	Assignee    json.RawMessage `json:"assignee"`
}

type alertBulkView struct {
	Updated int         `json:"updated"`
	Alerts  []alertView `json:"alerts"`
}

// updateAlerts makes one change to several alerts, all or none.
func (a *API) updateAlerts(w http.ResponseWriter, r *http.Request) error {
	var req alertBulkRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	e, err := alertUpdateRequest{Status: req.Status, Disposition: req.Disposition, Note: req.Note, Assignee: req.Assignee}.edit()
	if err != nil {
		return err
	}
	alerts, err := alerting.UpdateMany(r.Context(), a.Store, principalFrom(r.Context()).Actor, req.IDs, e)
	if err != nil {
		return err
	}
	auditDetail(r, "alerts", strings.Join(req.IDs, ","))
	if e.Disposition != "" {
		auditDetail(r, "disposition", e.Disposition)
	}
	writeData(w, http.StatusOK, alertBulkView{Updated: len(alerts), Alerts: mapSlice(alerts, newAlertView)})
	return nil
}

func (a *API) acknowledgeAlert(w http.ResponseWriter, r *http.Request) error {
	if err := decode(r, &struct{}{}); err != nil {
		return err
	}
	al, err := alerting.Acknowledge(r.Context(), a.Store, principalFrom(r.Context()).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newAlertView(al))
	return nil
}

// ticketFromAlert opens the alert's ticket, linked both ways.
func (a *API) ticketFromAlert(w http.ResponseWriter, r *http.Request) error {
	if err := decode(r, &struct{}{}); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	al, err := alerting.Get(r.Context(), a.Store, p.Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	facts := ticket.AlertFacts{ID: al.ID, Title: al.Title, Severity: al.Severity.String(), Category: al.Category, Asset: al.Asset,
		Indicator: al.Indicator, Action: al.RecommendedAction, Events: al.EventCount, FirstSeen: al.FirstSeen, TicketID: al.TicketID}
	spend := func() error { return a.ChargeAgentRun(w, r, p.OrgID) }
	t, err := ticket.SubmitForAlert(r.Context(), a.Store, a.Agents, p.Actor, facts, agents.TechSupportSlug, spend)
	if err != nil {
		return err
	}
	auditTarget(r, al.ID)
	auditDetail(r, "ticket", t.ID)
	writeData(w, http.StatusCreated, newTicketView(t))
	return nil
}
