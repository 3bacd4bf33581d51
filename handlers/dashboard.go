package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"garrison/blocklist"
	"garrison/posture"
	"garrison/store"

	"garrison/event"
	"garrison/timestamp"
	"garrison/valid"
)

const (
	recentAlertsShown  = 5
	defaultTimelineLen = 30
	maxTimelineLen     = 365
	day                = 24 * time.Hour
)

func startOfDay(t time.Time) time.Time { return t.UTC().Truncate(day) }

// posture gathers the facts the score and overview are computed from.
func (a *API) posture(ctx context.Context, orgID string) (posture.Facts, error) {
	return posture.Gather(ctx, a.Store, orgID, a.Now())
}

func (a *API) securityScore(w http.ResponseWriter, r *http.Request) error {
	f, err := a.posture(r.Context(), principalFrom(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, posture.Compute(f))
	return nil
}

type statsView struct {
	ThreatsBlockedToday int  `json:"threats_blocked_today"`
	OpenAlerts          int  `json:"open_alerts"`
	ComplianceGaps      int  `json:"compliance_gaps"`
	ComplianceAudited   bool `json:"compliance_audited"`
	AgentsActive        int  `json:"agents_active"`
}

func (a *API) stats(w http.ResponseWriter, r *http.Request) error {
	orgID := principalFrom(r.Context()).OrgID
	today, err := a.Store.CountEventsSince(r.Context(), orgID, startOfDay(a.Now()))
	if err != nil {
		return err
	}
	open, err := a.Store.OpenAlertCounts(r.Context(), orgID)
	if err != nil {
		return err
	}
	v := statsView{ThreatsBlockedToday: today.ByType[event.TypeBlocked]}
	for _, n := range open {
		v.OpenAlerts += n
	}
	if v.AgentsActive, _, err = a.agentLoad(r.Context(), orgID); err != nil {
		return err
	}
	// Compliance gaps come from framework audits; until those exist there are none.
	writeData(w, http.StatusOK, v)
	return nil
}

func (a *API) overview(w http.ResponseWriter, r *http.Request) error {
	orgID := principalFrom(r.Context()).OrgID
	f, err := a.posture(r.Context(), orgID)
	if err != nil {
		return err
	}
	score := posture.Compute(f)
	day1, err := a.Store.CountEventsSince(r.Context(), orgID, f.Now.Add(-day))
	if err != nil {
		return err
	}
	recent, _, err := a.Store.Alerts(r.Context(), orgID, store.AlertFilter{Status: store.AlertOpen, Page: store.Page{Limit: recentAlertsShown}})
	if err != nil {
		return err
	}
	alerts := make([]alertView, len(recent))
	for i, al := range recent {
		alerts[i] = newAlertView(al)
	}
	subs := map[string]*int{}
	for name, s := range score.SubScores {
		subs[name] = s.Score
	}
	active, queued, err := a.agentLoad(r.Context(), orgID)
	if err != nil {
		return err
	}
	open := 0
	for _, n := range f.OpenAlerts {
		open += n
	}
	writeData(w, http.StatusOK, map[string]any{
		"security_score": map[string]any{"score": score.Score, "grade": score.Grade, "sub_scores": subs},
		"events":         map[string]countsView{"24h": newCountsView(day1), "7d": newCountsView(f.Week)},
		"open_alerts":    open,
		"recent_alerts":  alerts,
		"agents":         map[string]int{"active": active, "queued": queued},
	})
	return nil
}

// agentLoad counts the organization's agents with a run in progress, and
// its runs waiting in the queue.
func (a *API) agentLoad(ctx context.Context, orgID string) (active, queued int, err error) {
	activity, err := a.Store.AgentActivities(ctx, orgID, nil) // no last-run lookups
	for _, act := range activity {
		if act.Running+act.Queued > 0 {
			active++
		}
		queued += act.Queued
	}
	return active, queued, err
}

type timelinePoint struct {
	Date       string         `json:"date"`
	Events     int            `json:"events"`
	BySeverity map[string]int `json:"by_severity"`
	Risk       int            `json:"risk"`
}

func (a *API) riskTimeline(w http.ResponseWriter, r *http.Request) error {
	days := defaultTimelineLen
	if v := r.URL.Query().Get("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxTimelineLen {
			return valid.Field("days", "must be an integer from 1 to 365")
		}
		days = n
	}
	first := startOfDay(a.Now()).Add(-time.Duration(days-1) * day)
	counts, err := a.Store.DailyCounts(r.Context(), principalFrom(r.Context()).OrgID, first)
	if err != nil {
		return err
	}
	byDay := map[time.Time]event.Counts{}
	for _, c := range counts {
		byDay[c.Day] = c.BySeverity
	}
	points := make([]timelinePoint, days)
	for i := range points {
		d := first.Add(time.Duration(i) * day)
		sev := byDay[d]
		p := timelinePoint{Date: d.Format(time.DateOnly), BySeverity: sev.ByName(), Risk: posture.DayRisk(sev), Events: sev.Total()}
		points[i] = p
	}
	writeData(w, http.StatusOK, map[string]any{"days": days, "points": points})
	return nil
}

