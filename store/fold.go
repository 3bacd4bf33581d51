package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"garrison/event"
)

// The fold keeps the data derived from events behind ingest: the hourly
// rollup and the whole-history counts beside it (event_counts), the asset,
// indicator and source rollups, the threat indicators and their assets,
// the counters of alerts that events join, and the in-memory recent
// counts (recent.go). DNS telemetry's rollups are not the fold's: ingest
// writes them with the queries.
// Ingest only stores events and the alerts they raise; the fold reads the
// events stored since its cursor and adds them up in one transaction with
// the cursor, so a thousand events of one asset cost one upsert, and a
// crash loses nothing: the next fold starts from the committed cursor.
// Reads add the events past the cursor to what the fold wrote, in the same
// snapshot, so they are exact without waiting for it or writing.
type fold struct {
	mu        sync.Mutex // one fold at a time
	storedSeq atomic.Int64
	foldedSeq atomic.Int64
	wake      chan struct{}
	// unrecovered: Open could not fold what a crash left. Events stored
	// by older versions may still owe their alerts a count, which only the
	// fold gives; ingest folds them before it counts anything itself.
	unrecovered atomic.Bool
}

const (
	// foldInterval is how long stored events may wait for a reader to fold
	// them: long enough that a busy sensor's batches fold together.
	foldInterval = time.Second
	// foldBacklog wakes the fold early, so a reader never pays for more.
	foldBacklog = 50_000
	// foldChunk bounds one fold transaction, so ingest never waits long.
	foldChunk = 20_000
)

// pendingEvents is the common table of the events of organization ?1 that
// the fold has not reached: reads add them to the rollups in the same
// snapshot. The sequence walk (NOT INDEXED) touches only the backlog,
// which the fold keeps to about a second of ingest.
const pendingEvents = `pending AS (SELECT * FROM events NOT INDEXED
	WHERE seq > (SELECT events_seq FROM fold_state) AND org = (SELECT num FROM org_numbers WHERE org_id = ?1))`

// stored notes that events up to seq are committed.
func (f *fold) stored(seq int64) {
	raise(&f.storedSeq, seq)
	if seq-f.foldedSeq.Load() >= foldBacklog {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
}

// initFold reads where the events and the fold stand.
func (s *Store) initFold(ctx context.Context) error {
	var stored, folded int64
	err := s.writer.QueryRowContext(ctx, `SELECT COALESCE((SELECT MAX(seq) FROM events), 0), events_seq FROM fold_state`).
		Scan(&stored, &folded)
	if err != nil {
		return fmt.Errorf("read fold state: %w", err)
	}
	s.fold.storedSeq.Store(stored)
	s.fold.foldedSeq.Store(folded)
	s.fold.wake = make(chan struct{}, 1)
	return nil
}

// raise sets v to seq unless it holds more already.
func raise(v *atomic.Int64, seq int64) {
	for {
		was := v.Load()
		if was >= seq || v.CompareAndSwap(was, seq) {
			return
		}
	}
}

// readFoldState learns where the events and the fold stand in the
// database: on PostgreSQL, other nodes store and fold too.
func (s *Store) readFoldState(ctx context.Context) error {
	var stored, folded int64
	if err := s.reads().QueryRowContext(ctx, `SELECT events_hw, events_seq FROM fold_state`).Scan(&stored, &folded); err != nil {
		return fmt.Errorf("read fold state: %w", err)
	}
	raise(&s.fold.storedSeq, stored)
	raise(&s.fold.foldedSeq, folded)
	return nil
}

// foldedPast says whether the fold has moved more than foldBacklog
// events past cursor.
func (s *Store) foldedPast(ctx context.Context, cursor int64) (bool, error) {
	if err := s.readFoldState(ctx); err != nil {
		return false, err
	}
	return s.fold.foldedSeq.Load()-cursor > foldBacklog, nil
}

// Fold folds every stored event into the rollups now, instead of at
// Maintain's next round: for a caller that is about to copy or measure the
// database. Reads never need it.
func (s *Store) Fold(ctx context.Context) error { return s.settle(ctx) }

// settle folds every stored event into the derived data. It costs one
// atomic load when nothing is waiting.
func (s *Store) settle(ctx context.Context) error {
	if s.pg {
		// Every node stores events; the one that folds learns of the
		// others' from the database.
		if err := s.readFoldState(ctx); err != nil {
			return err
		}
	}
	if s.fold.foldedSeq.Load() >= s.fold.storedSeq.Load() {
		s.fold.unrecovered.Store(false)
		return nil
	}
	s.fold.mu.Lock()
	defer s.fold.mu.Unlock()
	for s.fold.foldedSeq.Load() < s.fold.storedSeq.Load() {
		var upto, was int64
		var sums rollupSums
		now := s.now()
		err := s.write(ctx, func(tx *sql.Tx) error {
			var err error
			was, upto, sums, err = foldEvents(ctx, tx, ms(now))
			return err
		})
		if err != nil {
			return fmt.Errorf("fold events: %w", err)
		}
		if upto <= s.fold.foldedSeq.Load() {
			// Nothing past the cursor although ingest said so: never spin
			// holding the writer.
			return fmt.Errorf("fold events: stuck at %d, stored %d", upto, s.fold.storedSeq.Load())
		}
		raise(&s.fold.foldedSeq, upto)
		s.recent.folded(was, upto, sums.hours, now)
	}
	s.fold.unrecovered.Store(false)
	return nil
}

// foldFailureLogEvery bounds how often a failing fold is logged.
const foldFailureLogEvery = time.Minute

func (s *Store) foldLoop(ctx context.Context, log *slog.Logger) {
	t := time.NewTicker(s.foldEvery)
	defer t.Stop()
	var lastLogged time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.fold.wake:
		}
		// An error here is met again by the next round; reads do not wait
		// for the fold, so they go on answering meanwhile. On the disk's
		// reserve the fold waits: its rollups would eat what sign-ins need.
		if s.OnReserve() {
			continue
		}
		if err := s.settle(ctx); err != nil && ctx.Err() == nil && time.Since(lastLogged) >= foldFailureLogEvery {
			log.Warn("folding events into the rollups failed; will retry", "err", err)
			lastLogged = time.Now()
		}
	}
}

