package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"garrison/event"
)

// EventFilter selects events. From and To are inclusive; nil is open.
type EventFilter struct {
	Severities     []event.Severity
	Types          []string
	From, To       *time.Time
	SortBySeverity bool
	Ascending      bool
	Page           Page
	Search         event.Search
}

func (k eventIDs) scan(rows *sql.Rows, orgID string) ([]event.Event, error) {
	return k.scanTotal(rows, orgID, nil)
}

// scanTotal scans events, and, when total is not nil, the column after
// them that carries the page's total (historyTotal). The integer columns
// are scanned into an any, database/sql's fast path: into an int64 it
// takes reflection, and into an int type of another size (Severity, the
// total) a round trip through a string, for every row of the page.
func (k eventIDs) scanTotal(rows *sql.Rows, orgID string, total *int) ([]event.Event, error) {
	if total == nil {
		events, _, err := k.scanExtra(rows, orgID, nil)
		return events, err
	}
	first := true
	events, _, err := k.scanExtra(rows, orgID, func(n int64) {
		if first {
			*total, first = int(n), false
		}
	})
	return events, err
}

// scanExtra scans events, with their seqs, and when extra is not nil an
// integer column after them, handed to extra row by row.
func (k eventIDs) scanExtra(rows *sql.Rows, orgID string, extra func(int64)) ([]event.Event, []int64, error) {
	defer rows.Close()
	// A page's worth up front: an event is large, and growing the slice
	// from nothing copied them over and over.
	out := make([]event.Event, 0, 64)
	seqs := make([]int64, 0, 64)
	// The integers are scanned into an any, database/sql's fast path: into
	// an int64 it takes reflection.
	var seqValue, n any
	var packed string
	dest := []any{&seqValue, &packed, &n}[:eventColumnCount]
	if extra != nil {
		dest = dest[:eventColumnCount+1]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, err
		}
		seq, ok := seqValue.(int64)
		if !ok {
			return nil, nil, fmt.Errorf("event: seq %T, not an integer", seqValue)
		}
		out = append(out, event.Event{OrgID: orgID})
		e := &out[len(out)-1]
		legacyID, err := unpackEvent(packed, e)
		if err != nil {
			return nil, nil, fmt.Errorf("event %d: %w", seq, err)
		}
		e.ID = legacyID
		if e.ID == "" {
			e.ID = k.of(seq)
		}
		if extra != nil {
			t, ok := n.(int64)
			if !ok {
				return nil, nil, fmt.Errorf("event's extra column: %T, not an integer", n)
			}
			extra(t)
		}
		seqs = append(seqs, seq)
	}
	return out, seqs, rows.Err()
}

// orgNum is the number the events table knows an organization by
// (org_numbers), from the organization's id as the statement's argument.
const orgNum = `(SELECT num FROM org_numbers WHERE org_id = ?)`

// bounds is a half-open millisecond range.
type bounds struct{ lo, hi int64 }

// Open ends of a range.
const (
	openLow  = -1 << 62
	openHigh = 1 << 62
)

func (f EventFilter) bounds() bounds {
	b := bounds{lo: openLow, hi: openHigh}
	if f.From != nil {
		b.lo = ms(*f.From)
	}
	if f.To != nil {
		b.hi = ms(*f.To) + 1
	}
	return b
}

// where builds the filter clause of the page and the exact counts. Open
// ends add no condition: a ts range would steer SQLite to the time index even
// when sorting by severity.
func (f EventFilter) where(orgID string, b bounds) (string, []any) {
	clause, args := []string{"org = " + orgNum}, []any{orgID}
	if b.lo > openLow {
		clause, args = append(clause, "ts >= ?"), append(args, b.lo)
	}
	if b.hi < openHigh {
		clause, args = append(clause, "ts < ?"), append(args, b.hi)
	}
	clause, args = searchClause(f.Search, orgID, "", clause, args)
	return f.clause(clause, args)
}

