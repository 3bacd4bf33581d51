package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
)

// deepPage is the offset from which a page of events is found by counting
// whole hours instead of stepping over rows: OFFSET reads every row it
// skips (a third of a second at a million events), while the hourly rollup
// holds one row per hour, type and severity. A variable for the tests.
var deepPage = 10_000

// seek returns bounds and an offset that give the same page as b and the
// filter's offset, with the whole hours before the page, in its order,
// counted instead of stepped over: every event of an hour before the page
// sorts before every event of it, so narrowing the range past those hours
// and lowering the offset by their events leaves the page as it was. The
// counts are the rollup's plus the events not folded into it yet, read in
// q's snapshot, which must be the page's.
func seek(ctx context.Context, q querier, orgID string, f EventFilter, b bounds) (bounds, int, error) {
	offset := f.Page.Offset
	if offset < deepPage || f.SortBySeverity {
		return b, offset, nil
	}
	hourLo := floorMS(b.lo+hourMS-1, hourMS)
	hourHi := floorMS(b.hi, hourMS)
	if hourLo >= hourHi {
		return b, offset, nil
	}
	// The partial hour at the page's end of the range comes first.
	var skipped int
	var err error
	if f.Ascending {
		skipped, err = countRange(ctx, q, orgID, f, b.lo, hourLo)
	} else {
		skipped, err = countRange(ctx, q, orgID, f, hourHi, b.hi)
	}
	if err != nil || skipped > offset {
		return b, offset, err
	}
	edge := hourHi
	if f.Ascending {
		edge = hourLo
	}
	// Then whole hours, in the page's order, while they fit in the offset:
	// the rollup's rows read in index order, stopped at the page's hour,
	// with the unfolded events of each hour added as it passes.
	unfolded, err := unfoldedPerHour(ctx, q, orgID, f, hourLo, hourHi)
	if err != nil {
		return b, 0, err
	}
	pending := slices.Sorted(maps.Keys(unfolded))
	dir := "ASC"
	if !f.Ascending {
		slices.Reverse(pending)
		dir = "DESC"
	}
	before := func(a, h int64) bool { // a comes before h in the page's order
		if f.Ascending {
			return a < h
		}
		return a > h
	}
	take := func(h int64, n int) bool {
		if skipped+n > offset {
			return false
		}
		skipped += n
		if edge = h; f.Ascending {
			edge = h + hourMS
		}
		return true
	}
	where, args := f.clause([]string{"org_id = ?", "hour >= ?", "hour < ?"}, []any{orgID, hourLo, hourHi})
	rows, err := q.QueryContext(ctx, `SELECT hour, SUM(n) FROM event_rollup WHERE `+where+` GROUP BY hour ORDER BY hour `+dir, args...)
	if err != nil {
		return b, 0, fmt.Errorf("events per hour: %w", err)
	}
	defer rows.Close()
	done := false
	for !done && rows.Next() {
		var h int64
		var n int
		if err := rows.Scan(&h, &n); err != nil {
			return b, 0, fmt.Errorf("events per hour: %w", err)
		}
		for ; len(pending) > 0 && before(pending[0], h); pending = pending[1:] {
			if !take(pending[0], unfolded[pending[0]]) {
				done = true
				break
			}
		}
		if done {
			break
		}
		if len(pending) > 0 && pending[0] == h {
			n += unfolded[h]
			pending = pending[1:]
		}
		done = !take(h, n)
	}
	if err := rows.Err(); err != nil {
		return b, 0, fmt.Errorf("events per hour: %w", err)
	}
	for ; !done && len(pending) > 0; pending = pending[1:] {
		done = !take(pending[0], unfolded[pending[0]])
	}
	if f.Ascending {
		return bounds{edge, b.hi}, offset - skipped, nil
	}
	return bounds{b.lo, edge}, offset - skipped, nil
}

// unfoldedPerHour counts the filter's events of each whole hour in
// [hourLo, hourHi) stored since the last fold, walked by sequence (NOT
// INDEXED) like countEvents does: the rollup does not hold them yet.
func unfoldedPerHour(ctx context.Context, q querier, orgID string, f EventFilter, hourLo, hourHi int64) (map[int64]int, error) {
	where, args := f.where(orgID, bounds{hourLo, hourHi})
	rows, err := q.QueryContext(ctx, fmt.Sprintf(`SELECT ts - (ts %% %[1]d + %[1]d) %% %[1]d, COUNT(*) FROM events NOT INDEXED
		WHERE seq > (SELECT events_seq FROM fold_state) AND %s GROUP BY 1`, hourMS, where), args...)
	if err != nil {
		return nil, fmt.Errorf("unfolded events per hour: %w", err)
	}
	defer rows.Close()
	perHour := map[int64]int{}
	for rows.Next() {
		var hour int64
		var n int
		if err := rows.Scan(&hour, &n); err != nil {
			return nil, fmt.Errorf("unfolded events per hour: %w", err)
		}
		perHour[hour] = n
	}
	return perHour, rows.Err()
}

// countRange counts the filter's events in [lo, hi) one by one, through
// the index: for the partial hours at the edges of a range.
func countRange(ctx context.Context, q querier, orgID string, f EventFilter, lo, hi int64) (int, error) {
	if lo >= hi {
		return 0, nil
	}
	where, args := f.where(orgID, bounds{lo, hi})
	var n int
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE `+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count events: %w", err)
	}
	return n, nil
}