// foldEvents adds up to foldChunk events after the cursor into the derived
// data and moves the cursor past them, returning where it was, where it is
// and what it added.
func foldEvents(ctx context.Context, tx *sql.Tx, now int64) (was, cursor int64, sums rollupSums, err error) {
	if err := tx.QueryRowContext(ctx, `SELECT events_seq FROM fold_state`).Scan(&cursor); err != nil {
		return 0, 0, sums, fmt.Errorf("fold cursor: %w", err)
	}
	was = cursor
	rows, err := tx.QueryContext(ctx, `SELECT e.seq, n.org_id, e.ts, e.type, e.severity, e.source, e.asset, e.indicator,
		COALESCE(e.alert_id, ''), COALESCE(a.counted_through, 0)
		FROM events e CROSS JOIN org_numbers n LEFT JOIN alerts a ON a.id = e.alert_id
		WHERE n.num = e.org AND e.seq > ? ORDER BY e.seq LIMIT ?`, cursor, foldChunk)
	if err != nil {
		return 0, 0, sums, fmt.Errorf("read events to fold: %w", err)
	}
	n := 0
	for rows.Next() {
		var e foldedEvent
		var counted int64
		if err := rows.Scan(&e.seq, &e.org, &e.ts, &e.typ, &e.sev, &e.source, &e.asset, &e.indicator, &e.alert, &counted); err != nil {
			rows.Close()
			return 0, 0, sums, fmt.Errorf("read events to fold: %w", err)
		}
		if e.seq <= counted {
			e.alert = "" // the alert counted it when it was raised
		}
		sums.add(e)
		cursor = e.seq
		n++
	}
	if err := rows.Close(); err != nil {
		return 0, 0, sums, fmt.Errorf("read events to fold: %w", err)
	}
	if n < foldChunk {
		// Every event given a number is here, inside the writer: the
		// cursor passes the numbers of events deleted before the fold
		// reached them (an organization's newest, say), or the fold would
		// wait for them for good.
		var hw int64
		if err := tx.QueryRowContext(ctx, `SELECT events_hw FROM fold_state`).Scan(&hw); err != nil {
			return 0, 0, sums, fmt.Errorf("fold cursor: %w", err)
		}
		cursor = max(cursor, hw)
	}
	if err := sums.write(ctx, tx, now); err != nil {
		return 0, 0, sums, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE fold_state SET events_seq = ?`, cursor); err != nil {
		return 0, 0, sums, fmt.Errorf("move fold cursor: %w", err)
	}
	return was, cursor, sums, nil
}

type foldedEvent struct {
	seq, ts                                   int64
	org, typ, source, asset, indicator, alert string
	sev                                       event.Severity
}

// span is the count, time range and worst severity of some events, and
// the type of the first.
type span struct {
	windowStat
	typ string
}

func (sp *span) add(e foldedEvent) {
	if sp.n == 0 {
		sp.typ = e.typ
	}
	sp.windowStat.add(windowStat{n: 1, first: e.ts, last: e.ts, sev: e.sev})
}

type (
	hourKey struct {
		org  string
		hour int64
		typ  string
		sev  event.Severity
	}
	orgKey   struct{ org, name string }
	assetDay struct {
		org   string
		day   int64
		asset string
	}
	pairKey      struct{ org, indicator, asset string }
	indicatorDay struct {
		org       string
		day       int64
		indicator string
	}
)

// rollupSums is what a run of events adds to each derived row.
type rollupSums struct {
	hours      map[hourKey]int64
	assets     map[assetDay]*span
	indicators map[orgKey]*span
	pairs      map[pairKey]int64 // first seen
	indDays    map[indicatorDay]int64
	sources    map[orgKey]*span
	alerts     map[string]*span
}

func widen[K comparable](m map[K]*span, k K, e foldedEvent) {
	sp, ok := m[k]
	if !ok {
		sp = &span{}
		m[k] = sp
	}
	sp.add(e)
}

func (r *rollupSums) add(e foldedEvent) {
	if r.hours == nil {
		*r = rollupSums{hours: map[hourKey]int64{}, assets: map[assetDay]*span{}, indicators: map[orgKey]*span{},
			pairs: map[pairKey]int64{}, indDays: map[indicatorDay]int64{}, sources: map[orgKey]*span{}, alerts: map[string]*span{}}
	}
	r.hours[hourKey{e.org, floorMS(e.ts, hourMS), e.typ, e.sev}]++
	widen(r.assets, assetDay{e.org, floorMS(e.ts, dayMS), e.asset}, e)
	if e.indicator != "" {
		widen(r.indicators, orgKey{e.org, e.indicator}, e)
		r.indDays[indicatorDay{e.org, floorMS(e.ts, dayMS), e.indicator}]++
		if first, ok := r.pairs[pairKey{e.org, e.indicator, e.asset}]; !ok || e.ts < first {
			r.pairs[pairKey{e.org, e.indicator, e.asset}] = e.ts
		}
	}
	widen(r.sources, orgKey{e.org, e.source}, e)
	if e.alert != "" {
		widen(r.alerts, e.alert, e)
	}
}

// write runs one upsert per derived row the events touch.
func (r *rollupSums) write(ctx context.Context, tx *sql.Tx, now int64) error {
	var hourRows, countRows, assetRows, indicatorRows, sourceRows, alertRows [][]any
	type countKey struct {
		org, typ string
		sev      event.Severity
	}
	counts := map[countKey]int64{}
	for k, n := range r.hours {
		hourRows = append(hourRows, []any{k.org, k.hour, k.typ, k.sev, n})
		counts[countKey{k.org, k.typ, k.sev}] += n
	}
	for k, n := range counts {
		countRows = append(countRows, []any{k.org, k.typ, k.sev, n})
	}
	for k, sp := range r.assets {
		assetRows = append(assetRows, []any{k.org, k.day, k.asset, sp.n, sp.sev})
	}
	for k, n := range r.indDays {
		indicatorRows = append(indicatorRows, []any{k.org, k.day, k.indicator, n})
	}
	for k, sp := range r.sources {
		sourceRows = append(sourceRows, []any{k.org, k.name, sp.n, sp.first, sp.last})
	}
	for id, sp := range r.alerts {
		alertRows = append(alertRows, []any{sp.n, sp.sev, sp.first, sp.last, now, id})
	}
	err := execAll(ctx, tx,
		batch{"event rollup", `INSERT INTO event_rollup (org_id, hour, type, severity, n) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (org_id, hour, type, severity) DO UPDATE SET n = event_rollup.n + excluded.n`, hourRows},
		batch{"event counts", `INSERT INTO event_counts (org_id, type, severity, n) VALUES (?, ?, ?, ?)
			ON CONFLICT (org_id, type, severity) DO UPDATE SET n = event_counts.n + excluded.n`, countRows},
		batch{"asset rollup", `INSERT INTO asset_rollup (org_id, day, asset, n, max_severity) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (org_id, day, asset) DO UPDATE SET n = asset_rollup.n + excluded.n, max_severity = MAX(asset_rollup.max_severity, excluded.max_severity)`, assetRows},
		batch{"indicator rollup", `INSERT INTO indicator_rollup (org_id, day, indicator, n) VALUES (?, ?, ?, ?)
			ON CONFLICT (org_id, day, indicator) DO UPDATE SET n = indicator_rollup.n + excluded.n`, indicatorRows},
		batch{"event sources", sourceUpsert, sourceRows},
		batch{"alert counts", `UPDATE alerts SET event_count = event_count + ?, severity = MAX(severity, ?),
			first_seen = MIN(first_seen, ?), last_seen = MAX(last_seen, ?), updated_at = ? WHERE id = ?`, alertRows},
	)
	if err != nil {
		return err
	}
	return r.writeIndicators(ctx, tx)
}

// writeIndicators adds to each indicator's counters and records its first
// maxThreatAssets assets, in the order they reported it. A full indicator
// costs its one upsert.
func (r *rollupSums) writeIndicators(ctx context.Context, tx *sql.Tx) error {
	type sighting struct {
		asset string
		first int64
	}
	assets := map[orgKey][]sighting{}
	for k, first := range r.pairs {
		ik := orgKey{k.org, k.indicator}
		assets[ik] = append(assets[ik], sighting{k.asset, first})
	}
	upsert, err := tx.PrepareContext(ctx, `INSERT INTO threat_indicators (org_id, indicator, type, max_severity, n, first_seen, last_seen)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (org_id, indicator) DO UPDATE SET n = threat_indicators.n + excluded.n,
		max_severity = MAX(threat_indicators.max_severity, excluded.max_severity), first_seen = MIN(threat_indicators.first_seen, excluded.first_seen),
		last_seen = MAX(threat_indicators.last_seen, excluded.last_seen) RETURNING assets`)
	if err != nil {
		return fmt.Errorf("threat indicators: prepare: %w", err)
	}
	defer upsert.Close()
	addAsset, err := tx.PrepareContext(ctx, `INSERT INTO threat_assets (org_id, indicator, asset) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`)
	if err != nil {
		return fmt.Errorf("threat assets: prepare: %w", err)
	}
	defer addAsset.Close()
	setAssets, err := tx.PrepareContext(ctx, `UPDATE threat_indicators SET assets = ? WHERE org_id = ? AND indicator = ?`)
	if err != nil {
		return fmt.Errorf("threat assets: prepare: %w", err)
	}
	defer setAssets.Close()
	for k, sp := range r.indicators {
		var held int
		if err := upsert.QueryRowContext(ctx, k.org, k.name, sp.typ, sp.sev, sp.n, sp.first, sp.last).Scan(&held); err != nil {
			return fmt.Errorf("threat indicators: %w", err)
		}
		if held >= maxThreatAssets {
			continue
		}
		seen := assets[k]
		slices.SortFunc(seen, func(a, b sighting) int {
			return cmp.Or(cmp.Compare(a.first, b.first), strings.Compare(a.asset, b.asset))
		})
		was := held
		for _, s := range seen {
			if held >= maxThreatAssets {
				break
			}
			res, err := addAsset.ExecContext(ctx, k.org, k.name, s.asset)
			if err != nil {
				return fmt.Errorf("threat assets: %w", err)
			}
			added, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("threat assets: %w", err)
			}
			held += int(added)
		}
		if held != was {
			if _, err := setAssets.ExecContext(ctx, held, k.org, k.name); err != nil {
				return fmt.Errorf("threat assets: %w", err)
			}
		}
	}
	return nil
}
