package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"garrison/alerting"
)

// NewEvent is one security event to ingest. Severity is 0 (info) to 4 (critical).
type NewEvent struct {
	Type      string
	Severity  int
	Timestamp time.Time
	Source    string
	Asset     string
	Message   string
	Indicator string
	Category  string // the sensor's own category, used to classify alerts
	Details   []byte // a JSON object, or nil
}

// DNSQuery is one DNS query seen by a sensor. Category is the blocklist
// category of the domain, "" when it is not blocked.
type DNSQuery struct {
	Timestamp time.Time
	Source    string
	Client    string
	Domain    string
	QType     string
	RCode     string
	Category  string
}

const (
	hourMS = int64(time.Hour / time.Millisecond)
	dayMS  = 24 * hourMS
)

func floorMS(v, unit int64) int64 {
	if v < 0 {
		return (v - unit + 1) / unit * unit
	}
	return v / unit * unit
}

// alertDelta accumulates what one batch adds to one alert.
type alertDelta struct {
	id          string
	exists      bool
	spec        alerting.Spec
	count       int64
	first       int64
	last        int64
	linkWindows []burstKey // bursts that just crossed: link the windows' earlier events too
}

type burstKey struct {
	asset, typ string
	window     int64
}

// Ingest stores a batch of events and DNS queries in one transaction,
// together with every rollup and alert they change: all or nothing.
// It returns the new event ids in input order.
func (s *Store) Ingest(ctx context.Context, orgID string, events []NewEvent, dns []DNSQuery) ([]string, error) {
	now := s.now()
	ids := make([]string, len(events))
	for i := range events {
		ids[i] = NewID("evt", now)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		alertOf, alerts, err := planAlerts(ctx, tx, orgID, events, now)
		if err != nil {
			return err
		}
		if err := insertEvents(ctx, tx, orgID, events, ids, alertOf, now); err != nil {
			return err
		}
		if err := writeAlerts(ctx, tx, orgID, alerts, now); err != nil {
			return err
		}
		if err := writeEventRollups(ctx, tx, orgID, events); err != nil {
			return err
		}
		return writeDNS(ctx, tx, orgID, dns)
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// planAlerts decides, for each event, the alert it raises or joins: high and
// critical events directly, lower ones when their burst window crosses the
// threshold. Burst windows are counted here, inside the transaction.
func planAlerts(ctx context.Context, tx *sql.Tx, orgID string, events []NewEvent, now time.Time) ([]*alertDelta, map[string]*alertDelta, error) {
	alertOf := make([]*alertDelta, len(events))
	alerts := map[string]*alertDelta{}
	findOpen, err := tx.PrepareContext(ctx, `SELECT id FROM alerts WHERE org_id = ? AND fingerprint = ? AND status = 'open'`)
	if err != nil {
		return nil, nil, fmt.Errorf("prepare alert lookup: %w", err)
	}
	defer findOpen.Close()
	join := func(spec alerting.Spec) (*alertDelta, error) {
		if d, ok := alerts[spec.Fingerprint]; ok {
			d.spec.Severity = max(d.spec.Severity, spec.Severity)
			return d, nil
		}
		d := &alertDelta{spec: spec, first: 1<<63 - 1}
		err := findOpen.QueryRowContext(ctx, orgID, spec.Fingerprint).Scan(&d.id)
		switch {
		case err == sql.ErrNoRows:
			d.id = NewID("alr", now)
		case err != nil:
			return nil, fmt.Errorf("find open alert: %w", err)
		default:
			d.exists = true
		}
		alerts[spec.Fingerprint] = d
		return d, nil
	}
	add := func(d *alertDelta, ts int64) {
		d.count++
		d.first, d.last = min(d.first, ts), max(d.last, ts)
	}

	bursts := map[burstKey][]int{} // lower-severity events per window
	for i, e := range events {
		ae := alerting.Event{Type: e.Type, Severity: e.Severity, Asset: e.Asset, Message: e.Message, Indicator: e.Indicator, Category: e.Category}
		if spec, ok := alerting.Immediate(ae); ok {
			d, err := join(spec)
			if err != nil {
				return nil, nil, err
			}
			alertOf[i] = d
			add(d, ms(e.Timestamp))
			continue
		}
		k := burstKey{e.Asset, e.Type, ms(alerting.Window(e.Timestamp))}
		bursts[k] = append(bursts[k], i)
	}
	countWindow, err := tx.PrepareContext(ctx, `INSERT INTO burst_windows (org_id, asset, type, window, n) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (org_id, asset, type, window) DO UPDATE SET n = n + excluded.n RETURNING n`)
	if err != nil {
		return nil, nil, fmt.Errorf("prepare burst count: %w", err)
	}
	defer countWindow.Close()
	// INDEXED BY: without statistics the planner would scan the whole
	// window of every asset through the time index.
	firstInWindow, err := tx.PrepareContext(ctx, `SELECT MIN(ts) FROM events INDEXED BY events_org_asset_ts
		WHERE org_id = ? AND asset = ? AND type = ? AND ts >= ? AND ts < ? AND severity < ?`)
	if err != nil {
		return nil, nil, fmt.Errorf("prepare burst start: %w", err)
	}
	defer firstInWindow.Close()
	for k, members := range bursts {
		var after int64
		if err := countWindow.QueryRowContext(ctx, orgID, k.asset, k.typ, k.window, len(members)).Scan(&after); err != nil {
			return nil, nil, fmt.Errorf("count burst window: %w", err)
		}
		before := after - int64(len(members))
		if after < alerting.BurstThreshold {
			continue
		}
		worst := 0
		for _, i := range members {
			worst = max(worst, events[i].Severity)
		}
		spec := alerting.Burst(k.typ, k.asset, worst)
		_, planned := alerts[spec.Fingerprint]
		d, err := join(spec)
		if err != nil {
			return nil, nil, err
		}
		if before >= alerting.BurstThreshold && !planned && !d.exists {
			// Past the threshold already and no burst alert open (it was
			// resolved): the window's stragglers raise nothing new.
			delete(alerts, spec.Fingerprint)
			continue
		}
		for _, i := range members {
			alertOf[i] = d
			add(d, ms(events[i].Timestamp))
		}
		if before > 0 && before < alerting.BurstThreshold {
			// Crossing now: the window's earlier events belong to the burst too.
			var first int64
			if err := firstInWindow.QueryRowContext(ctx, orgID, k.asset, k.typ, k.window,
				k.window+int64(alerting.BurstWindow/time.Millisecond), alerting.SeverityHigh).Scan(&first); err != nil {
				return nil, nil, fmt.Errorf("burst window start: %w", err)
			}
			d.count += before
			d.first = min(d.first, first)
			d.linkWindows = append(d.linkWindows, k)
		}
	}
	return alertOf, alerts, nil
}

func insertEvents(ctx context.Context, tx *sql.Tx, orgID string, events []NewEvent, ids []string, alertOf []*alertDelta, now time.Time) error {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO events
		(id, org_id, ts, type, severity, source, asset, message, indicator, details, alert_id, received_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("prepare event insert: %w", err)
	}
	defer stmt.Close()
	received := ms(now)
	for i, e := range events {
		var alertID sql.NullString
		if d := alertOf[i]; d != nil {
			alertID = sql.NullString{String: d.id, Valid: true}
		}
		var details sql.NullString
		if e.Details != nil {
			details = sql.NullString{String: string(e.Details), Valid: true}
		}
		if _, err := stmt.ExecContext(ctx, ids[i], orgID, ms(e.Timestamp), e.Type, e.Severity, e.Source, e.Asset,
			e.Message, e.Indicator, details, alertID, received); err != nil {
			return fmt.Errorf("insert event %d: %w", i, err)
		}
	}
	return nil
}

func writeAlerts(ctx context.Context, tx *sql.Tx, orgID string, alerts map[string]*alertDelta, now time.Time) error {
	var updates, inserts, links [][]any
	for _, d := range alerts {
		if d.exists {
			updates = append(updates, []any{d.count, d.spec.Severity, d.first, d.last, ms(now), d.id})
		} else {
			inserts = append(inserts, []any{d.id, orgID, d.spec.Fingerprint, d.spec.Severity, d.spec.Category, d.spec.Title,
				d.spec.Asset, d.spec.Indicator, d.spec.RecommendedAction, d.count, d.first, d.last, ms(now), ms(now)})
		}
		for _, w := range d.linkWindows {
			links = append(links, []any{d.id, orgID, w.asset, w.typ, w.window, w.window + int64(alerting.BurstWindow/time.Millisecond),
				alerting.SeverityHigh})
		}
	}
	return execAll(ctx, tx,
		batch{"update alert", `UPDATE alerts SET event_count = event_count + ?, severity = MAX(severity, ?),
			first_seen = MIN(first_seen, ?), last_seen = MAX(last_seen, ?), updated_at = ? WHERE id = ?`, updates},
		batch{"insert alert", `INSERT INTO alerts (id, org_id, fingerprint, severity, category, title, asset, indicator,
			recommended_action, status, event_count, first_seen, last_seen, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?)`, inserts},
		batch{"link burst events", `UPDATE events INDEXED BY events_org_asset_ts SET alert_id = ? WHERE org_id = ? AND asset = ?
			AND type = ? AND ts >= ? AND ts < ? AND severity < ? AND alert_id IS NULL`, links},
	)
}

// writeEventRollups folds the batch into the hourly, per-asset, per-indicator
// and per-source counters, one upsert per distinct key.
func writeEventRollups(ctx context.Context, tx *sql.Tx, orgID string, events []NewEvent) error {
	type hourKey struct {
		hour int64
		typ  string
		sev  int
	}
	type assetKey struct {
		day   int64
		asset string
	}
	type span struct {
		n, first, last int64
		sev            int
		typ            string
	}
	hours := map[hourKey]int64{}
	assets := map[assetKey]*span{}
	indicators := map[string]*span{}
	indicatorAssets := map[[2]string]bool{}
	sources := map[string]*span{}
	widen := func(m map[string]*span, k string, e NewEvent) {
		ts := ms(e.Timestamp)
		sp, ok := m[k]
		if !ok {
			sp = &span{first: ts, last: ts, typ: e.Type}
			m[k] = sp
		}
		sp.n++
		sp.first, sp.last, sp.sev = min(sp.first, ts), max(sp.last, ts), max(sp.sev, e.Severity)
	}
	for _, e := range events {
		ts := ms(e.Timestamp)
		hours[hourKey{floorMS(ts, hourMS), e.Type, e.Severity}]++
		ak := assetKey{floorMS(ts, dayMS), e.Asset}
		if sp, ok := assets[ak]; ok {
			sp.n, sp.sev = sp.n+1, max(sp.sev, e.Severity)
		} else {
			assets[ak] = &span{n: 1, sev: e.Severity}
		}
		if e.Indicator != "" {
			widen(indicators, e.Indicator, e)
			indicatorAssets[[2]string{e.Indicator, e.Asset}] = true
		}
		widen(sources, e.Source, e)
	}
	var hourRows, assetRows, indicatorRows, pairRows, sourceRows [][]any
	for k, n := range hours {
		hourRows = append(hourRows, []any{orgID, k.hour, k.typ, k.sev, n})
	}
	for k, sp := range assets {
		assetRows = append(assetRows, []any{orgID, k.day, k.asset, sp.n, sp.sev})
	}
	for ind, sp := range indicators {
		indicatorRows = append(indicatorRows, []any{orgID, ind, sp.typ, sp.sev, sp.n, sp.first, sp.last})
	}
	for k := range indicatorAssets {
		pairRows = append(pairRows, []any{orgID, k[0], k[1]})
	}
	for src, sp := range sources {
		sourceRows = append(sourceRows, []any{orgID, src, sp.n, sp.first, sp.last})
	}
	return execAll(ctx, tx,
		batch{"event rollup", `INSERT INTO event_rollup (org_id, hour, type, severity, n) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (org_id, hour, type, severity) DO UPDATE SET n = n + excluded.n`, hourRows},
		batch{"asset rollup", `INSERT INTO asset_rollup (org_id, day, asset, n, max_severity) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (org_id, day, asset) DO UPDATE SET n = n + excluded.n, max_severity = MAX(max_severity, excluded.max_severity)`, assetRows},
		batch{"threat indicators", `INSERT INTO threat_indicators (org_id, indicator, type, max_severity, n, first_seen, last_seen)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (org_id, indicator) DO UPDATE SET n = n + excluded.n,
			max_severity = MAX(max_severity, excluded.max_severity), first_seen = MIN(first_seen, excluded.first_seen),
			last_seen = MAX(last_seen, excluded.last_seen)`, indicatorRows},
		batch{"threat assets", `INSERT OR IGNORE INTO threat_assets (org_id, indicator, asset) VALUES (?, ?, ?)`, pairRows},
		batch{"event sources", sourceUpsert, sourceRows},
	)
}

// sourceUpsert records that a source reported: events and DNS telemetry alike.
const sourceUpsert = `INSERT INTO event_sources (org_id, source, n, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)
	ON CONFLICT (org_id, source) DO UPDATE SET n = n + excluded.n, first_seen = MIN(first_seen, excluded.first_seen),
	last_seen = MAX(last_seen, excluded.last_seen)`

// batch is one statement and the rows to run it for.
type batch struct {
	what  string
	query string
	rows  [][]any
}

// execAll runs each batch's statement, prepared once, for all its rows:
// preparing per row costs more than the upsert itself.
func execAll(ctx context.Context, tx *sql.Tx, batches ...batch) error {
	for _, b := range batches {
		if len(b.rows) == 0 {
			continue
		}
		stmt, err := tx.PrepareContext(ctx, b.query)
		if err != nil {
			return fmt.Errorf("%s: prepare: %w", b.what, err)
		}
		for _, row := range b.rows {
			if _, err := stmt.ExecContext(ctx, row...); err != nil {
				stmt.Close()
				return fmt.Errorf("%s: %w", b.what, err)
			}
		}
		stmt.Close()
	}
	return nil
}

func writeDNS(ctx context.Context, tx *sql.Tx, orgID string, queries []DNSQuery) error {
	if len(queries) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO dns_queries (org_id, ts, source, client, domain, qtype, rcode, category)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("prepare dns insert: %w", err)
	}
	defer stmt.Close()
	type hourKey struct {
		hour     int64
		category string
	}
	hours := map[hourKey]int64{}
	type source struct{ n, first, last int64 }
	sources := map[string]*source{}
	type blocked struct {
		category string
		n, last  int64
	}
	domains := map[string]*blocked{}
	for _, q := range queries {
		ts := ms(q.Timestamp)
		if _, err := stmt.ExecContext(ctx, orgID, ts, q.Source, q.Client, q.Domain, q.QType, q.RCode, q.Category); err != nil {
			return fmt.Errorf("insert dns query: %w", err)
		}
		hours[hourKey{floorMS(ts, hourMS), q.Category}]++
		if src, ok := sources[q.Source]; ok {
			src.n, src.first, src.last = src.n+1, min(src.first, ts), max(src.last, ts)
		} else {
			sources[q.Source] = &source{1, ts, ts}
		}
		if q.Category != "" {
			b, ok := domains[q.Domain]
			if !ok {
				b = &blocked{category: q.Category}
				domains[q.Domain] = b
			}
			b.n, b.last = b.n+1, max(b.last, ts)
		}
	}
	var hourRows, domainRows, sourceRows [][]any
	for k, n := range hours {
		hourRows = append(hourRows, []any{orgID, k.hour, k.category, n})
	}
	for name, src := range sources {
		sourceRows = append(sourceRows, []any{orgID, name, src.n, src.first, src.last})
	}
	for d, b := range domains {
		domainRows = append(domainRows, []any{orgID, d, b.category, b.n, b.last})
	}
	return execAll(ctx, tx,
		batch{"dns rollup", `INSERT INTO dns_rollup (org_id, hour, category, n) VALUES (?, ?, ?, ?)
			ON CONFLICT (org_id, hour, category) DO UPDATE SET n = n + excluded.n`, hourRows},
		batch{"blocked domains", `INSERT INTO dns_blocked_domains (org_id, domain, category, n, last_seen) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (org_id, domain) DO UPDATE SET n = n + excluded.n, last_seen = MAX(last_seen, excluded.last_seen)`, domainRows},
		batch{"dns sources", sourceUpsert, sourceRows},
	)
}
