package store

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"garrison/event"
)

// recentSpan is how much history the recent counts hold: the dashboard's
// longest window (seven days) and the hour it reaches back into.
const recentSpan = 8 * 24 * time.Hour

// maxRecentOrgs bounds the organizations whose recent counts are held;
// past it the least recently read one is dropped and reloaded when read.
const maxRecentOrgs = 2000

// hourCounts is one hour's folded events by type (event.Types order) and
// severity.
type hourCounts [event.TypeCount][event.Levels]int32

// recentCounts holds, per organization, the folded event counts of each
// recent hour, so that the dashboard's windows (today, 24 hours, 7 days)
// add a few numbers in memory instead of reading and sorting rollup rows.
// The fold keeps it after each commit; an organization is loaded from the
// hourly rollup the first time it is read. Each organization's counts are
// exact for a fold cursor, and the reader counts the events past that
// cursor itself, in its own snapshot.
type recentCounts struct {
	mu   sync.Mutex
	orgs map[string]*orgHours
	tick int64 // a clock of reads, for dropping the least recently read
}

type orgHours struct {
	cursor int64 // the fold cursor the counts are exact for
	from   int64 // the first hour held
	hours  map[int64]*hourCounts
	read   int64
}

func typeIndex(t string) int { return slices.Index(event.Types, t) }

// counts adds up the hours from hour on: false when the organization is
// not held, or the hours before it are not.
func (r *recentCounts) counts(orgID string, hour int64) (c EventCounts, cursor int64, ok bool) {
	var sum [len(hourCounts{})][event.Levels]int64
	hours := 0
	r.mu.Lock()
	o, held := r.orgs[orgID]
	ok = held && hour >= o.from
	if ok {
		r.tick++
		o.read = r.tick
		cursor = o.cursor
		for h, hc := range o.hours {
			if h < hour {
				continue
			}
			hours++
			for t := range hc {
				for sev, n := range hc[t] {
					sum[t][sev] += int64(n)
				}
			}
		}
	}
	r.mu.Unlock() // the answer is built outside the lock every reader takes
	if !ok {
		return c, 0, false
	}
	c.ByType = map[string]int{}
	if hours == 0 {
		return c, cursor, true
	}
	for t := range sum {
		byType := 0
		for sev, n := range sum[t] {
			c.BySeverity[sev] += int(n)
			byType += int(n)
		}
		c.ByType[event.Types[t]] = byType
		c.Total += byType
	}
	return c, cursor, true
}

// load holds an organization's recent hours as of the snapshot q reads.
func (r *recentCounts) load(ctx context.Context, q querier, orgID string, now time.Time) error {
	from := floorMS(ms(now.Add(-recentSpan)), hourMS)
	o := &orgHours{from: from, hours: map[int64]*hourCounts{}}
	if err := q.QueryRowContext(ctx, `SELECT events_seq FROM fold_state`).Scan(&o.cursor); err != nil {
		return fmt.Errorf("recent counts: %w", err)
	}
	rows, err := q.QueryContext(ctx, `SELECT hour, type, severity, n FROM event_rollup WHERE org_id = ? AND hour >= ?`, orgID, from)
	if err != nil {
		return fmt.Errorf("recent counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var hour, n int64
		var typ string
		var sev event.Severity
		if err := rows.Scan(&hour, &typ, &sev, &n); err != nil {
			return fmt.Errorf("recent counts: %w", err)
		}
		o.add(hour, typ, sev, n)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("recent counts: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if held, ok := r.orgs[orgID]; ok && held.cursor >= o.cursor {
		return nil // a newer copy got there first
	}
	if r.orgs == nil {
		r.orgs = map[string]*orgHours{}
	}
	if len(r.orgs) >= maxRecentOrgs {
		r.dropLeastRead()
	}
	r.tick++
	o.read = r.tick
	r.orgs[orgID] = o
	return nil
}

func (o *orgHours) add(hour int64, typ string, sev event.Severity, n int64) {
	t := typeIndex(typ)
	if hour < o.from || t < 0 || !sev.Valid() {
		return
	}
	hc := o.hours[hour]
	if hc == nil {
		hc = &hourCounts{}
		o.hours[hour] = hc
	}
	hc[t][sev] += int32(n)
}

func (r *recentCounts) dropLeastRead() {
	var oldest string
	for id, o := range r.orgs {
		if oldest == "" || o.read < r.orgs[oldest].read {
			oldest = id
		}
	}
	delete(r.orgs, oldest)
}

// folded moves every organization held at cursor from to cursor to,
// adding what the fold just committed; now drops the hours that have left
// the span. An organization held at another cursor missed a fold, so it is
// dropped and reloaded when next read.
func (r *recentCounts) folded(from, to int64, hours map[hourKey]int64, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	oldest := floorMS(ms(now.Add(-recentSpan)), hourMS)
	for id, o := range r.orgs {
		if o.cursor != from {
			if o.cursor < to {
				delete(r.orgs, id)
			}
			continue
		}
		o.cursor = to
		if oldest > o.from {
			for h := range o.hours {
				if h < oldest {
					delete(o.hours, h)
				}
			}
			o.from = oldest
		}
	}
	for k, n := range hours {
		if o, ok := r.orgs[k.org]; ok && o.cursor == to {
			o.add(k.hour, k.typ, k.sev, n)
		}
	}
}
