package dbstat

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

func TestGroupOf(t *testing.T) {
	for _, c := range []struct{ name, group string }{
		{"events", Rows},
		{"events_org_ts", Indexes},
		{"events_org_severe_ts", Indexes},
		{"sqlite_autoindex_events_1", Indexes},
		{"event_text", TextIndex},
		{"event_text_data", TextIndex},
		{"event_text_idx", TextIndex},
		{"event_blocks", TextIndex},
		{"event_originals", Originals},
		{"sqlite_autoindex_event_originals_1", Originals},
		{"alerts", Alerts},
		{"alerts_org_recent", Alerts},
		{"sqlite_autoindex_alerts_1", Alerts},
		{"alert_history", Alerts},
		{"alert_counts", Rollups}, // a count kept as alerts change
		{"event_rollup", Rollups},
		{"asset_rollup", Rollups},
		{"event_counts", Rollups},
		{"threat_indicators", Rollups},
		{"threat_indicators_recent", Rollups},
		{"sqlite_autoindex_threat_assets_1", Rollups},
		{"event_sources", Other},
		{"burst_windows", Other},
		{"orgs", Other},
		{"sqlite_schema", Other},
		{FreePages, Other},
	} {
		if got := GroupOf(c.name); got != c.group {
			t.Errorf("GroupOf(%q) = %q, want %q", c.name, got, c.group)
		}
	}
}

// Read sees every table and index of a real file and accounts for all of
// its pages.
func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE events (seq INTEGER PRIMARY KEY, org INTEGER, ts INTEGER, message TEXT)`,
		`CREATE INDEX events_org_ts ON events (org, ts)`,
		`CREATE TABLE event_originals (seq INTEGER PRIMARY KEY, original BLOB)`,
		`CREATE TABLE event_rollup (org INTEGER, hour INTEGER, n INTEGER, PRIMARY KEY (org, hour)) WITHOUT ROWID`,
		`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i < 2000)
		 INSERT INTO events SELECT i, i % 3, i * 1000, printf('event %d with some words in it', i) FROM s`,
		`INSERT INTO event_originals SELECT seq, randomblob(100) FROM events WHERE seq % 2 = 0`,
		`INSERT INTO event_rollup SELECT org, ts / 3600000, COUNT(*) FROM events GROUP BY 1, 2`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()

	r, err := Read(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Events != 2000 {
		t.Errorf("events %d, want 2000", r.Events)
	}
	var sum int64
	by := map[string]int64{}
	for _, g := range r.Groups {
		sum += g.Bytes
		by[g.Group] = g.Bytes
	}
	if sum != r.FileBytes {
		t.Errorf("groups hold %d bytes, the file %d", sum, r.FileBytes)
	}
	for _, g := range []string{Rows, Indexes, Originals, Rollups} {
		if by[g] == 0 {
			t.Errorf("group %s holds nothing: %+v", g, r.Groups)
		}
	}
	if by[Rows] <= by[Indexes] {
		t.Errorf("rows %d bytes, no more than the index's %d", by[Rows], by[Indexes])
	}
	var out bytes.Buffer
	r.Write(&out, 0.5)
	for _, want := range []string{"rows", "events_org_ts", "all (2000 events)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
}
