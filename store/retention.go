package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"garrison/event"
)

// pruneBatch is how many rows one pruning transaction deletes: small, so
// the writer is held for a few milliseconds and ingest barely waits.
const pruneBatch = 200

// PruneEvents deletes up to pruneBatch folded events older than cutoff, of
// one organization after another, taking each out of every counter the
// fold put it in (totals, hourly, asset, indicator and source counts) in the
// same transaction, so totals stay exact. Alerts keep their counts.
// An organization with its own retention (SetOrgRetention) is pruned by
// it; the others by keep (0: for good).
func (s *Store) PruneEvents(ctx context.Context, now time.Time, keep time.Duration) (int, error) {
	return s.pruneFirstOrg(ctx, "events WHERE org = (SELECT num FROM org_numbers WHERE org_id = o.id)", now, keep, s.pruneOrgEvents)
}

// pruneFirstOrg runs prune for the organizations holding rows older than
// cutoff (orgRows: a table with an index on its organization and ts, and
// the condition of organization o.id's rows), until one deletes
// something. The organizations are found by a read, so a pass with
// nothing old takes no write lock.
func (s *Store) pruneFirstOrg(ctx context.Context, orgRows string, now time.Time, keep time.Duration,
	prune func(ctx context.Context, org string, cutoff time.Time) (int, error)) (int, error) {
	type orgKeep struct {
		id   string
		keep int64
	}
	orgs, err := queryAll(ctx, s.reads(), "orgs to prune", `SELECT id, keep FROM
		(SELECT id, COALESCE(retention_ms, ?1) AS keep FROM orgs) o
		WHERE keep > 0 AND EXISTS (SELECT 1 FROM `+orgRows+` AND ts < ?2 - o.keep) ORDER BY id`,
		[]any{keep.Milliseconds(), ms(now)}, func(rows *sql.Rows) (orgKeep, error) {
			var o orgKeep
			return o, rows.Scan(&o.id, &o.keep)
		})
	if err != nil {
		return 0, err
	}
	for _, org := range orgs {
		n, err := prune(ctx, org.id, fromMS(ms(now)-org.keep))
		if err != nil || n > 0 {
			return n, err
		}
	}
	return 0, nil
}

// OrgRetention is how long the organization's events are kept: its own
// retention when it has one (set; 0 is for good), else def.
func (s *Store) OrgRetention(ctx context.Context, orgID string, def time.Duration) (keep time.Duration, set bool, err error) {
	var own sql.NullInt64
	err = s.reads().QueryRowContext(ctx, `SELECT retention_ms FROM orgs WHERE id = ?`, orgID).Scan(&own)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, ErrNotFound
	}
	if err != nil {
		return 0, false, fmt.Errorf("organization's retention: %w", err)
	}
	if !own.Valid {
		return def, false, nil
	}
	return time.Duration(own.Int64) * time.Millisecond, true, nil
}

