package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
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

// Threats lists indicators, most recently seen first, each with the first
// maxThreatAssets assets that reported it. Indicators the events not yet
// folded touch are merged in the same snapshot, as the fold will merge them.
func (s *Store) Threats(ctx context.Context, orgID string, p Page) ([]Threat, int, error) {
	var out []Threat
	var total int
	err := s.read(ctx, func(tx querier) error {
		if err := tx.QueryRowContext(ctx, `WITH `+pendingEvents+` SELECT
				(SELECT COUNT(*) FROM threat_indicators WHERE org_id = ?1) +
				(SELECT COUNT(DISTINCT indicator) FROM pending WHERE indicator != '' AND indicator NOT IN
					(SELECT indicator FROM threat_indicators WHERE org_id = ?1))`, orgID).Scan(&total); err != nil {
			return fmt.Errorf("count threats: %w", err)
		}
		// The page is the folded indicators the backlog leaves alone, read
		// through the index, and the ones it touches, merged. A new
		// indicator's type is its first event's (its lowest sequence).
		rows, err := tx.QueryContext(ctx, `WITH `+pendingEvents+`,
			touched AS (SELECT indicator, MAX(severity) AS sev, COUNT(*) AS n, MIN(ts) AS first, MAX(ts) AS last,
				MIN(seq) AS first_seq FROM pending WHERE indicator != '' GROUP BY indicator)
			SELECT indicator, type, sev, n, first, last FROM (
				SELECT * FROM (SELECT indicator, type, max_severity AS sev, n, first_seen AS first, last_seen AS last
					FROM threat_indicators WHERE org_id = ?1 AND indicator NOT IN (SELECT indicator FROM touched)
					ORDER BY last_seen DESC, indicator LIMIT ?2) AS sub1
				UNION ALL
				SELECT u.indicator, COALESCE(t.type, (SELECT e.type FROM events e WHERE e.seq = u.first_seq)),
					MAX(COALESCE(t.max_severity, 0), u.sev), COALESCE(t.n, 0) + u.n,
					MIN(COALESCE(t.first_seen, u.first), u.first), MAX(COALESCE(t.last_seen, u.last), u.last)
				FROM touched u LEFT JOIN threat_indicators t ON t.org_id = ?1 AND t.indicator = u.indicator) AS sub2
			ORDER BY last DESC, indicator LIMIT ?3 OFFSET ?4`, orgID, p.Limit+p.Offset, p.Limit, p.Offset)
		if err != nil {
			return fmt.Errorf("list threats: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var t Threat
			var first, last int64
			if err := rows.Scan(&t.Indicator, &t.Type, &t.MaxSeverity, &t.Count, &first, &last); err != nil {
				return fmt.Errorf("list threats: %w", err)
			}
			t.FirstSeen, t.LastSeen = fromMS(first), fromMS(last)
			out = append(out, t)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("list threats: %w", err)
		}
		return threatAssets(ctx, tx, orgID, out)
	})
	return out, total, err
}

// threatAssets fills in each threat's first maxThreatAssets assets: those
// the fold recorded, then the backlog's in the order the fold will add them
// (first sighting, then name); listed by name. One walk of the backlog
// serves the whole page.
func threatAssets(ctx context.Context, tx querier, orgID string, threats []Threat) error {
	if len(threats) == 0 {
		return nil
	}
	args := []any{orgID}
	var in []string
	for i, t := range threats {
		args = append(args, t.Indicator)
		in = append(in, fmt.Sprintf("?%d", i+2))
	}
	rows, err := tx.QueryContext(ctx, `WITH `+pendingEvents+`
		SELECT indicator, asset, 0, 0 FROM threat_assets WHERE org_id = ?1 AND indicator IN (`+strings.Join(in, ", ")+`)
		UNION ALL SELECT indicator, asset, 1, MIN(ts) FROM pending WHERE indicator IN (`+strings.Join(in, ", ")+`) GROUP BY indicator, asset
		ORDER BY 1, 3, 4, 2`, args...)
	if err != nil {
		return fmt.Errorf("threat assets: %w", err)
	}
	defer rows.Close()
	byIndicator := map[string][]string{}
	held := map[string]map[string]bool{}
	for rows.Next() {
		var indicator, asset string
		var pending int
		var first int64
		if err := rows.Scan(&indicator, &asset, &pending, &first); err != nil {
			return fmt.Errorf("threat assets: %w", err)
		}
		if held[indicator] == nil {
			held[indicator] = map[string]bool{}
		}
		if held[indicator][asset] || len(byIndicator[indicator]) >= maxThreatAssets {
			continue
		}
		held[indicator][asset] = true
		byIndicator[indicator] = append(byIndicator[indicator], asset)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("threat assets: %w", err)
	}
	for i := range threats {
		threats[i].Assets = byIndicator[threats[i].Indicator]
		slices.Sort(threats[i].Assets)
	}
	return nil
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

// CountEventsSince counts events from the hour holding since: the folded
// hours (held in memory for the last week, else the hourly rollup) plus the
// events not folded yet.
func (s *Store) CountEventsSince(ctx context.Context, orgID string, since time.Time) (EventCounts, error) {
	hour := floorMS(ms(since), hourMS)
	c, cursor, ok := s.recent.counts(orgID, hour)
	if ok && s.pg {
		// Another node may be the one folding: counts held here since
		// fall behind its cursor, and are read again once far behind.
		behind, err := s.foldedPast(ctx, cursor)
		if err != nil {
			return EventCounts{}, err
		}
		ok = !behind
	}
	if !ok && hour >= floorMS(ms(s.now().Add(-recentSpan)), hourMS) {
		if err := s.read(ctx, func(q querier) error { return s.recent.load(ctx, q, orgID, s.now()) }); err != nil {
			return EventCounts{}, err
		}
		c, cursor, ok = s.recent.counts(orgID, hour)
	}
	// On PostgreSQL other nodes store events this one does not hear of.
	if ok && !s.pg && cursor >= s.fold.storedSeq.Load() {
		// Nothing is stored past the cursor. (An ingest that commits now
		// has not been acknowledged yet, so it need not be counted.)
		return c, nil
	}
	var rows *sql.Rows
	var err error
	if ok {
		// The events past the cursor the counts are exact for.
		rows, err = s.reads().QueryContext(ctx, `SELECT type, severity, COUNT(*) FROM events NOT INDEXED
			WHERE seq > ? AND org = `+orgNum+` AND ts >= ? GROUP BY type, severity`, cursor, orgID, hour)
	} else {
		c = EventCounts{ByType: map[string]int{}}
		rows, err = s.reads().QueryContext(ctx, `WITH `+pendingEvents+` SELECT type, severity, SUM(n) FROM (
				SELECT type, severity, n FROM event_rollup WHERE org_id = ?1 AND hour >= ?2
				UNION ALL SELECT type, severity, 1 FROM pending WHERE ts >= ?2) AS sub3
			GROUP BY type, severity`, orgID, hour)
	}
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
	rows, err := s.reads().QueryContext(ctx, `WITH `+pendingEvents+` SELECT (hour / ?3) * ?3, severity, SUM(n) FROM (
			SELECT hour, severity, n FROM event_rollup WHERE org_id = ?1 AND hour >= ?2
			UNION ALL SELECT ts, severity, 1 FROM pending WHERE ts >= ?2) AS sub4
		GROUP BY 1, 2 ORDER BY 1`, orgID, floorMS(ms(since), dayMS), dayMS)
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
	return s.tallies(ctx, `WITH `+pendingEvents+` SELECT asset, SUM(n) AS total FROM (
			SELECT asset, n FROM asset_rollup WHERE org_id = ?1 AND day >= ?2
			UNION ALL SELECT asset, 1 FROM pending WHERE ts >= ?2) AS sub5
		GROUP BY asset ORDER BY total DESC, asset LIMIT ?3`, orgID, floorMS(ms(since), dayMS), limit)
}

// TopIndicators returns the indicators seen since (from the start of its
// day, as the daily rollup counts), by their event count in that time.
func (s *Store) TopIndicators(ctx context.Context, orgID string, since time.Time, limit int) ([]Tally, error) {
	return s.tallies(ctx, `WITH `+pendingEvents+` SELECT indicator, SUM(n) AS total FROM (
			SELECT indicator, n FROM indicator_rollup WHERE org_id = ?1 AND day >= ?2
			UNION ALL SELECT indicator, 1 FROM pending WHERE ts >= ?2 AND indicator != '') AS sub6
		GROUP BY indicator ORDER BY total DESC, indicator LIMIT ?3`, orgID, floorMS(ms(since), dayMS), limit)
}

func (s *Store) tallies(ctx context.Context, query string, args ...any) ([]Tally, error) {
	rows, err := s.reads().QueryContext(ctx, query, args...)
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

// OpenAlertCounts returns open alerts by severity.
func (s *Store) OpenAlertCounts(ctx context.Context, orgID string) (event.Counts, error) {
	var out event.Counts
	rows, err := s.reads().QueryContext(ctx, `SELECT severity, n FROM alert_counts WHERE org_id = ? AND status = 'open'`, orgID)
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

// ConfirmedAlertCounts counts, by severity, the alerts resolved since a
// time as true positives: real attacks, remediated.
func (s *Store) ConfirmedAlertCounts(ctx context.Context, orgID string, since time.Time) (event.Counts, error) {
	var out event.Counts
	rows, err := queryAll(ctx, s.reads(), "confirmed alerts", `SELECT severity, COUNT(*) FROM alerts WHERE org_id = ? AND status = 'resolved'
		AND disposition = 'true_positive' AND resolved_at >= ? GROUP BY severity`, []any{orgID, ms(since)},
		func(rows *sql.Rows) ([2]int, error) {
			var v [2]int
			return v, rows.Scan(&v[0], &v[1])
		})
	for _, r := range rows {
		if event.Severity(r[0]).Valid() {
			out[r[0]] = r[1]
		}
	}
	return out, err
}

// AlertsChangedSince counts alerts raised and resolved since a time.
// Both times are written with the alert, not folded: no settling needed.
func (s *Store) AlertsChangedSince(ctx context.Context, orgID string, since time.Time) (raised, resolved int, err error) {
	err = s.reads().QueryRowContext(ctx, `SELECT
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
	rows, err := s.reads().QueryContext(ctx, `WITH `+pendingEvents+` SELECT source, SUM(n), MIN(first_seen), MAX(last_seen) FROM (
			SELECT source, n, first_seen, last_seen FROM event_sources WHERE org_id = ?1
			UNION ALL SELECT source, 1, ts, ts FROM pending) AS sub7
		GROUP BY source ORDER BY MAX(last_seen) DESC, source LIMIT 100`, orgID)
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

// PanelCounts are the stats panel's figures besides the day's events.
type PanelCounts struct {
	OpenAlerts        int
	OpenGaps          int  // open compliance gaps
	ComplianceAudited bool // a framework audit has completed
	AgentsActive      int  // agents with a run queued or running
}

// PanelCounts reads them in one statement: the stats panel is the most
// polled read, and each statement costs a pooled connection and a step.
func (s *Store) PanelCounts(ctx context.Context, orgID string) (PanelCounts, error) {
	var c PanelCounts
	err := s.reads().QueryRowContext(ctx, `SELECT
		(SELECT COALESCE(SUM(n), 0) FROM alert_counts WHERE org_id = ?1 AND status = 'open'),
		(SELECT COUNT(*) FROM compliance_gaps WHERE org_id = ?1 AND status = 'open'),
		EXISTS (SELECT 1 FROM compliance_audits WHERE org_id = ?1 AND completed_at IS NOT NULL),
		(SELECT COUNT(DISTINCT agent) FROM agent_runs WHERE org_id = ?1 AND status IN ('queued', 'running'))`,
		orgID).Scan(&c.OpenAlerts, &c.OpenGaps, &c.ComplianceAudited, &c.AgentsActive)
	if err != nil {
		return PanelCounts{}, fmt.Errorf("stats panel: %w", err)
	}
	return c, nil
}
