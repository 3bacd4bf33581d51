package store

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBurstLookupsUseTheTimeIndex: a burst window's recount reads the
// organization's ten minutes through the time index, and an alert's
// events come from the alert index, never a walk of the organization.
func TestBurstLookupsUseTheTimeIndex(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	for _, c := range []struct {
		name, query string
		want        []string
	}{
		{"burst recount", recountWindow, []string{"events_org_ts (org=? AND ts>? AND ts<?)"}},
		{"alert events", alertEventsQuery(eventColumnsSQLite), []string{"events_alert (alert_id=?)"}},
	} {
		rows, err := s.reader.Query("EXPLAIN QUERY PLAN "+c.query, "org_a", "host", 0, 600000, "threat_detected", 3)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
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
		got := strings.Join(plan, "\n")
		for _, want := range c.want {
			if !strings.Contains(got, want) {
				t.Errorf("%s does not seek %s:\n%s", c.name, want, got)
			}
		}
		if strings.Contains(got, "(org=?)\n") {
			t.Errorf("%s walks the organization's events:\n%s", c.name, got)
		}
	}
}
