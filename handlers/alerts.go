package handlers

import (
	"net/http"

	"garrison/alerting"
	"garrison/timestamp"
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
	CreatedAt         string  `json:"created_at"`
	UpdatedAt         string  `json:"updated_at"`
}

func newAlertView(a alerting.Alert) alertView {
	return alertView{ID: a.ID, Severity: a.Severity.String(), Category: a.Category, Title: a.Title,
		AffectedAsset: a.Asset, Indicator: optString(a.Indicator), RecommendedAction: a.RecommendedAction, Status: a.Status,
		EventCount: a.EventCount, FirstSeen: timestamp.Format(a.FirstSeen), LastSeen: timestamp.Format(a.LastSeen), Note: a.Note,
		ResolvedAt: timestamp.Optional(a.ResolvedAt), ResolvedBy: optString(a.ResolvedBy), CreatedAt: timestamp.Format(a.CreatedAt),
		UpdatedAt: timestamp.Format(a.UpdatedAt)}
}

type alertChangeView struct {
	Status string `json:"status"`
	Note   string `json:"note"`
	By     string `json:"by"`
	At     string `json:"at"`
}

func (a *API) listAlerts(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	alerts, total, err := alerting.List(r.Context(), a.Store, principalFrom(r.Context()).Actor,
		alerting.Query{Status: q.Get("status"), Severity: q.Get("severity"), Limit: page.Limit, Offset: page.Offset})
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
		out.History = append(out.History, alertChangeView{Status: c.Status, Note: c.Note, By: c.Actor, At: timestamp.Format(c.At)})
	}
	writeData(w, http.StatusOK, out)
	return nil
}

type alertUpdateRequest struct {
	Status string `json:"status"`
	Note   string `json:"note"`
}

func (a *API) updateAlert(w http.ResponseWriter, r *http.Request) error {
	var req alertUpdateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	al, err := alerting.SetStatus(r.Context(), a.Store, principalFrom(r.Context()).Actor, r.PathValue("id"), req.Status, req.Note)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newAlertView(al))
	return nil
}
