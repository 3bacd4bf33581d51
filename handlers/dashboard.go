package handlers

import (
	"net/http"
	"strconv"

	"garrison/dashboard"
	"garrison/valid"
)

func (a *API) securityScore(w http.ResponseWriter, r *http.Request) error {
	s, err := a.Dashboard.Score(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, s)
	return nil
}

func (a *API) stats(w http.ResponseWriter, r *http.Request) error {
	s, err := a.Dashboard.Stats(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, s)
	return nil
}

type overviewView struct {
	SecurityScore struct {
		Score     int             `json:"score"`
		Grade     string          `json:"grade"`
		SubScores map[string]*int `json:"sub_scores"`
	} `json:"security_score"`
	Events       map[string]dashboard.Counts `json:"events"`
	OpenAlerts   int                         `json:"open_alerts"`
	RecentAlerts []alertView                 `json:"recent_alerts"`
	Agents       map[string]int              `json:"agents"`
}

func (a *API) overview(w http.ResponseWriter, r *http.Request) error {
	o, err := a.Dashboard.Overview(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	v := overviewView{Events: map[string]dashboard.Counts{"24h": o.Day, "7d": o.Week}, OpenAlerts: o.OpenAlerts,
		RecentAlerts: mapSlice(o.Recent, newAlertView), Agents: map[string]int{"active": o.AgentsActive, "queued": o.AgentsQueued}}
	v.SecurityScore.Score, v.SecurityScore.Grade, v.SecurityScore.SubScores = o.Score.Score, o.Score.Grade, map[string]*int{}
	for name, s := range o.Score.SubScores {
		v.SecurityScore.SubScores[name] = s.Score
	}
	writeData(w, http.StatusOK, v)
	return nil
}

func (a *API) riskTimeline(w http.ResponseWriter, r *http.Request) error {
	days := dashboard.DefaultTimelineDays
	if v, ok := queryValue(r, "days"); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return valid.Field("days", "must be an integer from 1 to 365")
		}
		days = n
	}
	t, err := a.Dashboard.Timeline(r.Context(), principalFrom(r.Context()).OrgID, days)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, t)
	return nil
}

func (a *API) dailySummary(w http.ResponseWriter, r *http.Request) error {
	s, err := a.Dashboard.DailySummary(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, s)
	return nil
}

func (a *API) networkHealth(w http.ResponseWriter, r *http.Request) error {
	h, err := a.Dashboard.NetworkHealth(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, h)
	return nil
}

func (a *API) threatSummary(w http.ResponseWriter, r *http.Request) error {
	s, err := a.Dashboard.ThreatSummary(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, s)
	return nil
}
