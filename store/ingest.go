package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"garrison/alerting"

	"garrison/event"
)

// NewEvent is one security event to ingest.
type NewEvent struct {
	Type      string
	Severity  event.Severity
	Timestamp time.Time
	Source    string
	Asset     string
	Message   string
	Indicator string
	Category  string // the sensor's own category, used to classify alerts
	Details   []byte // a JSON object, or nil
	Fields    event.Fields
	Original  string // the record as received ("" for native events)
	// Rules are the organization's enabled detection rules the event
	// fired; it joins the alert of the strongest (alerting.Strongest).
	Rules []*alerting.Rule
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

// alertDelta is what one batch adds to one alert.
type alertDelta struct {
	id          string
	exists      bool
	spec        alerting.Spec
	count       int64 // events of this batch that join it
	first, last int64
	// attacker is who its events of the batch point at
	// (alerting.Attacker): the first one's; "" and mixedAttacker when a
	// burst's events name different ones (those naming none aside).
	attacker      string
	mixedAttacker bool
	// Burst windows crossing the threshold now bring their earlier events:
	// their sum, and their seqs to mark as the alert's.
	taken     windowStat
	takenSeqs []int64
}

type burstKey struct {
	asset, typ string
	window     int64
}

// Ingest stores a batch of events and DNS queries in one transaction,
// together with the alerts they raise or join: all or nothing. The event
// rollups are folded in afterwards (fold.go); reads add the events not yet
// folded to them.
// It returns the new event ids in input order.
func (s *Store) Ingest(ctx context.Context, orgID string, events []NewEvent, dns []DNSQuery) ([]string, error) {
	if s.OnReserve() && (len(events) > 0 || len(dns) > 0) {
		return nil, ErrDiskFull
	}
	if s.fold.unrecovered.Load() {
		if err := s.settle(ctx); err != nil {
			return nil, fmt.Errorf("fold what a crash left: %w", err)
		}
	}
	now := s.now()
	s.alerts.mu.Lock()
	defer s.alerts.mu.Unlock()
	var mem *orgAlertMemory
	var p alertPlan
	var lastSeq int64
	var blocks []blockRange
	var linked []string
	var gen int64
	logons := s.alerts.logonsOf(orgID)
	err := s.write(ctx, func(tx *sql.Tx) error {
		logons.Rollback() // a write run again (PostgreSQL) observes the sign-ins afresh
		var err error
		if err := s.chargeUsage(ctx, tx, orgID, events, dns); err != nil {
			return err
		}
		if s.pg {
			// What is held stays only if no other node ingested or changed
			// the organization's alerts since this one last did.
			if gen, err = s.alerts.claimGen(ctx, tx, orgID); err != nil {
				return err
			}
		}
		if mem, err = s.alerts.org(ctx, tx, orgID); err != nil {
			return err
		}
		if p, err = planAlerts(ctx, tx, mem, logons, orgID, events, now); err != nil {
			return err
		}
		if lastSeq, err = insertEvents(ctx, tx, orgID, events, p.alertOf, now, s.pg); err != nil {
			return err
		}
		if blocks, err = writeBlocks(ctx, tx, lastSeq-int64(len(events))+1, events); err != nil {
			return err
		}
		if err := writeAlerts(ctx, tx, orgID, p.alerts, lastSeq, now); err != nil {
			return err
		}
		if linked, err = linkIncidents(ctx, tx, mem, orgID, p.alerts, now); err != nil {
			return err
		}
		for id, n := range p.suppressed {
			if _, err := tx.ExecContext(ctx, `UPDATE alert_suppressions SET hits = hits + ? WHERE id = ?`, n, id); err != nil {
				return fmt.Errorf("count suppressed events: %w", err)
			}
		}
		return writeDNS(ctx, tx, orgID, dns)
	})
	if err != nil {
		logons.Rollback()
		return nil, err
	}
	logons.Commit()
	opened := map[string]string{}
	for fp, d := range p.alerts {
		if !d.exists {
			opened[fp] = d.id
		}
	}
	mem.commit(p.windows, p.memberSeqs(lastSeq-int64(len(events))+1), opened, linked, s.alerts.limit)
	mem.gen = gen
	if len(opened) > 0 {
		s.alertSignalled()
	}
	for _, b := range blocks {
		if !s.pg { // other nodes add blocks too: view keeps them (eventtext.go)
			s.blocks.add(b.block, b.lo, b.hi)
		}
	}
	ids := make([]string, len(events))
	if len(events) > 0 {
		s.fold.stored(lastSeq)
		first := lastSeq - int64(len(events)) + 1
		for i := range ids {
			ids[i] = s.eventIDs.of(first + int64(i))
		}
	}
	return ids, nil
}

// alertPlan is the alert each event raises or joins (nil for none), the
// alerts the batch touches by fingerprint, and what it adds to each burst
// window.
type alertPlan struct {
	alertOf []*alertDelta
	alerts  map[string]*alertDelta
	windows map[burstKey]windowStat
	members map[burstKey][]int // the batch's events of each window, by index
	// suppressed counts, per suppression, the events it kept from alerting.
	suppressed map[string]int64
}

// memberSeqs returns the seqs of each window's events of the batch, whose
// first event took the seq first.
func (p alertPlan) memberSeqs(first int64) map[burstKey][]int64 {
	seqs := make(map[burstKey][]int64, len(p.members))
	for k, members := range p.members {
		for _, i := range members {
			seqs[k] = append(seqs[k], first+int64(i))
		}
	}
	return seqs
}

// planAlerts decides, for each event, the alert it raises or joins: high and
// critical events directly, lower ones when their burst window crosses the
// threshold.
func planAlerts(ctx context.Context, tx *sql.Tx, mem *orgAlertMemory, logons *alerting.Logons, orgID string, events []NewEvent,
	now time.Time) (alertPlan, error) {
	p := alertPlan{alertOf: make([]*alertDelta, len(events)), alerts: map[string]*alertDelta{}, windows: map[burstKey]windowStat{}}
	bursts := map[burstKey][]int{} // lower-severity events per window
	p.members = bursts
	findOpen, err := tx.PrepareContext(ctx, `SELECT id FROM alerts WHERE org_id = ? AND fingerprint = ? AND status = 'open'`)
	if err != nil {
		return p, fmt.Errorf("prepare alert lookup: %w", err)
	}
	defer findOpen.Close()
	join := func(spec alerting.Spec) (*alertDelta, error) {
		if d, ok := p.alerts[spec.Fingerprint]; ok {
			d.spec.Severity = max(d.spec.Severity, spec.Severity)
			return d, nil
		}
		d := &alertDelta{spec: spec, first: 1<<63 - 1, last: -1 << 63}
		id, known := mem.open[spec.Fingerprint]
		if !known {
			err := findOpen.QueryRowContext(ctx, orgID, spec.Fingerprint).Scan(&id)
			if err != nil && err != sql.ErrNoRows {
				return nil, fmt.Errorf("find open alert: %w", err)
			}
			mem.open[spec.Fingerprint] = id // committed state: "" is none
		}
		d.id, d.exists = id, id != ""
		if !d.exists {
			d.id = NewID("alr", now)
		}
		p.alerts[spec.Fingerprint] = d
		return d, nil
	}
	add := func(d *alertDelta, ts int64, attacker string) {
		d.count++
		d.first, d.last = min(d.first, ts), max(d.last, ts)
		switch {
		case d.attacker == "" && !d.mixedAttacker:
			d.attacker = attacker
		case attacker != "" && d.attacker != attacker && d.spec.Category == event.CategoryBurst:
			d.attacker, d.mixedAttacker = "", true
		}
	}

	suppressions, err := activeSuppressions(ctx, tx, orgID, now)
	if err != nil {
		return p, err
	}
	p.suppressed = map[string]int64{}
	burstAttacker := map[int]string{}
events:
	for i, e := range events {
		ae := alerting.Event{Type: e.Type, Severity: e.Severity, Asset: e.Asset, Message: e.Message, Indicator: e.Indicator,
			Category: e.Category, SrcIP: e.Fields.SrcIP, DstIP: e.Fields.DstIP, User: e.Fields.User, Action: e.Fields.Action, Time: e.Timestamp}
		for _, sp := range suppressions {
			if sp.Matches(ae, e.Source) { // stored and counted, alerting nobody
				p.suppressed[sp.ID]++
				continue events
			}
		}
		spec, ok := logons.Observe(ae) // a guessed password first
		if !ok && len(e.Rules) > 0 {   // a rule's alert, whatever the event's own severity
			spec, ok = alerting.Matched(ae, alerting.Strongest(e.Rules)), true
		}
		if !ok {
			spec, ok = alerting.Immediate(ae)
		}
		if ok {
			d, err := join(spec)
			if err != nil {
				return p, err
			}
			p.alertOf[i] = d
			add(d, ms(e.Timestamp), alerting.Attacker(ae))
			continue
		}
		if !alerting.Alerts(e.Type) {
			continue
		}
		k := burstKey{e.Asset, e.Type, ms(alerting.Window(e.Timestamp))}
		bursts[k] = append(bursts[k], i)
		burstAttacker[i] = alerting.Attacker(ae)
	}
	if len(bursts) == 0 {
		return p, nil
	}
	recount, err := tx.PrepareContext(ctx, recountWindow)
	if err != nil {
		return p, fmt.Errorf("prepare burst recount: %w", err)
	}
	defer recount.Close()
	for k, members := range bursts {
		before, beforeSeqs, err := mem.window(ctx, recount, orgID, k)
		if err != nil {
			return p, err
		}
		var added windowStat
		for _, i := range members {
			ts := ms(events[i].Timestamp)
			added.add(windowStat{n: 1, first: ts, last: ts, sev: events[i].Severity})
		}
		p.windows[k] = added
		if !alerting.BurstReached(before.n + added.n) {
			continue
		}
		spec := alerting.Burst(k.typ, k.asset, added.sev)
		_, planned := p.alerts[spec.Fingerprint]
		d, err := join(spec)
		if err != nil {
			return p, err
		}
		joins, takeEarlier := alerting.BurstJoins(before.n, planned || d.exists)
		if !joins {
			delete(p.alerts, spec.Fingerprint)
			continue
		}
		for _, i := range members {
			p.alertOf[i] = d
			add(d, ms(events[i].Timestamp), burstAttacker[i])
		}
		if takeEarlier {
			d.taken.add(before)
			d.takenSeqs = append(d.takenSeqs, beforeSeqs...)
		}
	}
	return p, nil
}

// insertEvents stores the batch and returns the sequence of its last event.
// Sequences continue from the highest ever given (fold_state.events_hw),
// not from the highest stored: the newest events may have been deleted,
// and a number at or below the fold's cursor would never be folded.
func insertEvents(ctx context.Context, tx *sql.Tx, orgID string, events []NewEvent, alertOf []*alertDelta, now time.Time, pg bool) (int64, error) {
	var org int64
	if err := tx.QueryRowContext(ctx, `SELECT num FROM org_numbers WHERE org_id = ?`, orgID).Scan(&org); err != nil {
		return 0, fmt.Errorf("organization's number: %w", err)
	}
	var hw int64
	if err := tx.QueryRowContext(ctx, `UPDATE fold_state SET events_hw = events_hw + ? RETURNING events_hw - ?`,
		len(events), len(events)).Scan(&hw); err != nil {
		return 0, fmt.Errorf("event sequences: %w", err)
	}
	// Events without normalised fields (native ones, most often) leave the
	// ten columns out: binding them costs a tenth of the insert.
	withFields := slices.ContainsFunc(events, func(e NewEvent) bool { return !e.Fields.IsZero() })
	insert := `INSERT INTO events (seq, org, ts, type, severity, source, asset, message, indicator, details, alert_id, received_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	if withFields {
		insert = `INSERT INTO events
		(seq, org, ts, type, severity, source, asset, message, indicator, details, alert_id, received_at,
		src_ip, dst_ip, src_port, dst_port, user_name, process, command_line, host, rule, action)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	}
	if pg {
		// A statement is a round trip to PostgreSQL: the batch goes in a
		// few statements of many rows each.
		return insertEventRows(ctx, tx, org, hw, events, alertOf, now, withFields)
	}
	stmt, err := tx.PrepareContext(ctx, insert)
	if err != nil {
		return 0, fmt.Errorf("prepare event insert: %w", err)
	}
	defer stmt.Close()
	text, err := tx.PrepareContext(ctx, `INSERT INTO event_text (rowid, words) VALUES (?, ?)`)
	if err != nil {
		return 0, fmt.Errorf("prepare event text insert: %w", err)
	}
	defer text.Close()
	var words []byte
	var originals *sql.Stmt
	defer func() {
		if originals != nil {
			originals.Close()
		}
	}()
	received := ms(now)
	last := hw + int64(len(events))
	for i, e := range events {
		var alertID sql.NullString
		if d := alertOf[i]; d != nil {
			alertID = sql.NullString{String: d.id, Valid: true}
		}
		var details sql.NullString
		if e.Details != nil {
			details = sql.NullString{String: string(e.Details), Valid: true}
		}
		args := []any{hw + int64(i) + 1, org, ms(e.Timestamp), e.Type, e.Severity, e.Source, e.Asset,
			e.Message, e.Indicator, details, alertID, received}
		if withFields {
			f := e.Fields
			args = append(args, addrColumn(f.SrcIP), addrColumn(f.DstIP), portColumn(f.SrcPort), portColumn(f.DstPort),
				textColumn(f.User), textColumn(f.Process), textColumn(f.CommandLine), textColumn(f.Host), textColumn(f.Rule),
				textColumn(f.Action))
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return 0, fmt.Errorf("insert event %d: %w", i, err)
		}
		if words = textOf(words[:0], org, e.Message, e.Fields.Rule, e.Indicator); len(words) > 0 {
			if _, err := text.ExecContext(ctx, hw+int64(i)+1, string(words)); err != nil {
				return 0, fmt.Errorf("index event %d's words: %w", i, err)
			}
		}
		if e.Original == "" {
			continue
		}
		if originals == nil {
			if originals, err = tx.PrepareContext(ctx, `INSERT INTO event_originals (seq, original) VALUES (?, ?)`); err != nil {
				return 0, fmt.Errorf("prepare original insert: %w", err)
			}
		}
		if _, err := originals.ExecContext(ctx, hw+int64(i)+1, e.Original); err != nil {
			return 0, fmt.Errorf("insert event %d's original: %w", i, err)
		}
	}
	return last, nil
}