// SetOrgRetention gives the organization its own event retention (set
// false: the appliance's again; keep 0: for good).
func (s *Store) SetOrgRetention(ctx context.Context, orgID string, keep time.Duration, set bool) error {
	var v any
	if set {
		v = keep.Milliseconds()
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE orgs SET retention_ms = ? WHERE id = ?`, v, orgID)
		return expectOne(r, err, "set retention")
	})
}

type prunedEvent struct {
	seq, ts, bytes, org           int64
	typ, source, asset, indicator string
	message, rule                 string
	sev                           event.Severity
}

func (s *Store) pruneOrgEvents(ctx context.Context, org string, cutoff time.Time) (int, error) {
	deleted := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		// Folded events only: what the fold has not counted is not in the
		// counters to take it out of.
		evs, err := queryAll(ctx, tx, "events to prune", `SELECT seq, ts, type, severity, source, asset, indicator, `+eventBytesSQL+`,
			org, message, COALESCE(rule, '') FROM events
			WHERE org = `+orgNum+` AND ts < ? AND seq <= (SELECT events_seq FROM fold_state) LIMIT ?`, []any{org, ms(cutoff), pruneBatch},
			func(rows *sql.Rows) (prunedEvent, error) {
				var e prunedEvent
				return e, rows.Scan(&e.seq, &e.ts, &e.typ, &e.sev, &e.source, &e.asset, &e.indicator, &e.bytes, &e.org, &e.message, &e.rule)
			})
		if err != nil || len(evs) == 0 {
			return err
		}
		// k is a name (type, asset, indicator), a time (hour or day) and a
		// severity, as each counter keys its rows.
		type k struct {
			a    string
			t, c int64
		}
		counts, hours, assets, indicators := map[k]int64{}, map[k]int64{}, map[k]int64{}, map[k]int64{}
		sources, seqs := map[string]int64{}, make([]any, 0, len(evs))
		var freed int64
		for _, e := range evs {
			seqs = append(seqs, e.seq)
			freed += e.bytes
			counts[k{e.typ, 0, int64(e.sev)}]++
			hours[k{e.typ, floorMS(e.ts, hourMS), int64(e.sev)}]++
			assets[k{e.asset, floorMS(e.ts, dayMS), 0}]++
			if e.indicator != "" {
				indicators[k{e.indicator, floorMS(e.ts, dayMS), 0}]++
			}
			sources[e.source]++
		}
		words := make([]eventWords, len(evs))
		for i, e := range evs {
			words[i] = eventWords{seq: e.seq, org: e.org, message: e.message, rule: e.rule, indicator: e.indicator}
		}
		if err := unindexText(ctx, tx, words, s.pg); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM events WHERE seq IN (`+placeholders(len(seqs))+`)`, seqs...); err != nil {
			return fmt.Errorf("prune events: %w", err)
		}
		if err := s.freeUsage(ctx, tx, org, freed); err != nil {
			return err
		}
		// Each statement is prepared once per transaction: a batch runs
		// hundreds of them.
		prepared := map[string]*sql.Stmt{}
		defer func() {
			for _, st := range prepared {
				st.Close()
			}
		}()
		exec := func(what, query string, args ...any) error {
			st, ok := prepared[query]
			if !ok {
				var err error
				if st, err = tx.PrepareContext(ctx, query); err != nil {
					return fmt.Errorf("prune %s: %w", what, err)
				}
				prepared[query] = st
			}
			if _, err := st.ExecContext(ctx, args...); err != nil {
				return fmt.Errorf("prune %s: %w", what, err)
			}
			return nil
		}
		// Each counter row touched is decremented, and deleted once empty
		// (keyed deletes: a scan of the counter tables would cost more
		// than the batch).
		dec := func(what, table, keyCols string, n int64, key ...any) error {
			where := "org_id = ? AND " + keyCols
			args := append([]any{org}, key...)
			if err := exec(what, `UPDATE `+table+` SET n = n - ? WHERE `+where, append([]any{n}, args...)...); err != nil {
				return err
			}
			return exec(what, `DELETE FROM `+table+` WHERE `+where+` AND n <= 0`, args...)
		}
		for k, n := range counts {
			if err := dec("event counts", "event_counts", "type = ? AND severity = ?", n, k.a, k.c); err != nil {
				return err
			}
		}
		for k, n := range hours {
			if err := dec("event rollup", "event_rollup", "hour = ? AND type = ? AND severity = ?", n, k.t, k.a, k.c); err != nil {
				return err
			}
		}
		for k, n := range assets {
			if err := dec("asset rollup", "asset_rollup", "day = ? AND asset = ?", n, k.t, k.a); err != nil {
				return err
			}
		}
		perIndicator := map[string]int64{}
		for k, n := range indicators {
			perIndicator[k.a] += n
			if err := dec("indicator rollup", "indicator_rollup", "day = ? AND indicator = ?", n, k.t, k.a); err != nil {
				return err
			}
		}
		for ind, n := range perIndicator {
			if err := exec("threat indicators", `UPDATE threat_indicators SET n = n - ? WHERE org_id = ? AND indicator = ?`, n, org, ind); err != nil {
				return err
			}
			if err := exec("threat assets", `DELETE FROM threat_assets WHERE org_id = ?1 AND indicator = ?2 AND
				EXISTS (SELECT 1 FROM threat_indicators WHERE org_id = ?1 AND indicator = ?2 AND n <= 0)`, org, ind); err != nil {
				return err
			}
			if err := exec("threat indicators", `DELETE FROM threat_indicators WHERE org_id = ? AND indicator = ? AND n <= 0`, org, ind); err != nil {
				return err
			}
		}
		for src, n := range sources {
			if err := exec("event sources", `UPDATE event_sources SET n = MAX(0, n - ?) WHERE org_id = ? AND source = ?`, n, org, src); err != nil {
				return err
			}
		}
		deleted = len(evs)
		return nil
	})
	// The hour counts held in memory span recentSpan: only a cutoff inside
	// them (a retention under eight days) changes what they count.
	if err == nil && deleted > 0 && cutoff.After(s.now().Add(-recentSpan-time.Hour)) {
		s.forgetRecent(org)
	}
	return deleted, err
}

// forgetRecent drops an organization's in-memory hour counts, to be
// loaded again from the rollup (pruning changed it).
func (s *Store) forgetRecent(org string) {
	s.recent.mu.Lock()
	delete(s.recent.orgs, org)
	s.recent.mu.Unlock()
}

