package handlers

import (
	"net/http"
	"time"

	"garrison/store"

	"garrison/event"
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
	threats, total, err := a.Store.Threats(r.Context(), principalFrom(r.Context()).OrgID, page)
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

type countsView struct {
	Total      int            `json:"total"`
	BySeverity map[string]int `json:"by_severity"`
	ByType     map[string]int `json:"by_type"`
}

func newCountsView(c store.EventCounts) countsView {
	v := countsView{Total: c.Total, BySeverity: c.BySeverity.ByName(), ByType: map[string]int{}}
	for _, t := range event.Types {
		v.ByType[t] = c.ByType[t]
	}
	return v
}

type tallyView struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

func tallyViews(ts []store.Tally) []tallyView {
	out := make([]tallyView, len(ts))
	for i, t := range ts {
		out[i] = tallyView(t)
	}
	return out
}

// summaryWindows are the periods of the threat summary. Counts cover whole
// hours: the window starts at the top of the hour it reaches back into.
var summaryWindows = []struct {
	name string
	span time.Duration
}{{"24h", 24 * time.Hour}, {"7d", 7 * 24 * time.Hour}, {"30d", 30 * 24 * time.Hour}}

const topN = 10

func (a *API) threatSummary(w http.ResponseWriter, r *http.Request) error {
	orgID, now := principalFrom(r.Context()).OrgID, a.Now()
	windows := map[string]countsView{}
	for _, win := range summaryWindows {
		c, err := a.Store.CountEventsSince(r.Context(), orgID, now.Add(-win.span))
		if err != nil {
			return err
		}
		windows[win.name] = newCountsView(c)
	}
	since := now.Add(-7 * 24 * time.Hour)
	assets, err := a.Store.TopAssets(r.Context(), orgID, since, topN)
	if err != nil {
		return err
	}
	indicators, err := a.Store.TopIndicators(r.Context(), orgID, since, topN)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, struct {
		Windows       map[string]countsView `json:"windows"`
		TopAssets     []tallyView           `json:"top_assets_7d"`
		TopIndicators []tallyView           `json:"top_indicators_7d"`
	}{windows, tallyViews(assets), tallyViews(indicators)})
	return nil
}