// writeAlerts inserts the alerts the batch raises and adds the batch's
// events to the alerts they join (crossing burst windows bring their
// earlier events too, marked as the alert's here), marking each counted
// through lastSeq: an alert's counters never wait for the fold.
func writeAlerts(ctx context.Context, tx *sql.Tx, orgID string, alerts map[string]*alertDelta, lastSeq int64, now time.Time) error {
	var updates, inserts, taken, signals [][]any
	for _, d := range alerts {
		count, first, last, sev := d.count+d.taken.n, d.first, d.last, d.spec.Severity
		if d.taken.n > 0 {
			first, last, sev = min(first, d.taken.first), max(last, d.taken.last), max(sev, d.taken.sev)
		}
		if !d.exists {
			rule, err := ruleColumn(d.spec.Rule)
			if err != nil {
				return err
			}
			inserts = append(inserts, []any{d.id, orgID, d.spec.Fingerprint, sev, d.spec.Category, d.spec.Title,
				d.spec.Asset, d.spec.Indicator, d.spec.RecommendedAction, count, first, last, ms(now), ms(now), lastSeq, rule})
			signals = append(signals, []any{orgID, d.id, SignalOpened, ms(now)})
		} else {
			updates = append(updates, []any{count, sev, first, last, ms(now), lastSeq, d.id})
		}
		for _, seq := range d.takenSeqs {
			taken = append(taken, []any{d.id, seq, orgID})
		}
	}
	return execAll(ctx, tx,
		batch{"update alert", `UPDATE alerts SET event_count = event_count + ?, severity = MAX(severity, ?),
			first_seen = MIN(first_seen, ?), last_seen = MAX(last_seen, ?), updated_at = ?, counted_through = ? WHERE id = ?`, updates},
		batch{"insert alert", `INSERT INTO alerts (id, org_id, fingerprint, severity, category, title, asset, indicator,
			recommended_action, status, event_count, first_seen, last_seen, created_at, updated_at, counted_through, rule)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?)`, inserts},
		batch{"burst window's earlier event", `UPDATE events SET alert_id = ? WHERE seq = ? AND alert_id IS NULL
			AND org = ` + orgNum, taken},
		batch{"alert signal", signalInsert, signals},
	)
}

