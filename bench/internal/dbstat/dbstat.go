// Package dbstat says where a Garrison database's bytes go: every table
// and index, read through SQLite's dbstat table, and the groups they make
// (the events' rows, their indexes, their text index, their originals,
// alerts, rollups, the rest). bench/dbbytes prints it for a database at
// hand; bench/suite's scale run records it.
package dbstat

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"text/tabwriter"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// The groups, in the order they are reported.
const (
	Rows      = "rows"       // the events table
	Indexes   = "indexes"    // the events table's indexes
	TextIndex = "text index" // the events' words (FTS5) and the time bounds of its blocks
	Originals = "originals"  // the original records kept beside events
	Alerts    = "alerts"     // alerts and their history, windows, signals
	Rollups   = "rollups"    // counts and rollups kept as events arrive
	Other     = "other"      // everything else, free pages included
)

// Groups are every group, in report order.
var Groups = []string{Rows, Indexes, TextIndex, Originals, Alerts, Rollups, Other}

// FreePages names the pages no table or index holds (the freelist).
const FreePages = "(free pages)"

// GroupOf is the group a table or index belongs to, by its name.
func GroupOf(name string) string {
	// An automatic index (a UNIQUE or a non-rowid primary key) goes with
	// its table, but the events table's are indexes like its others.
	if t, ok := strings.CutPrefix(name, "sqlite_autoindex_"); ok {
		if i := strings.LastIndexByte(t, '_'); i > 0 {
			t = t[:i]
		}
		if t == "events" {
			return Indexes
		}
		return GroupOf(t)
	}
	switch {
	case name == "events":
		return Rows
	case strings.HasPrefix(name, "events_"):
		return Indexes
	case name == "event_text" || strings.HasPrefix(name, "event_text_") || name == "event_blocks":
		return TextIndex
	case name == "event_originals" || strings.HasPrefix(name, "event_originals_"):
		return Originals
	case strings.Contains(name, "rollup") || strings.Contains(name, "counts") || strings.HasPrefix(name, "threat_"):
		return Rollups
	case strings.HasPrefix(name, "alert"):
		return Alerts
	}
	return Other
}

// Object is one table or index.
type Object struct {
	Name    string `json:"name"`
	Group   string `json:"group"`
	Bytes   int64  `json:"bytes"`   // its pages
	Payload int64  `json:"payload"` // the records on them
	Unused  int64  `json:"unused"`  // the space left free on them
}

// Group is one group's bytes.
type Group struct {
	Group         string  `json:"group"`
	Bytes         int64   `json:"bytes"`
	BytesPerEvent float64 `json:"bytes_per_event"`
}

// Report is where one database file's bytes go.
type Report struct {
	Events    int64    `json:"events"`     // rows in events
	FileBytes int64    `json:"file_bytes"` // page_count × page_size
	Groups    []Group  `json:"groups"`     // in the order of Groups
	Objects   []Object `json:"objects"`    // largest first
}

// PerEvent is bytes divided by the events stored.
func (r *Report) PerEvent(bytes int64) float64 { return float64(bytes) / float64(max(r.Events, 1)) }

// Read opens the database at path read-only and reads its pages through
// dbstat. Run it on a stopped server's database or on a copy: it reads
// every page.
func Read(ctx context.Context, path string) (*Report, error) {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	r := &Report{}
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM events`).Scan(&r.Events); err != nil {
		return nil, fmt.Errorf("%s: count events: %w", path, err)
	}
	var pages, pageSize int64
	if err := db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.FileBytes = pages * pageSize
	rows, err := db.QueryContext(ctx, `SELECT name, SUM(pgsize), SUM(payload), SUM(unused) FROM dbstat GROUP BY name`)
	if err != nil {
		return nil, fmt.Errorf("%s: dbstat: %w", path, err)
	}
	defer rows.Close()
	var held int64
	for rows.Next() {
		var o Object
		if err := rows.Scan(&o.Name, &o.Bytes, &o.Payload, &o.Unused); err != nil {
			return nil, err
		}
		o.Group = GroupOf(o.Name)
		held += o.Bytes
		r.Objects = append(r.Objects, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: dbstat: %w", path, err)
	}
	if free := r.FileBytes - held; free > 0 {
		r.Objects = append(r.Objects, Object{Name: FreePages, Group: Other, Bytes: free, Unused: free})
	}
	r.sum()
	return r, nil
}

// sum sorts the objects, largest first, and totals the groups.
func (r *Report) sum() {
	slices.SortStableFunc(r.Objects, func(a, b Object) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), strings.Compare(a.Name, b.Name))
	})
	r.Groups = r.Groups[:0]
	for _, g := range Groups {
		var n int64
		for _, o := range r.Objects {
			if o.Group == g {
				n += o.Bytes
			}
		}
		r.Groups = append(r.Groups, Group{Group: g, Bytes: n, BytesPerEvent: r.PerEvent(n)})
	}
}

// Write prints the groups, then every table and index holding at least
// minPerEvent bytes an event (the others summed on one line).
func (r *Report) Write(w io.Writer, minPerEvent float64) {
	const mib = 1 << 20
	var total int64
	for _, g := range r.Groups {
		total += g.Bytes
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "group\tMiB\tbytes/event\tshare\t\n")
	for _, g := range r.Groups {
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.0f %%\t\n", g.Group, float64(g.Bytes)/mib, g.BytesPerEvent, 100*float64(g.Bytes)/float64(max(total, 1)))
	}
	fmt.Fprintf(tw, "all (%d events)\t%.1f\t%.1f\t\t\n", r.Events, float64(total)/mib, r.PerEvent(total))
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "table or index\tgroup\tMiB\tpayload MiB\tunused MiB\tbytes/event\t\n")
	var rest, restN int64
	for _, o := range r.Objects {
		if r.PerEvent(o.Bytes) < minPerEvent {
			rest += o.Bytes
			restN++
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t\n", o.Name, o.Group, float64(o.Bytes)/mib, float64(o.Payload)/mib,
			float64(o.Unused)/mib, r.PerEvent(o.Bytes))
	}
	if restN > 0 {
		fmt.Fprintf(tw, "(%d smaller)\t\t%.1f\t\t\t%.1f\t\n", restN, float64(rest)/mib, r.PerEvent(rest))
	}
	tw.Flush()
}
