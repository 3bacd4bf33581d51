package store

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"garrison/event"
)

// The export's next batch starts where the last ended through the time
// index, not by reading the organization's events from the start again
// (which made exporting a million events quadratic).
func TestExportBatchUsesTheTimeIndex(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	// With words too: their candidates are a list the walk checks, not
	// rows to sort in each batch.
	for _, f := range []EventFilter{{}, {Search: event.Search{Text: "failed password"}}} {
		where, args := f.where("org_a", f.bounds())
		rows, err := s.reader.Query(`EXPLAIN QUERY PLAN SELECT `+eventColumnsSQLite+` FROM events WHERE `+where+
			` AND (ts, seq) > (?, ?) ORDER BY ts, seq LIMIT ?`, append(args, ms(time.Now()), 5, exportBatch)...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			rows.Scan(&id, &parent, &unused, &detail)
			plan = append(plan, detail)
		}
		rows.Close()
		got := strings.Join(plan, "; ")
		if !strings.Contains(got, "events_org_ts (org=? AND ts>?)") || strings.Contains(got, "TEMP B-TREE") {
			t.Fatalf("%+v: plan: %s", f.Search, got)
		}
	}
}
