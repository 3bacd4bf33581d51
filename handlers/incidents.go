package handlers

import (
	"net/http"
	"strings"

	"garrison/alerting"
	"garrison/timestamp"
)

type incidentView struct {
	ID         string   `json:"id"`
	Attacker   string   `json:"attacker"`
	Kind       string   `json:"attacker_kind"`
	Status     string   `json:"status"`
	Severity   string   `json:"severity"`
	AlertCount int      `json:"alert_count"`
	Assets     []string `json:"assets"`
	Tactics    []string `json:"tactics"`
	FirstSeen  string   `json:"first_seen"`
	LastSeen   string   `json:"last_seen"`
	CreatedAt  string   `json:"created_at"`
}

func newIncidentView(in alerting.Incident) incidentView {
	kind, who, _ := strings.Cut(in.Attacker, ":")
	return incidentView{ID: in.ID, Attacker: who, Kind: kind, Status: in.Status, Severity: in.Severity.String(),
		AlertCount: in.AlertCount, Assets: in.Assets, Tactics: in.Tactics, FirstSeen: timestamp.Format(in.FirstSeen),
		LastSeen: timestamp.Format(in.LastSeen), CreatedAt: timestamp.Format(in.CreatedAt)}
}

type incidentDetailView struct {
	incidentView
	// Alerts are the incident's timeline, oldest first.
	Alerts []alertView `json:"alerts"`
}

func (a *API) listIncidents(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	list, total, err := alerting.ListIncidents(r.Context(), a.Store, principalFrom(r.Context()).Actor,
		alerting.IncidentFilter{Status: r.URL.Query().Get("status"), Limit: page.Limit, Offset: page.Offset})
	if err != nil {
		return err
	}
	writeList(w, mapSlice(list, newIncidentView), total, page)
	return nil
}

func (a *API) getIncident(w http.ResponseWriter, r *http.Request) error {
	d, err := alerting.GetIncident(r.Context(), a.Store, principalFrom(r.Context()).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, incidentDetailView{incidentView: newIncidentView(d.Incident), Alerts: mapSlice(d.Alerts, newAlertView)})
	return nil
}