// PruneDNS deletes up to pruneBatch DNS queries older than cutoff, taking
// them out of the hourly and blocked-domain counts in the same transaction.
func (s *Store) PruneDNS(ctx context.Context, now time.Time, keep time.Duration) (int, error) {
	return s.pruneFirstOrg(ctx, "dns_queries WHERE org_id = o.id", now, keep, s.pruneOrgDNS)
}

func (s *Store) pruneOrgDNS(ctx context.Context, org string, cutoff time.Time) (int, error) {
	deleted := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		type q struct {
			id, ts, bytes    int64
			domain, category string
		}
		rows, err := queryAll(ctx, tx, "dns to prune", `SELECT id, ts, domain, category, `+dnsBytesSQL+` FROM dns_queries
			WHERE org_id = ? AND ts < ? LIMIT ?`,
			[]any{org, ms(cutoff), pruneBatch}, func(r *sql.Rows) (q, error) {
				var x q
				return x, r.Scan(&x.id, &x.ts, &x.domain, &x.category, &x.bytes)
			})
		if err != nil || len(rows) == 0 {
			return err
		}
		ids := make([]any, 0, len(rows))
		type hourKey struct {
			hour     int64
			category string
		}
		hours, domains := map[hourKey]int64{}, map[string]int64{}
		var freed int64
		for _, r := range rows {
			ids = append(ids, r.id)
			freed += r.bytes
			hours[hourKey{floorMS(r.ts, hourMS), r.category}]++
			if r.category != "" {
				domains[r.domain]++
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM dns_queries WHERE id IN (`+placeholders(len(ids))+`)`, ids...); err != nil {
			return fmt.Errorf("prune dns: %w", err)
		}
		if err := s.freeUsage(ctx, tx, org, freed); err != nil {
			return err
		}
		for k, n := range hours {
			if _, err := tx.ExecContext(ctx, `UPDATE dns_rollup SET n = n - ? WHERE org_id = ? AND hour = ? AND category = ?`, n, org, k.hour, k.category); err != nil {
				return fmt.Errorf("prune dns rollup: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM dns_rollup WHERE org_id = ? AND hour = ? AND category = ? AND n <= 0`, org, k.hour, k.category); err != nil {
				return fmt.Errorf("prune dns rollup: %w", err)
			}
		}
		for d, n := range domains {
			if _, err := tx.ExecContext(ctx, `UPDATE dns_blocked_domains SET n = n - ? WHERE org_id = ? AND domain = ?`, n, org, d); err != nil {
				return fmt.Errorf("prune blocked domains: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM dns_blocked_domains WHERE org_id = ? AND domain = ? AND n <= 0`, org, d); err != nil {
				return fmt.Errorf("prune blocked domains: %w", err)
			}
		}
		deleted = len(rows)
		return nil
	})
	return deleted, err
}

// PruneAudit deletes up to pruneBatch audit entries older than cutoff.
func (s *Store) PruneAudit(ctx context.Context, cutoff time.Time) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY id LIMIT ?)`, ms(cutoff), pruneBatch)
		if err != nil {
			return fmt.Errorf("prune audit log: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}

// Retention is how long data is kept (0: for good).
type Retention struct {
	Events time.Duration // events and DNS telemetry, with their counts
	Audit  time.Duration // the audit log
}

// retainEvery is how often Retain looks for what has aged out.
const retainEvery = time.Minute

// pruneGap is the pause between two pruning transactions, so writers
// waiting for the lock get it in between.
const pruneGap = 5 * time.Millisecond

// Retain prunes what is older than the retention until ctx ends: each pass
// deletes in batches of pruneBatch rows, one short transaction each.
func (s *Store) Retain(ctx context.Context, r Retention, log *slog.Logger) {
	t := time.NewTicker(retainEvery)
	defer t.Stop()
	for {
		now := s.now()
		audit := func(ctx context.Context, now time.Time, keep time.Duration) (int, error) {
			if keep <= 0 {
				return 0, nil
			}
			return s.PruneAudit(ctx, now.Add(-keep))
		}
		for _, p := range []struct {
			what  string
			keep  time.Duration
			prune func(context.Context, time.Time, time.Duration) (int, error)
		}{{"events", r.Events, s.PruneEvents}, {"dns", r.Events, s.PruneDNS}, {"audit log", r.Audit, audit}} {
			total := 0
			for ctx.Err() == nil {
				n, err := p.prune(ctx, now, p.keep)
				if err != nil {
					if ctx.Err() == nil {
						log.Error("retention", "what", p.what, "err", err)
					}
					break
				}
				if total += n; n == 0 {
					break
				}
				select {
				case <-ctx.Done():
				case <-time.After(pruneGap):
				}
			}
			if total > 0 {
				log.Info("retention pruned", "what", p.what, "rows", total)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
