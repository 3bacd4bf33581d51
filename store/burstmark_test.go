package store

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// schemaThrough is the real schema up to and including migration n.
func schemaThrough(t *testing.T, n int) string {
	t.Helper()
	full := realSchema(t)
	next := "-- migration: " + strconv.Itoa(n+1) + "\n"
	cut := strings.Index(full, next)
	if cut < 0 {
		t.Fatalf("schema.sql has no %q", next)
	}
	return full[:cut]
}

// A burst window's earlier events carry the alert's id once the window
// crosses: read straight from the events, with no lookup of the window.
func TestBurstMarksEarlierEvents(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	start := foldNow.Add(-time.Hour).Truncate(10 * time.Minute)
	ingest(t, s, "org_a", lows(4, "ws-1", start)...)
	ingest(t, s, "org_a", lows(3, "ws-1", start.Add(time.Minute))...)
	ingest(t, s, "org_a", lows(2, "ws-2", start)...)                      // another asset's window
	ingest(t, s, "org_a", lows(3, "ws-1", start.Add(-10*time.Minute))...) // the window before
	if got := markedEvents(t, s); got != "" {
		t.Fatalf("below the threshold, events carry alerts: %s", got)
	}
	ingest(t, s, "org_a", lows(3, "ws-1", start.Add(2*time.Minute))...)
	if got, want := markedEvents(t, s), "ws-1:"+strings.Repeat("a", 10); got != want {
		t.Fatalf("marked events %q, want %q (the crossing batch and the 7 before it)", got, want)
	}
	if held := s.alerts.orgs["org_a"].waiting; len(held) != 2 {
		t.Fatalf("seqs held for %d windows, want ws-2's and the earlier window's: %v", len(held), held)
	}
}

// markedEvents lists, per asset, one letter per event carrying an alert
// id, the letter telling the alert apart.
func markedEvents(t *testing.T, s *Store) string {
	t.Helper()
	rows, err := s.reader.Query(`SELECT asset, alert_id FROM events WHERE alert_id IS NOT NULL ORDER BY asset, alert_id, seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	letters := map[string]byte{}
	last := ""
	for rows.Next() {
		var asset, alert string
		if err := rows.Scan(&asset, &alert); err != nil {
			t.Fatal(err)
		}
		if asset != last {
			if last != "" {
				b.WriteByte(' ')
			}
			b.WriteString(asset + ":")
			last = asset
		}
		if _, ok := letters[alert]; !ok {
			letters[alert] = byte('a' + len(letters))
		}
		b.WriteByte(letters[alert])
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Migration 32 marks the earlier events of the windows an older release
// recorded in alert_windows, and only those.
func TestMigrationMarksTakenWindows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.db")
	s, err := Open(ctx, Config{Path: path, Schema: schemaThrough(t, 31), FoldInterval: time.Hour, Now: func() time.Time { return foldNow }})
	if err != nil {
		t.Fatal(err)
	}
	// Today's ingest stands in for the older release's: it writes the
	// alert's rule, a column of a later migration.
	for _, q := range []string{`INSERT INTO orgs (id, name, plan, created_at) VALUES ('org_a', 'a', 'pro', 0)`,
		`ALTER TABLE alerts ADD COLUMN rule TEXT`} {
		if _, err := s.writer.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	start := foldNow.Add(-time.Hour).Truncate(10 * time.Minute)
	ingest(t, s, "org_a", lows(6, "ws-1", start)...)
	ingest(t, s, "org_a", lows(2, "ws-2", start)...)
	ingest(t, s, "org_a", lows(5, "ws-1", start.Add(time.Minute))...)
	// What the older release left: the crossing batch's own events marked,
	// the earlier ones found through the window's row. An event of the
	// window stored after the crossing with no alert (one resolved in
	// between) is past the row's upto_seq and stays unmarked.
	var alertID string
	var upto int64
	if err := s.writer.QueryRow(`SELECT id, counted_through FROM alerts`).Scan(&alertID, &upto); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE events SET alert_id = NULL WHERE asset = 'ws-1' AND seq <= 6`,
		`INSERT INTO alert_windows (org_id, asset, type, window, alert_id, upto_seq) VALUES ('org_a', 'ws-1', 'policy_violation', ` +
			strconv.FormatInt(start.UnixMilli(), 10) + `, '` + alertID + `', ` + strconv.FormatInt(upto, 10) + `)`,
	} {
		if _, err := s.writer.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	later := lows(1, "ws-1", start.Add(3*time.Minute))
	ingest(t, s, "org_a", later...)
	for _, q := range []string{`UPDATE events SET alert_id = NULL WHERE seq = (SELECT MAX(seq) FROM events)`,
		`ALTER TABLE alerts DROP COLUMN rule`} {
		if _, err := s.writer.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openFolding(t, path)
	defer s.Close()
	if got, want := markedEvents(t, s), "ws-1:"+strings.Repeat("a", 11); got != want {
		t.Fatalf("after the migration, marked events %q, want %q", got, want)
	}
	var tables int
	if err := s.reader.QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE name = 'alert_windows'`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("alert_windows left behind: %d %v", tables, err)
	}
}
