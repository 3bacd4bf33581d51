// Package dashboard composes what the dashboard shows from the store: the
// stats panel, the overview, the risk timeline, the daily summary in plain
// sentences (phrased by the language model when there is one), network
// health and the threat summary. Every number comes from the store; the
// security score itself is package posture's.
package dashboard

import (
	"context"
	"log/slog"
	"time"

	"garrison/alerting"
	"garrison/blocklist"
	"garrison/event"
	"garrison/llm"
	"garrison/posture"
	"garrison/store"
)

const day = 24 * time.Hour

func startOfDay(t time.Time) time.Time { return t.UTC().Truncate(day) }

// Board reads the dashboard of any organization.
type Board struct {
	store     *store.Store
	now       func() time.Time
	blocked   *blocklist.List
	model     *llm.Client // nil: plain sentences only
	log       *slog.Logger
	summaries phrasings
}

// Config is what a board needs.
type Config struct {
	Store *store.Store
	Now   func() time.Time
	// Blocklist is the DNS blocklist in force (nil: no lists).
	Blocklist *blocklist.List
	// Model is the language model (nil: plain sentences only).
	Model *llm.Client
	Log   *slog.Logger
}

// New builds a board.
func New(c Config) *Board {
	if c.Blocklist == nil {
		c.Blocklist = blocklist.New()
	}
	return &Board{store: c.Store, now: c.Now, blocked: c.Blocklist, model: c.Model, log: c.Log}
}

// Counts is a count of events by severity and type, every name present.
type Counts struct {
	Total      int            `json:"total"`
	BySeverity map[string]int `json:"by_severity"`
	ByType     map[string]int `json:"by_type"`
}

func newCounts(c store.EventCounts) Counts {
	v := Counts{Total: c.Total, BySeverity: c.BySeverity.ByName(), ByType: map[string]int{}}
	for _, t := range event.Types {
		v.ByType[t] = c.ByType[t]
	}
	return v
}

// Score is the organization's security score as of now.
func (b *Board) Score(ctx context.Context, orgID string) (posture.Score, error) {
	f, err := posture.Gather(ctx, b.store, orgID, b.now())
	if err != nil {
		return posture.Score{}, err
	}
	return posture.Compute(f), nil
}

// Stats is the numeric stats panel.
type Stats struct {
	ThreatsBlockedToday int  `json:"threats_blocked_today"`
	OpenAlerts          int  `json:"open_alerts"`
	ComplianceGaps      int  `json:"compliance_gaps"`
	ComplianceAudited   bool `json:"compliance_audited"`
	AgentsActive        int  `json:"agents_active"`
}

// Stats reads the stats panel. Compliance gaps are the open gaps of the
// framework audits; until one has completed there are none.
func (b *Board) Stats(ctx context.Context, orgID string) (Stats, error) {
	today, err := b.store.CountEventsSince(ctx, orgID, startOfDay(b.now()))
	if err != nil {
		return Stats{}, err
	}
	c, err := b.store.PanelCounts(ctx, orgID)
	if err != nil {
		return Stats{}, err
	}
	return Stats{ThreatsBlockedToday: today.ByType[event.TypeBlocked], OpenAlerts: c.OpenAlerts,
		ComplianceGaps: c.OpenGaps, ComplianceAudited: c.ComplianceAudited, AgentsActive: c.AgentsActive}, nil
}

// recentAlertsShown is how many open alerts the overview lists.
const recentAlertsShown = 5

// Overview is the aggregated overview.
type Overview struct {
	Score        posture.Score
	Day, Week    Counts
	OpenAlerts   int
	Recent       []alerting.Alert // the newest open alerts
	AgentsActive int              // agents with a run in progress
	AgentsQueued int              // runs waiting
}

// Overview reads the aggregated overview.
func (b *Board) Overview(ctx context.Context, orgID string) (Overview, error) {
	f, err := posture.Gather(ctx, b.store, orgID, b.now())
	if err != nil {
		return Overview{}, err
	}
	o := Overview{Score: posture.Compute(f), Week: newCounts(f.Week), OpenAlerts: f.OpenAlerts.Total()}
	day1, err := b.store.CountEventsSince(ctx, orgID, f.Now.Add(-day))
	if err != nil {
		return o, err
	}
	o.Day = newCounts(day1)
	if o.Recent, _, err = b.store.Alerts(ctx, orgID, alerting.Filter{Status: alerting.Open, Limit: recentAlertsShown}); err != nil {
		return o, err
	}
	o.AgentsActive, o.AgentsQueued, err = b.agentLoad(ctx, orgID)
	return o, err
}

// agentLoad counts the organization's agents with a run in progress, and
// its runs waiting in the queue.
func (b *Board) agentLoad(ctx context.Context, orgID string) (active, queued int, err error) {
	activity, err := b.store.AgentActivities(ctx, orgID, nil) // no last-run lookups
	for _, act := range activity {
		if act.Running+act.Queued > 0 {
			active++
		}
		queued += act.Queued
	}
	return active, queued, err
}
