package dashboard

import (
	"context"
	"sort"
	"time"

	"garrison/blocklist"
	"garrison/store"
	"garrison/timestamp"
)

// windows are the periods of the threat summary. Counts cover whole hours:
// a window starts at the top of the hour it reaches back into.
var windows = []struct {
	name string
	span time.Duration
}{{"24h", 24 * time.Hour}, {"7d", 7 * 24 * time.Hour}, {"30d", 30 * 24 * time.Hour}}

// topN is how many assets, indicators and domains the summaries list.
const topN = 10

// DNSStats is the DNS telemetry of one period.
type DNSStats struct {
	Queries           int            `json:"queries"`
	Blocked           int            `json:"blocked"`
	BlockedByCategory map[string]int `json:"blocked_by_category"`
	BlockedTrackers   int            `json:"blocked_trackers"`
}

func dnsStats(byCategory map[string]int) DNSStats {
	s := DNSStats{BlockedByCategory: map[string]int{blocklist.CategoryTracker: 0, blocklist.CategoryMalware: 0}}
	for c, n := range byCategory {
		s.Queries += n
		if c != "" {
			s.Blocked += n
			s.BlockedByCategory[c] += n
		}
	}
	s.BlockedTrackers = s.BlockedByCategory[blocklist.CategoryTracker]
	return s
}

// BlockedDomain is a domain the blocklist stopped.
type BlockedDomain struct {
	Domain   string `json:"domain"`
	Category string `json:"category"`
	Queries  int    `json:"queries"`
	LastSeen string `json:"last_seen"`
}

// Source is an event source and whether it reported in the last day.
type Source struct {
	Source    string `json:"source"`
	Events    int    `json:"events"`
	LastSeen  string `json:"last_seen"`
	Reporting bool   `json:"reporting"`
}

// Protection is what protects the organization right now.
type Protection struct {
	DNSFilteringActive    bool           `json:"dns_filtering_active"`
	BlocklistDomains      map[string]int `json:"blocklist_domains"`
	LastDNSQuery          *string        `json:"last_dns_query"`
	EventSourcesReporting int            `json:"event_sources_reporting"`
	EventSources          []Source       `json:"event_sources"`
}

// Health is the network health panel.
type Health struct {
	DNS               map[string]DNSStats `json:"dns"`
	TopBlockedDomains []BlockedDomain     `json:"top_blocked_domains"`
	Protection        Protection          `json:"protection"`
}

// NetworkHealth reads DNS stats, blocked domains and protection indicators.
func (b *Board) NetworkHealth(ctx context.Context, orgID string) (Health, error) {
	now := b.now()
	h := Health{DNS: map[string]DNSStats{}}
	for _, win := range windows[:2] {
		t, err := b.store.DNSTotals(ctx, orgID, now.Add(-win.span))
		if err != nil {
			return h, err
		}
		h.DNS[win.name] = dnsStats(t)
	}
	// The top blocked domains count over everything retained: their
	// totals are this window's, so the list never adds up past them.
	retained, err := b.store.DNSTotals(ctx, orgID, time.Unix(0, 0))
	if err != nil {
		return h, err
	}
	h.DNS["retained"] = dnsStats(retained)
	top, err := b.store.TopBlockedDomains(ctx, orgID, topN)
	if err != nil {
		return h, err
	}
	last, err := b.store.LastDNSQuery(ctx, orgID)
	if err != nil {
		return h, err
	}
	sources, err := b.store.Sources(ctx, orgID)
	if err != nil {
		return h, err
	}
	h.TopBlockedDomains = make([]BlockedDomain, len(top))
	for i, d := range top {
		h.TopBlockedDomains[i] = BlockedDomain{d.Domain, d.Category, d.Count, timestamp.Format(d.LastSeen)}
	}
	p := Protection{BlocklistDomains: b.blocked.Counts(), LastDNSQuery: timestamp.Optional(last), EventSources: make([]Source, len(sources))}
	for i, s := range sources {
		p.EventSources[i] = Source{Source: s.Name, Events: s.Count, LastSeen: timestamp.Format(s.LastSeen), Reporting: now.Sub(s.LastSeen) <= day}
		if p.EventSources[i].Reporting {
			p.EventSourcesReporting++
		}
	}
	sort.SliceStable(p.EventSources, func(i, j int) bool { return p.EventSources[i].Reporting && !p.EventSources[j].Reporting })
	p.DNSFilteringActive = last != nil && now.Sub(*last) <= day && b.blocked.Len() > 0
	h.Protection = p
	return h, nil
}

// Tally is a count under a name.
type Tally struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

func tallies(ts []store.Tally) []Tally {
	out := make([]Tally, len(ts))
	for i, t := range ts {
		out[i] = Tally(t)
	}
	return out
}

// ThreatSummary is the account's threat summary.
type ThreatSummary struct {
	Windows       map[string]Counts `json:"windows"`
	TopAssets     []Tally           `json:"top_assets_7d"`
	TopIndicators []Tally           `json:"top_indicators_7d"`
}

// ThreatSummary counts events per window and names the busiest assets and
// indicators of the last seven days.
func (b *Board) ThreatSummary(ctx context.Context, orgID string) (ThreatSummary, error) {
	now := b.now()
	s := ThreatSummary{Windows: map[string]Counts{}}
	for _, win := range windows {
		c, err := b.store.CountEventsSince(ctx, orgID, now.Add(-win.span))
		if err != nil {
			return s, err
		}
		s.Windows[win.name] = newCounts(c)
	}
	since := now.Add(-7 * day)
	assets, err := b.store.TopAssets(ctx, orgID, since, topN)
	if err != nil {
		return s, err
	}
	indicators, err := b.store.TopIndicators(ctx, orgID, since, topN)
	if err != nil {
		return s, err
	}
	s.TopAssets, s.TopIndicators = tallies(assets), tallies(indicators)
	return s, nil
}