// ruleColumn is the alerts.rule of an alert a detection rule opens.
func ruleColumn(r *alerting.Rule) (sql.NullString, error) {
	if r == nil {
		return sql.NullString{}, nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return sql.NullString{}, fmt.Errorf("alert rule %s: %w", r.ID, err)
	}
	return sql.NullString{String: string(b), Valid: true}, nil
}

// sourceUpsert records that a source reported: events and DNS telemetry alike.
const sourceUpsert = `INSERT INTO event_sources (org_id, source, n, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)
	ON CONFLICT (org_id, source) DO UPDATE SET n = event_sources.n + excluded.n, first_seen = MIN(event_sources.first_seen, excluded.first_seen),
	last_seen = MAX(event_sources.last_seen, excluded.last_seen)`

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
			ON CONFLICT (org_id, hour, category) DO UPDATE SET n = dns_rollup.n + excluded.n`, hourRows},
		batch{"blocked domains", `INSERT INTO dns_blocked_domains (org_id, domain, category, n, last_seen) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (org_id, domain) DO UPDATE SET n = dns_blocked_domains.n + excluded.n, last_seen = MAX(dns_blocked_domains.last_seen, excluded.last_seen)`, domainRows},
		batch{"dns sources", sourceUpsert, sourceRows},
	)
}