// dailySummary states the facts of the last 24 hours in plain sentences.
// Every number in it comes from the store, and each fact names the span it
// really covers (counts start at the top of the hour, asset totals at the
// start of the day); nothing is invented.
func (a *API) dailySummary(w http.ResponseWriter, r *http.Request) error {
	orgID, now := principalFrom(r.Context()).OrgID, a.Now()
	since := now.Add(-day).Truncate(time.Hour)
	assetsSince := startOfDay(since)
	c, err := a.Store.CountEventsSince(r.Context(), orgID, since)
	if err != nil {
		return err
	}
	raised, resolved, err := a.Store.AlertsChangedSince(r.Context(), orgID, since)
	if err != nil {
		return err
	}
	open, err := a.Store.OpenAlertCounts(r.Context(), orgID)
	if err != nil {
		return err
	}
	assets, err := a.Store.TopAssets(r.Context(), orgID, assetsSince, 1)
	if err != nil {
		return err
	}
	indicators, err := a.Store.TopIndicators(r.Context(), orgID, since, 1)
	if err != nil {
		return err
	}
	facts := map[string]any{
		"period_start": timestamp.Format(since), "period_end": timestamp.Format(now), "events": newCountsView(c),
		"alerts_raised": raised, "alerts_resolved": resolved, "open_critical_alerts": open[event.Critical], "open_high_alerts": open[event.High],
		"top_asset": nil, "top_asset_since": timestamp.Format(assetsSince), "top_indicator": nil,
	}
	var s []string
	if c.Total == 0 {
		s = append(s, fmt.Sprintf("No security events were recorded since %s.", since.Format("15:04 UTC on Jan 2")))
	} else {
		s = append(s, fmt.Sprintf("Since %s, %s recorded, %s of them high or critical.", since.Format("15:04 UTC on Jan 2"),
			plural(c.Total, "security event was", "security events were"), plural(c.BySeverity.AtLeast(event.High), "", "")))
		if b := c.ByType[event.TypeBlocked]; b > 0 {
			s = append(s, fmt.Sprintf("%s blocked.", plural(b, "connection was", "connections were")))
		}
	}
	if len(indicators) > 0 {
		facts["top_indicator"] = map[string]any{"name": indicators[0].Name, "events_all_time": indicators[0].Count}
		s = append(s, fmt.Sprintf("Of the threats seen in this period, the most frequent overall is %q (%s to date).",
			indicators[0].Name, plural(indicators[0].Count, "event", "events")))
	}
	if len(assets) > 0 {
		facts["top_asset"] = map[string]any{"name": assets[0].Name, "events": assets[0].Count}
		s = append(s, fmt.Sprintf("The busiest asset since %s was %s.", assetsSince.Format("Jan 2"), assets[0].Name))
	}
	s = append(s, fmt.Sprintf("%s raised and %s resolved.", plural(raised, "alert was", "alerts were"), plural(resolved, "was", "were")))
	if open.AtLeast(event.High) > 0 {
		s = append(s, fmt.Sprintf("%s still open and need attention.", plural(open.AtLeast(event.High), "high or critical alert is", "high or critical alerts are")))
	} else {
		s = append(s, "No high or critical alert is open.")
	}
	out := map[string]any{"summary": strings.Join(s, " "), "facts": facts, "generated_by": "facts"}
	if a.Narrator != nil {
		a.narrateSummary(r.Context(), orgID, out)
	}
	writeData(w, http.StatusOK, out)
	return nil
}

// Narrator phrases facts as prose with a language model (llm.Client).
type Narrator interface {
	Narrate(ctx context.Context, task string, facts any) (string, error)
	Model() string
}

// summaryNarrationTimeout bounds how long the daily summary waits for the
// model before it answers with the plain text.
const summaryNarrationTimeout = 10 * time.Second

// narrations remembers the model's last phrasing per organization, keyed by
// its facts: the dashboard reloads often, the facts change less.
type narrations struct {
	mu    sync.Mutex
	byOrg map[string]narration
}

type narration struct {
	factsKey [32]byte
	text     string
}

