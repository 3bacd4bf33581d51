package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"garrison/alerting"

	"garrison/event"
)

// alertMemory is what ingest needs to decide alerts without writing
// per-event counters: each burst window's lower-severity events, and the
// open alert (or none) per fingerprint. The database stays the truth: a
// window not held here is recounted from the events, a fingerprint looked
// up in alerts. Ingest and alert status changes hold mu for their whole
// transaction, so what is held here always matches what is committed.
type alertMemory struct {
	mu    sync.Mutex
	orgs  map[string]*orgAlertMemory
	limit int // windows and fingerprints held per organization
	// logons are each organization's recent failed sign-ins (the
	// failed-then-successful rule). Unlike the rest, they are only
	// here: idle releases keep them, a restart forgets them.
	logons map[string]*alerting.Logons
}

// logonsOf returns the organization's sign-in memory. Callers hold mu.
func (m *alertMemory) logonsOf(orgID string) *alerting.Logons {
	if m.logons == nil {
		m.logons = map[string]*alerting.Logons{}
	}
	l := m.logons[orgID]
	if l == nil {
		l = alerting.NewLogons(logonsPerOrg)
		m.logons[orgID] = l
	}
	return l
}

// logonsPerOrg bounds the accounts and addresses whose failed sign-ins
// an organization's memory holds.
const logonsPerOrg = 10_000

// release drops what is held of every organization, unless an ingest or
// a status change holds the memory now (then the store is not idle).
func (m *alertMemory) release() {
	if m.mu.TryLock() {
		m.orgs = nil
		m.mu.Unlock()
	}
}

// windowStat counts events, their time range and worst severity: a burst
// window's lower-severity events so far, or what a batch adds to one.
type windowStat struct {
	n, first, last int64
	sev            event.Severity
}

func (w *windowStat) add(o windowStat) {
	if o.n == 0 {
		return
	}
	if w.n == 0 {
		*w = o
		return
	}
	w.n += o.n
	w.first, w.last, w.sev = min(w.first, o.first), max(w.last, o.last), max(w.sev, o.sev)
}

type orgAlertMemory struct {
	windows map[burstKey]windowStat
	// waiting holds the seqs of a window's events while it is below the
	// burst threshold: the events a crossing takes into its alert, found
	// without reading the window (at most BurstThreshold-1 per window).
	waiting map[burstKey][]int64
	open    map[string]string // fingerprint → open alert id, "" for none
	// inIncident holds alerts known to be in an incident, which ingest
	// then leaves as they are (linkIncidents).
	inIncident map[string]bool
	// A window starting at or before startTS may hold events stored before
	// this process held the organization; one below evictedBelow was dropped
	// from memory. Either is recounted from the events.
	startTS      int64
	evictedBelow int64
	newestWindow int64
	// recounted holds the windows read whole from the events: a key of
	// one not in windows has no events.
	recounted map[int64]bool
	// gen is the organization's alert_gen this memory is exact for
	// (PostgreSQL, where other nodes ingest too; see claimGen).
	gen int64
}

// defaultMemoryLimit bounds the windows and fingerprints held per
// organization; past it they are dropped and recounted from the database
// when touched.
const defaultMemoryLimit = 50_000

