package dashboard

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"garrison/event"
	"garrison/llm"
	"garrison/timestamp"
	"garrison/wording"
)

// Summary is the day's threat activity in plain sentences, with the facts
// they state.
type Summary struct {
	Text        string         `json:"summary"`
	Facts       map[string]any `json:"facts"`
	GeneratedBy string         `json:"generated_by"` // "facts", or "llm:" and the model
	// FactsText is the plain text when the model phrased Text.
	FactsText string `json:"facts_summary,omitempty"`
	// NarrationError says why the plain text is shown although a model is configured.
	NarrationError string `json:"narration_error,omitempty"`
}

// summaryNarrationTimeout bounds how long the daily summary waits for the
// model before it answers with the plain text.
const summaryNarrationTimeout = 10 * time.Second

// DailySummary states the facts of the last 24 hours. Every number in it
// comes from the store, and each fact names the span it really covers
// (counts start at the top of the hour, asset totals at the start of the
// day); nothing is invented.
func (b *Board) DailySummary(ctx context.Context, orgID string) (Summary, error) {
	now := b.now()
	since := now.Add(-day).Truncate(time.Hour)
	assetsSince := startOfDay(since)
	c, err := b.store.CountEventsSince(ctx, orgID, since)
	if err != nil {
		return Summary{}, err
	}
	raised, resolved, err := b.store.AlertsChangedSince(ctx, orgID, since)
	if err != nil {
		return Summary{}, err
	}
	open, err := b.store.OpenAlertCounts(ctx, orgID)
	if err != nil {
		return Summary{}, err
	}
	assets, err := b.store.TopAssets(ctx, orgID, assetsSince, 1)
	if err != nil {
		return Summary{}, err
	}
	indicators, err := b.store.TopIndicators(ctx, orgID, since, 1)
	if err != nil {
		return Summary{}, err
	}
	facts := map[string]any{
		"period_start": timestamp.Format(since), "period_end": timestamp.Format(now), "events": newCounts(c),
		"alerts_raised": raised, "alerts_resolved": resolved, "open_critical_alerts": open[event.Critical],
		"open_high_alerts": open[event.High], "top_asset": nil, "top_asset_since": timestamp.Format(assetsSince), "top_indicator": nil,
	}
	var s []string
	if c.Total == 0 {
		s = append(s, fmt.Sprintf("No security events were recorded since %s.", since.Format("15:04 UTC on Jan 2")))
	} else {
		s = append(s, fmt.Sprintf("Since %s, %s recorded, %s of them high or critical.", since.Format("15:04 UTC on Jan 2"),
			wording.Count(c.Total, "security event was", "security events were"), wording.Count(c.BySeverity.AtLeast(event.High), "", "")))
		if n := c.ByType[event.TypeBlocked]; n > 0 {
			s = append(s, fmt.Sprintf("%s blocked.", wording.Count(n, "connection was", "connections were")))
		}
	}
	if len(indicators) > 0 {
		facts["top_indicator"] = map[string]any{"name": indicators[0].Name, "events": indicators[0].Count}
		s = append(s, fmt.Sprintf("The most frequent threat of the period is %q (%s).",
			indicators[0].Name, wording.Count(indicators[0].Count, "event", "events")))
	}
	if len(assets) > 0 {
		facts["top_asset"] = map[string]any{"name": assets[0].Name, "events": assets[0].Count}
		s = append(s, fmt.Sprintf("The busiest asset since %s was %s.", assetsSince.Format("Jan 2"), assets[0].Name))
	}
	s = append(s, fmt.Sprintf("%s raised and %s resolved.", wording.Count(raised, "alert was", "alerts were"), wording.Count(resolved, "was", "were")))
	if n := open.AtLeast(event.High); n > 0 {
		s = append(s, fmt.Sprintf("%s still open and %s attention.", wording.Count(n, "high or critical alert is", "high or critical alerts are"),
			wording.Agree(n, "needs", "need")))
	} else {
		s = append(s, "No high or critical alert is open.")
	}
	out := Summary{Text: strings.Join(s, " "), Facts: facts, GeneratedBy: "facts"}
	if b.model != nil {
		b.phrase(ctx, orgID, &out, llm.OpenCriticalAlerts(open[event.Critical]), llm.OpenHighAlerts(open[event.High]))
	}
	return out, nil
}

// phrase replaces the plain text with the model's phrasing of the same
// facts, remembered per organization until the facts change: the dashboard
// reloads often, the facts change less. The phrasing must state the
// headline facts (the open critical and high alerts); on any failure the
// plain text stays and says why.
func (b *Board) phrase(ctx context.Context, orgID string, out *Summary, headlines ...llm.Headline) {
	facts := map[string]any{"facts": out.Facts, "plain_summary": out.Text}
	factsJSON, _ := json.Marshal(facts)
	key := sha256.Sum256(factsJSON)
	text, ok := b.summaries.get(orgID, key)
	if !ok {
		nctx, cancel := context.WithTimeout(ctx, summaryNarrationTimeout)
		ph, err := llm.Phrase(nctx, b.model, "a summary of the day's security activity", facts, out.Text, headlines...)
		cancel()
		if !ph.ByModel() {
			b.log.Warn("daily summary narration failed; using the plain text", "err", err)
			out.NarrationError = ph.FallbackReason
			return
		}
		text = ph.Text
		b.summaries.put(orgID, key, text)
	}
	out.FactsText, out.Text, out.GeneratedBy = out.Text, text, "llm:"+b.model.Model()
}

// phrasings remembers the model's last phrasing per organization, keyed by
// its facts.
type phrasings struct {
	mu    sync.Mutex
	byOrg map[string]phrasing
}

type phrasing struct {
	factsKey [32]byte
	text     string
}

// maxCachedPhrasings bounds the cache; past it, it starts over.
const maxCachedPhrasings = 10_000

func (n *phrasings) get(org string, key [32]byte) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	c, ok := n.byOrg[org]
	return c.text, ok && c.factsKey == key
}

func (n *phrasings) put(org string, key [32]byte, text string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.byOrg == nil || len(n.byOrg) >= maxCachedPhrasings {
		n.byOrg = map[string]phrasing{}
	}
	n.byOrg[org] = phrasing{key, text}
}