// maxCachedNarrations bounds the cache; past it, it starts over.
const maxCachedNarrations = 10_000

func (n *narrations) get(org string, key [32]byte) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	c, ok := n.byOrg[org]
	return c.text, ok && c.factsKey == key
}

func (n *narrations) put(org string, key [32]byte, text string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.byOrg == nil || len(n.byOrg) >= maxCachedNarrations {
		n.byOrg = map[string]narration{}
	}
	n.byOrg[org] = narration{key, text}
}

// narrateSummary replaces the plain summary with the model's phrasing of
// the same facts; on any failure the plain text stays and says why.
func (a *API) narrateSummary(ctx context.Context, orgID string, out map[string]any) {
	facts := map[string]any{"facts": out["facts"], "plain_summary": out["summary"]}
	factsJSON, _ := json.Marshal(facts)
	key := sha256.Sum256(factsJSON)
	text, ok := a.summaries.get(orgID, key)
	var err error
	if !ok {
		nctx, cancel := context.WithTimeout(ctx, summaryNarrationTimeout)
		text, err = a.Narrator.Narrate(nctx, "a summary of the day's security activity", facts)
		cancel()
		if err == nil {
			a.summaries.put(orgID, key, text)
		}
	}
	if err != nil {
		a.Log.Warn("daily summary narration failed; using the plain text", "err", err)
		out["narration_error"] = "The language model could not phrase the summary; the plain text is shown."
		return
	}
	out["facts_summary"], out["summary"], out["generated_by"] = out["summary"], text, "llm:"+a.Narrator.Model()
}

// plural writes "1 event" or "3 events"; empty words give just the number.
func plural(n int, one, many string) string {
	word := many
	if n == 1 {
		word = one
	}
	if word == "" {
		return strconv.Itoa(n)
	}
	return strconv.Itoa(n) + " " + word
}

type sourceView struct {
	Source    string `json:"source"`
	Events    int    `json:"events"`
	LastSeen  string `json:"last_seen"`
	Reporting bool   `json:"reporting"`
}

func (a *API) networkHealth(w http.ResponseWriter, r *http.Request) error {
	orgID, now := principalFrom(r.Context()).OrgID, a.Now()
	totals := map[string]map[string]int{}
	for _, win := range summaryWindows[:2] {
		t, err := a.Store.DNSTotals(r.Context(), orgID, now.Add(-win.span))
		if err != nil {
			return err
		}
		totals[win.name] = t
	}
	top, err := a.Store.TopBlockedDomains(r.Context(), orgID, topN)
	if err != nil {
		return err
	}
	last, err := a.Store.LastDNSQuery(r.Context(), orgID)
	if err != nil {
		return err
	}
	sources, err := a.Store.Sources(r.Context(), orgID)
	if err != nil {
		return err
	}
	dnsView := func(t map[string]int) map[string]any {
		total, blocked := 0, 0
		byCategory := map[string]int{blocklist.CategoryTracker: 0, blocklist.CategoryMalware: 0}
		for c, n := range t {
			total += n
			if c != "" {
				blocked += n
				byCategory[c] += n
			}
		}
		return map[string]any{"queries": total, "blocked": blocked, "blocked_by_category": byCategory,
			"blocked_trackers": byCategory[blocklist.CategoryTracker]}
	}
	domains := make([]map[string]any, len(top))
	for i, d := range top {
		domains[i] = map[string]any{"domain": d.Domain, "category": d.Category, "queries": d.Count, "last_seen": timestamp.Format(d.LastSeen)}
	}
	srcs := make([]sourceView, len(sources))
	reporting := 0
	for i, s := range sources {
		srcs[i] = sourceView{Source: s.Name, Events: s.Count, LastSeen: timestamp.Format(s.LastSeen), Reporting: now.Sub(s.LastSeen) <= day}
		if srcs[i].Reporting {
			reporting++
		}
	}
	sort.SliceStable(srcs, func(i, j int) bool { return srcs[i].Reporting && !srcs[j].Reporting })
	filtering := last != nil && now.Sub(*last) <= day && a.Blocklist.Len() > 0
	writeData(w, http.StatusOK, map[string]any{
		"dns":                 map[string]any{"24h": dnsView(totals["24h"]), "7d": dnsView(totals["7d"])},
		"top_blocked_domains": domains,
		"protection": map[string]any{
			"dns_filtering_active":    filtering,
			"blocklist_domains":       a.Blocklist.Counts(),
			"last_dns_query":          timestamp.Optional(last),
			"event_sources_reporting": reporting,
			"event_sources":           srcs,
		},
	})
	return nil
}
