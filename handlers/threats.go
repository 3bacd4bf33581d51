package handlers

import (
	"net/http"

	"garrison/timestamp"
)

type threatView struct {
	Indicator      string   `json:"indicator"`
	Type           string   `json:"type"`
	Severity       string   `json:"severity"`
	Count          int      `json:"count"`
	AffectedAssets []string `json:"affected_assets"`
	FirstSeen      string   `json:"first_seen"`
	LastSeen       string   `json:"last_seen"`
}

func (a *API) listThreats(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	threats, total, err := a.Dashboard.Threats(r.Context(), principalFrom(r.Context()).OrgID, page)
	if err != nil {
		return err
	}
	views := make([]threatView, len(threats))
	for i, t := range threats {
		assets := t.Assets
		if assets == nil {
			assets = []string{}
		}
		views[i] = threatView{Indicator: t.Indicator, Type: t.Type, Severity: t.MaxSeverity.String(), Count: t.Count,
			AffectedAssets: assets, FirstSeen: timestamp.Format(t.FirstSeen), LastSeen: timestamp.Format(t.LastSeen)}
	}
	writeList(w, views, total, page)
	return nil
}
