package store

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBurstLookupsUseTheWindowIndex: both lookups of an asset's burst
// window seek the window index on all its columns. An expression index
// serves only the expression it was made with; a query that drifted from
// it would walk the organization's whole index.
func TestBurstLookupsUseTheWindowIndex(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	const want = "events_org_window_asset (org_id=? AND <expr>=? AND asset=? AND type=?"
	for name, query := range map[string]string{"burst recount": recountWindow, "alert events": alertEventsQuery} {
		rows, err := s.reader.Query("EXPLAIN QUERY PLAN "+query, "org_a", "host", 0, 600000, "threat_detected", 3)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if !strings.Contains(strings.Join(plan, "\n"), want) {
			t.Errorf("%s does not seek %s:\n%s", name, want, strings.Join(plan, "\n"))
		}
	}
}