// org returns the organization's memory, reading where its stored events
// end the first time. Callers hold mu and an open write transaction.
func (m *alertMemory) org(ctx context.Context, tx *sql.Tx, orgID string) (*orgAlertMemory, error) {
	if o, ok := m.orgs[orgID]; ok {
		return o, nil
	}
	var newest sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(ts) FROM events WHERE org = `+orgNum, orgID).Scan(&newest); err != nil {
		return nil, fmt.Errorf("newest event: %w", err)
	}
	start := int64(-1 << 63)
	if newest.Valid {
		start = newest.Int64
	}
	o := &orgAlertMemory{windows: map[burstKey]windowStat{}, waiting: map[burstKey][]int64{}, open: map[string]string{}, inIncident: map[string]bool{}, startTS: start, evictedBelow: -1 << 63, newestWindow: -1 << 63}
	if m.orgs == nil {
		m.orgs = map[string]*orgAlertMemory{}
	}
	m.orgs[orgID] = o
	return o, nil
}

// window returns a burst window's events so far, and the seqs of them
// while it is below the threshold, from memory or, when they may not all
// be there, from the events: the whole window is recounted at once, every
// asset and type of it, so a restart costs one read of each window it
// touches.
func (o *orgAlertMemory) window(ctx context.Context, q *sql.Stmt, orgID string, k burstKey) (windowStat, []int64, error) {
	if w, ok := o.windows[k]; ok || (k.window > o.startTS && k.window >= o.evictedBelow) || o.recounted[k.window] {
		return w, o.waiting[k], nil
	}
	end := k.window + int64(alerting.BurstWindow.Milliseconds())
	rows, err := q.QueryContext(ctx, orgID, k.window, end, event.High, alerting.BurstThreshold)
	if err != nil {
		return windowStat{}, nil, fmt.Errorf("recount burst window: %w", err)
	}
	defer rows.Close()
	found := map[burstKey]windowStat{}
	waiting := map[burstKey][]int64{}
	for rows.Next() {
		var w windowStat
		var seqs sql.NullString
		key := burstKey{window: k.window}
		if err := rows.Scan(&key.asset, &key.typ, &w.n, &w.first, &w.last, &w.sev, &seqs); err != nil {
			return windowStat{}, nil, fmt.Errorf("recount burst window: %w", err)
		}
		found[key] = w
		if seqs.Valid {
			if waiting[key], err = parseSeqs(seqs.String); err != nil {
				return windowStat{}, nil, fmt.Errorf("recount burst window: %w", err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return windowStat{}, nil, fmt.Errorf("recount burst window: %w", err)
	}
	// What is committed: safe to keep even if this ingest fails.
	for key, w := range found {
		o.windows[key] = w
	}
	for key, seqs := range waiting {
		o.waiting[key] = seqs
	}
	if o.recounted == nil {
		o.recounted = map[int64]bool{}
	}
	o.recounted[k.window] = true
	return o.windows[k], o.waiting[k], nil
}

// parseSeqs reads group_concat's comma-separated seqs.
func parseSeqs(list string) ([]int64, error) {
	var seqs []int64
	for part := range strings.SplitSeq(list, ",") {
		seq, err := strconv.ParseInt(part, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("event seq %q: %w", part, err)
		}
		seqs = append(seqs, seq)
	}
	return seqs, nil
}

// recountWindow is window's query, on the time index: a window is ten
// minutes of the organization's events. Activity never alerts: its keys
// are never asked for. The seqs come only for a window below the
// threshold (?5).
var recountWindow = `SELECT asset, type, COUNT(*), MIN(ts), MAX(ts), MAX(severity),
		CASE WHEN COUNT(*) < ?5 THEN group_concat(seq) END FROM events INDEXED BY events_org_ts
	WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?1) AND ts >= ?2 AND ts < ?3 AND severity < ?4
		AND type <> '` + event.TypeActivity + `'
	GROUP BY asset, type`

// commit records what a committed ingest added: each window's new
// events, and their seqs (added, in the window's order) while the window
// stays below the threshold.
func (o *orgAlertMemory) commit(windows map[burstKey]windowStat, added map[burstKey][]int64, open map[string]string, linked []string,
	limit int) {
	for k, add := range windows {
		w := o.windows[k]
		w.add(add)
		o.windows[k] = w
		o.newestWindow = max(o.newestWindow, k.window)
		if alerting.BurstReached(w.n) {
			delete(o.waiting, k)
		} else {
			o.waiting[k] = append(o.waiting[k], added[k]...)
		}
	}
	for fp, id := range open {
		o.open[fp] = id
	}
	if len(o.windows) > limit {
		clear(o.windows)
		clear(o.waiting)
		clear(o.recounted)
		o.evictedBelow = o.newestWindow + 1
	}
	if len(o.open) > limit {
		clear(o.open)
	}
	for _, id := range linked {
		o.inIncident[id] = true
	}
	if len(o.inIncident) > limit {
		clear(o.inIncident)
	}
}

// claimGen counts an ingest's change to the organization's alerts and
// events (org_numbers.alert_gen), and drops what is held of it unless it
// was made at the count just before: another node's ingest or status
// change moved it meanwhile. Callers hold mu; the count read is stable
// under the cluster's write lock.
func (m *alertMemory) claimGen(ctx context.Context, tx *sql.Tx, orgID string) (int64, error) {
	var gen int64
	if err := tx.QueryRowContext(ctx, `UPDATE org_numbers SET alert_gen = alert_gen + 1 WHERE org_id = ? RETURNING alert_gen`,
		orgID).Scan(&gen); err != nil {
		return 0, fmt.Errorf("count the organization's alert changes: %w", err)
	}
	if o, ok := m.orgs[orgID]; ok && o.gen != gen-1 {
		delete(m.orgs, orgID)
	}
	return gen, nil
}

// changedAlerts counts a change to the organization's alerts other than
// an ingest's (a status change), for other nodes' memory (claimGen);
// this node's caller forgets what it changed itself.
func (s *Store) changedAlerts(ctx context.Context, tx *sql.Tx, orgID string) error {
	if !s.pg {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE org_numbers SET alert_gen = alert_gen + 1 WHERE org_id = ?`, orgID); err != nil {
		return fmt.Errorf("count the organization's alert changes: %w", err)
	}
	return nil
}

// forget drops what is known of a fingerprint's open alert, whose status
// is changing.
func (m *alertMemory) forget(orgID, fingerprint string) {
	if o, ok := m.orgs[orgID]; ok {
		delete(o.open, fingerprint)
	}
}
