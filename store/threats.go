package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"garrison/event"
)

// Threat is the events sharing one indicator.
type Threat struct {
	Indicator   string
	Type        string
	MaxSeverity event.Severity
	Count       int
	FirstSeen   time.Time
	LastSeen    time.Time
	Assets      []string
}

// maxThreatAssets bounds the assets listed per threat.
const maxThreatAssets = 20

// Threats lists indicators, most recently seen first.
func (s *Store) Threats(ctx context.Context, orgID string, p Page) ([]Threat, int, error) {
	if err := s.settle(ctx); err != nil {
		return nil, 0, err
	}
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM threat_indicators WHERE org_id = ?`, orgID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count threats: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT indicator, type, max_severity, n, first_seen, last_seen,
		(SELECT group_concat(asset, char(10)) FROM (SELECT asset FROM threat_assets a
			WHERE a.org_id = t.org_id AND a.indicator = t.indicator ORDER BY asset LIMIT ?))
		FROM threat_indicators t WHERE org_id = ? ORDER BY last_seen DESC, indicator LIMIT ? OFFSET ?`,
		maxThreatAssets, orgID, p.Limit, p.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list threats: %w", err)
	}
	defer rows.Close()
	var out []Threat
	for rows.Next() {
		var t Threat
		var first, last int64
		var assets *string
		if err := rows.Scan(&t.Indicator, &t.Type, &t.MaxSeverity, &t.Count, &first, &last, &assets); err != nil {
			return nil, 0, fmt.Errorf("list threats: %w", err)
		}
		t.FirstSeen, t.LastSeen = fromMS(first), fromMS(last)
		if assets != nil {
			t.Assets = strings.Split(*assets, "\n")
		}
		out = append(out, t)
	}
	return out, total, rows.Err()
}

// Tally is a count under a name.
type Tally struct {
	Name  string
	Count int
}

// EventCounts holds event counts by severity (index) and by type.
type EventCounts struct {
	Total      int
	BySeverity event.Counts
	ByType     map[string]int
}