// clause adds the severity and type filters, which the events table and
// the hourly rollup share.
func (f EventFilter) clause(clause []string, args []any) (string, []any) {
	if len(f.Severities) > 0 {
		clause = append(clause, "severity IN ("+placeholders(len(f.Severities))+")")
		for _, s := range f.Severities {
			args = append(args, s)
		}
	}
	if len(f.Types) > 0 {
		clause = append(clause, "type IN ("+placeholders(len(f.Types))+")")
		for _, t := range f.Types {
			args = append(args, t)
		}
	}
	return strings.Join(clause, " AND "), args
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// Events returns one page of an organization's events and the total matching
// the filter. The total reads per-type-and-severity counts, or, for a time
// range, whole hours from the hourly rollup and exact counts of the partial
// hours at either edge, so it never scans the range.
func (s *Store) Events(ctx context.Context, orgID string, f EventFilter) ([]event.Event, int, error) {
	if f.Search.Any() {
		return s.searchEvents(ctx, orgID, f)
	}
	b := f.bounds()
	var events []event.Event
	var total int
	deep := f.Page.Offset >= deepPage && !f.SortBySeverity
	if b.lo == openLow && b.hi == openHigh && !deep {
		// All of history: the total is one more column of the page's own
		// statement, so one statement answers in one snapshot.
		query, args := f.page(s.eventColumns(), orgID, b, historyTotal)
		rows, err := s.reads().QueryContext(ctx, query, args...)
		if err != nil {
			return nil, 0, fmt.Errorf("list events: %w", err)
		}
		if events, err = s.eventIDs.scanTotal(rows, orgID, &total); err != nil {
			return nil, 0, fmt.Errorf("list events: %w", err)
		}
		if len(events) > 0 {
			return events, total, nil
		}
		// An empty page carries no total: read both below.
	}
	// One read transaction: the page, its total and a deep page's seek see
	// the same snapshot.
	err := s.read(ctx, func(tx querier) error {
		pf, pb := f, b
		if deep {
			var err error
			if pb, pf.Page.Offset, err = seek(ctx, tx, orgID, f, b); err != nil {
				return err
			}
		}
		query, args := pf.page(s.eventColumns(), orgID, pb, nil)
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("list events: %w", err)
		}
		if events, err = s.eventIDs.scan(rows, orgID); err != nil {
			return fmt.Errorf("list events: %w", err)
		}
		total, err = countEvents(ctx, tx, orgID, f, b)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return events, total, nil
}

// page is the query of one page. Ties on time go by arrival (seq), which
// every index ends with, so no page needs a sort. A page of several
// severities, or sorted by severity, reads each severity's own index range
// for one page's worth and merges them, instead of walking the
// organization's events past every other severity.
func (f EventFilter) page(eventColumns, orgID string, b bounds, extra func(EventFilter, string) (string, []any)) (string, []any) {
	columns, args := eventColumns, []any(nil)
	if extra != nil {
		column, a := extra(f, orgID)
		columns, args = columns+", "+column, a
	}
	dir := "DESC"
	if f.Ascending {
		dir = "ASC"
	}
	order := "ts " + dir + ", seq " + dir
	severities := f.Severities
	if f.SortBySeverity && len(severities) == 0 {
		severities = []event.Severity{event.Info, event.Low, event.Medium, event.High, event.Critical}
	}
	// The index is named: the one whose order is the page's. Left to
	// statistics that a new index lacked, SQLite sorted ten million events
	// of the severity index for a page of the newest 50.
	if len(severities) < 2 {
		index := "events_org_ts"
		if len(severities) == 1 {
			index = "events_org_severity_ts"
		}
		where, a := f.where(orgID, b)
		return `SELECT ` + columns + ` FROM events INDEXED BY ` + index + ` WHERE ` + where + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`,
			append(append(args, a...), f.Page.Limit, f.Page.Offset)
	}
	var parts []string
	for _, sev := range severities {
		one := f
		one.Severities = []event.Severity{sev}
		where, a := one.where(orgID, b)
		parts = append(parts, `SELECT * FROM (SELECT seq AS p_seq, ts AS p_ts, severity AS p_sev FROM events INDEXED BY events_org_severity_ts WHERE `+where+
			` ORDER BY `+order+` LIMIT ?) AS sub1`)
		args = append(append(args, a...), f.Page.Limit+f.Page.Offset)
	}
	merged := "p_ts " + dir + ", p_seq " + dir
	if f.SortBySeverity {
		merged = "p_sev " + dir + ", " + merged
	}
	return `SELECT ` + columns + ` FROM (SELECT * FROM (` + strings.Join(parts, " UNION ALL ") + `) AS parts
		ORDER BY ` + merged + ` LIMIT ? OFFSET ?) AS p JOIN events ON events.seq = p.p_seq
		ORDER BY ` + strings.ReplaceAll(merged, "p_", "p.p_"), append(args, f.Page.Limit, f.Page.Offset)
}

// historyTotal is the expression of the number of the organization's events
// that pass the filter's severities and types, in all of history: the
// per-type-and-severity counts, plus the events not folded into them yet.
func historyTotal(f EventFilter, orgID string) (string, []any) {
	counts, args := f.clause([]string{"org_id = ?"}, []any{orgID})
	events, eventArgs := f.clause([]string{"org = " + orgNum}, []any{orgID})
	return `CAST((SELECT COALESCE(SUM(n), 0) FROM event_counts WHERE ` + counts + `) +
		(SELECT COUNT(*) FROM events NOT INDEXED WHERE seq > (SELECT events_seq FROM fold_state) AND ` + events + `) AS BIGINT)`,
		append(args, eventArgs...)
}

func countEvents(ctx context.Context, tx querier, orgID string, f EventFilter, b bounds) (int, error) {
	if b.lo == openLow && b.hi == openHigh {
		// All of history: the per-type-and-severity counts, plus the
		// events not folded into them yet, in this same snapshot.
		total, args := historyTotal(f, orgID)
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT `+total, args...).Scan(&n); err != nil {
			return 0, fmt.Errorf("count events: %w", err)
		}
		return n, nil
	}
	// Whole hours inside [lo, hi) come from the rollup.
	hourLo := floorMS(b.lo+hourMS-1, hourMS)
	hourHi := floorMS(b.hi, hourMS)
	exact := func(lo, hi int64) (int, error) { return countRange(ctx, tx, orgID, f, lo, hi) }
	if hourLo >= hourHi {
		return exact(b.lo, b.hi)
	}
	where, args := f.clause([]string{"org_id = ?", "hour >= ?", "hour < ?"}, []any{orgID, hourLo, hourHi})
	var whole int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(n), 0) FROM event_rollup WHERE `+where, args...).Scan(&whole); err != nil {
		return 0, fmt.Errorf("sum event rollup: %w", err)
	}
	// Events stored since the last fold are not in the rollup yet: counted
	// one by one, walking the sequence (NOT INDEXED), in this same snapshot.
	where, args = f.where(orgID, bounds{hourLo, hourHi})
	var unfolded int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM events NOT INDEXED
		WHERE seq > (SELECT events_seq FROM fold_state) AND `+where, args...).Scan(&unfolded); err != nil {
		return 0, fmt.Errorf("count unfolded events: %w", err)
	}
	whole += unfolded
	head, err := exact(b.lo, hourLo)
	if err != nil {
		return 0, err
	}
	tail, err := exact(hourHi, b.hi)
	if err != nil {
		return 0, err
	}
	return whole + head + tail, nil
}

// AlertEvents returns the newest events behind an alert: its own, among
// them the earlier events of the burst windows it took in.
func (s *Store) AlertEvents(ctx context.Context, orgID, alertID string, limit int) ([]event.Event, error) {
	return s.alertEvents(ctx, s.reader, orgID, alertID, limit)
}

// alertEventsQuery reads an alert's events, the columns eventColumns.
func alertEventsQuery(eventColumns string) string {
	return `SELECT ` + eventColumns + ` FROM events INDEXED BY events_alert WHERE alert_id = ?1
	AND org = (SELECT num FROM org_numbers WHERE org_id = ?2) ORDER BY ts DESC LIMIT ?3`
}

func (s *Store) alertEvents(ctx context.Context, q querier, orgID, alertID string, limit int) ([]event.Event, error) {
	ids := s.eventIDs
	rows, err := q.QueryContext(ctx, alertEventsQuery(s.eventColumns()), alertID, orgID, limit)
	if err != nil {
		return nil, fmt.Errorf("alert events: %w", err)
	}
	return ids.scan(rows, orgID)
}
