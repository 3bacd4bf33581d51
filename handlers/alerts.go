package handlers

import (
	"net/http"

	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// alertEventsShown bounds the events listed with one alert.
const alertEventsShown = 100

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

func newAlertView(a store.Alert) alertView {
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
	var p valid.Problems
	f := store.AlertFilter{Page: page, Status: q.Get("status"), Severities: parseSeverities(&p, q.Get("severity"))}
	p.Check(f.Status == "" || f.Status == store.AlertOpen || f.Status == store.AlertResolved, "status", "must be open or resolved")
	if err := p.Err(); err != nil {
		return err
	}
	alerts, total, err := a.Store.Alerts(r.Context(), principalFrom(r.Context()).OrgID, f)
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
	d, err := a.Store.AlertDetail(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"), alertEventsShown)
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
	var p valid.Problems
	p.Check(req.Status == store.AlertOpen || req.Status == store.AlertResolved, "status", "must be open or resolved")
	p.CheckText("note", req.Note, valid.TextRule{Max: 2000})
	if err := p.Err(); err != nil {
		return err
	}
	pr := principalFrom(r.Context())
	al, err := a.Store.SetAlertStatus(r.Context(), pr.OrgID, r.PathValue("id"), req.Status, req.Note, pr.ID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newAlertView(al))
	return nil
}