// CountEventsSince sums the hourly rollup from the hour holding since.
func (s *Store) CountEventsSince(ctx context.Context, orgID string, since time.Time) (EventCounts, error) {
	if err := s.settle(ctx); err != nil {
		return EventCounts{}, err
	}
	c := EventCounts{ByType: map[string]int{}}
	rows, err := s.reader.QueryContext(ctx, `SELECT type, severity, SUM(n) FROM event_rollup
		WHERE org_id = ? AND hour >= ? GROUP BY type, severity`, orgID, floorMS(ms(since), hourMS))
	if err != nil {
		return c, fmt.Errorf("count events: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ string
		var sev event.Severity
		var n int
		if err := rows.Scan(&typ, &sev, &n); err != nil {
			return c, fmt.Errorf("count events: %w", err)
		}
		c.Total += n
		c.BySeverity[sev] += n
		c.ByType[typ] += n
	}
	return c, rows.Err()
}

// DailyCount is one day of events by severity.
type DailyCount struct {
	Day        time.Time
	BySeverity event.Counts
}

// DailyCounts returns per-day severity counts from the day holding since;
// days without events are absent.
func (s *Store) DailyCounts(ctx context.Context, orgID string, since time.Time) ([]DailyCount, error) {
	if err := s.settle(ctx); err != nil {
		return nil, err
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT (hour / ?) * ?, severity, SUM(n) FROM event_rollup
		WHERE org_id = ? AND hour >= ? GROUP BY 1, 2 ORDER BY 1`, dayMS, dayMS, orgID, floorMS(ms(since), dayMS))
	if err != nil {
		return nil, fmt.Errorf("daily counts: %w", err)
	}
	defer rows.Close()
	var out []DailyCount
	for rows.Next() {
		var day int64
		var sev event.Severity
		var n int
		if err := rows.Scan(&day, &sev, &n); err != nil {
			return nil, fmt.Errorf("daily counts: %w", err)
		}
		if len(out) == 0 || !out[len(out)-1].Day.Equal(fromMS(day)) {
			out = append(out, DailyCount{Day: fromMS(day)})
		}
		out[len(out)-1].BySeverity[sev] += n
	}
	return out, rows.Err()
}

// TopAssets returns the assets with the most events from the day holding since.
func (s *Store) TopAssets(ctx context.Context, orgID string, since time.Time, limit int) ([]Tally, error) {
	return s.tallies(ctx, `SELECT asset, SUM(n) AS total FROM asset_rollup WHERE org_id = ? AND day >= ?
		GROUP BY asset ORDER BY total DESC, asset LIMIT ?`, orgID, floorMS(ms(since), dayMS), limit)
}

// TopIndicators returns the indicators seen since, by their event count.
func (s *Store) TopIndicators(ctx context.Context, orgID string, since time.Time, limit int) ([]Tally, error) {
	return s.tallies(ctx, `SELECT indicator, n FROM threat_indicators WHERE org_id = ? AND last_seen >= ?
		ORDER BY n DESC, indicator LIMIT ?`, orgID, ms(since), limit)
}

func (s *Store) tallies(ctx context.Context, query string, args ...any) ([]Tally, error) {
	if err := s.settle(ctx); err != nil {
		return nil, err
	}
	rows, err := s.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("tallies: %w", err)
	}
	defer rows.Close()
	out := []Tally{}
	for rows.Next() {
		var t Tally
		if err := rows.Scan(&t.Name, &t.Count); err != nil {
			return nil, fmt.Errorf("tallies: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// OpenAlertCounts returns open alerts by severity (index).
func (s *Store) OpenAlertCounts(ctx context.Context, orgID string) (event.Counts, error) {
	if err := s.settle(ctx); err != nil {
		return event.Counts{}, err
	}
	var out event.Counts
	rows, err := s.reader.QueryContext(ctx, `SELECT severity, n FROM alert_counts WHERE org_id = ? AND status = 'open'`, orgID)
	if err != nil {
		return out, fmt.Errorf("open alerts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sev event.Severity
		var n int
		if err := rows.Scan(&sev, &n); err != nil {
			return out, fmt.Errorf("open alerts: %w", err)
		}
		out[sev] = n
	}
	return out, rows.Err()
}

// AlertsChangedSince counts alerts raised and resolved since a time.
// Both times are written with the alert, not folded: no settling needed.
func (s *Store) AlertsChangedSince(ctx context.Context, orgID string, since time.Time) (raised, resolved int, err error) {
	err = s.reader.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM alerts WHERE org_id = ? AND created_at >= ?),
		(SELECT COUNT(*) FROM alerts WHERE org_id = ? AND resolved_at >= ?)`, orgID, ms(since), orgID, ms(since)).Scan(&raised, &resolved)
	if err != nil {
		return 0, 0, fmt.Errorf("alerts changed: %w", err)
	}
	return raised, resolved, nil
}

// Source is an event source and when it last reported.
type Source struct {
	Name      string
	Count     int
	FirstSeen time.Time
	LastSeen  time.Time
}

// Sources lists the organization's event sources, most recent first.
func (s *Store) Sources(ctx context.Context, orgID string) ([]Source, error) {
	if err := s.settle(ctx); err != nil {
		return nil, err
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT source, n, first_seen, last_seen FROM event_sources
		WHERE org_id = ? ORDER BY last_seen DESC LIMIT 100`, orgID)
	if err != nil {
		return nil, fmt.Errorf("sources: %w", err)
	}
	defer rows.Close()
	var out []Source
	for rows.Next() {
		var src Source
		var first, last int64
		if err := rows.Scan(&src.Name, &src.Count, &first, &last); err != nil {
			return nil, fmt.Errorf("sources: %w", err)
		}
		src.FirstSeen, src.LastSeen = fromMS(first), fromMS(last)
		out = append(out, src)
	}
	return out, rows.Err()
}
