package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// testSchema is the least a Store opens on: the events and the fold's cursor.
const testSchema = `-- migration: 1
CREATE TABLE a (id INTEGER PRIMARY KEY) STRICT;
CREATE TABLE events (seq INTEGER PRIMARY KEY) STRICT;
CREATE TABLE fold_state (id INTEGER PRIMARY KEY, events_seq INTEGER NOT NULL) STRICT;
INSERT INTO fold_state VALUES (1, 0);
-- migration: 2
CREATE TABLE b (id INTEGER PRIMARY KEY) STRICT;
`

func TestMigrationsApplyOnceAndResume(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	first, _, _ := strings.Cut(testSchema, "-- migration: 2")
	s, err := Open(ctx, Config{Path: path, Schema: first})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for range 2 { // the second Open applies migration 2; the third changes nothing
		s, err = Open(ctx, Config{Path: path, Schema: testSchema})
		if err != nil {
			t.Fatalf("re-open: %v", err)
		}
		var v int
		s.DB().QueryRow(`PRAGMA user_version`).Scan(&v)
		if v != 2 {
			t.Fatalf("user_version %d", v)
		}
		s.Close()
	}
	if _, err := Open(ctx, Config{Path: path, Schema: first}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("older binary on a newer database: %v", err)
	}
}

func TestMigrationSequenceChecked(t *testing.T) {
	good := "-- migration: 1\nSELECT 1;\n-- postgres baseline: 1\nSELECT 'pg';\n-- migration: 2\nSELECT 2;\n-- postgres:\nSELECT 'pg 2';\n"
	m, err := parseMigrations(good)
	if err != nil || m.baselineAt != 1 || m.baseline != "SELECT 'pg';\n" || m.steps[1].sql != "SELECT 2;\n" || m.steps[1].postgres != "SELECT 'pg 2';\n" {
		t.Fatalf("%+v, %v", m, err)
	}
	for _, bad := range []string{"", "CREATE TABLE x (y);", "-- migration: 2\nSELECT 1;", "-- migration: 1\nSELECT 1;\n-- migration: 3\nSELECT 1;",
		// PostgreSQL's parts: the baseline right after its step, once; every later step with its part.
		"-- migration: 1\nSELECT 1;\n-- postgres baseline: 2\nSELECT 1;",
		"-- migration: 1\nSELECT 1;\n-- postgres baseline: 1\nSELECT 1;\n-- postgres baseline: 1\nSELECT 1;",
		"-- migration: 1\nSELECT 1;\n-- postgres baseline: 1\nSELECT 1;\n-- migration: 2\nSELECT 2;",
		"-- postgres:\nSELECT 1;\n-- migration: 1\nSELECT 1;",
		"-- migration: 1\nSELECT 1;\n-- postgres baseline: 1\nSELECT 1;\n-- postgres:\nSELECT 1;",
	} {
		if _, err := parseMigrations(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestFailedMigrationLeavesWholeVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	broken := testSchema + "-- migration: 3\nCREATE TABLE c (id INTEGER PRIMARY KEY);\nTHIS IS NOT SQL;\n"
	if _, err := Open(ctx, Config{Path: path, Schema: broken}); err == nil {
		t.Fatal("broken migration accepted")
	}
	s, err := Open(ctx, Config{Path: path, Schema: testSchema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v, c int
	s.DB().QueryRow(`PRAGMA user_version`).Scan(&v)
	s.DB().QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'c'`).Scan(&c)
	if v != 2 || c != 0 {
		t.Fatalf("version %d, half-applied table c: %d", v, c)
	}
}

func TestIDsSortByTime(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	for i := range 1000 {
		ids = append(ids, NewID("evt", base.Add(time.Duration(i)*time.Millisecond)))
	}
	if !slices.IsSorted(ids) {
		t.Fatal("ids do not sort by creation time")
	}
	if len(ids[0]) != len("evt_")+26 || slices.Compact(slices.Clone(ids))[999] != ids[999] {
		t.Fatalf("id shape or uniqueness: %s", ids[0])
	}
}

func TestRevokeSessionOnce(t *testing.T) {
	s, err := Open(context.Background(), Config{Path: filepath.Join(t.TempDir(), "t.db"), Schema: testSchema +
		"-- migration: 3\nCREATE TABLE revoked_tokens (jti TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) STRICT;\n"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exp := time.Now().Add(time.Hour)
	if err := s.RevokeSession(context.Background(), "j", exp); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeSession(context.Background(), "j", exp); !errors.Is(err, ErrSessionEnded) {
		t.Fatalf("second revocation: %v", err)
	}
}

// TestAlertCountsFollowEveryWrite: the trigger-kept counters equal a real
// count after inserts, severity raises, status changes and deletes.
func TestAlertCountsFollowEveryWrite(t *testing.T) {
	schema, err := os.ReadFile("../schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), Config{Path: filepath.Join(t.TempDir(), "t.db"), Schema: string(schema)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := s.writer.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO orgs (id, name, plan, created_at) VALUES ('o', 'O', 'starter', 0)`)
	for i := range 6 {
		exec(`INSERT INTO alerts (id, org_id, fingerprint, severity, category, title, asset, recommended_action, status,
			event_count, first_seen, last_seen, created_at, updated_at) VALUES (?, 'o', ?, ?, 'c', 't', 'a', 'r', 'open', 1, 0, 0, 0, 0)`,
			fmt.Sprint("a", i), fmt.Sprint("f", i), i%3)
	}
	exec(`UPDATE alerts SET severity = 4 WHERE id = 'a0'`)
	exec(`UPDATE alerts SET status = 'resolved' WHERE id IN ('a1', 'a2')`)
	exec(`UPDATE alerts SET event_count = 9 WHERE id = 'a3'`)
	exec(`DELETE FROM alerts WHERE id = 'a4'`)
	rows, err := s.reader.QueryContext(ctx, `SELECT status, severity, COUNT(*) FROM alerts GROUP BY 1, 2
		EXCEPT SELECT status, severity, n FROM alert_counts WHERE n > 0`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Fatal("alert_counts differ from the alerts")
	}
	var counted, real int
	s.reader.QueryRow(`SELECT SUM(n) FROM alert_counts`).Scan(&counted)
	s.reader.QueryRow(`SELECT COUNT(*) FROM alerts`).Scan(&real)
	if counted != real {
		t.Fatalf("counted %d, real %d", counted, real)
	}
}

// TestCheckpointsOffTheWritePath: writes go to the WAL and the background
// checkpointer copies them into the database file; Close empties the WAL.
func TestCheckpointsOffTheWritePath(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	s, err := Open(ctx, Config{Path: path, Schema: testSchema})
	if err != nil {
		t.Fatal(err)
	}
	maintained, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { s.Maintain(maintained, slog.New(slog.NewTextHandler(io.Discard, nil))) })
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	before := size(path)
	err = s.write(ctx, func(tx *sql.Tx) error {
		for i := range 5000 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO a (id) VALUES (?)`, i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for size(path) <= before {
		if time.Now().After(deadline) {
			t.Fatalf("the database file stayed at %d bytes: nothing was checkpointed", before)
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := size(path + "-wal"); n != 0 {
		t.Fatalf("WAL of %d bytes left after Close", n)
	}
}

// TestHealthyFollowsTheProbe: Healthy answers from the last probe, which
// fails once the database cannot be read.
func TestHealthyFollowsTheProbe(t *testing.T) {
	s, err := Open(context.Background(), Config{Path: filepath.Join(t.TempDir(), "t.db"), Schema: testSchema})
	if err != nil {
		t.Fatal(err)
	}
	if s.Healthy() != nil || s.probe(context.Background()) != nil || s.Healthy() != nil {
		t.Fatal("an open store is not healthy")
	}
	s.reader.Close() // the database can no longer be read
	if s.probe(context.Background()) == nil || s.Healthy() == nil {
		t.Fatal("a store that cannot be read is healthy")
	}
	s.reader, _ = sql.Open("sqlite", ":memory:") // for Close
	s.Close()
}

// TestWALStaysBounded: under constant writes and reads, the WAL is started
// over whenever it passes its limit, instead of growing with every write.
func TestWALStaysBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	const limit = 2 << 20
	s, err := Open(context.Background(), Config{Path: path, Schema: testSchema + "\n-- migration: 3\nCREATE TABLE blobs (b BLOB) STRICT;\n", WALLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { s.Maintain(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))) })
	wg.Go(func() { // readers at work most of the time, as a server under load has
		for ctx.Err() == nil {
			tx, err := s.reader.Begin()
			if err != nil {
				return
			}
			var n int
			tx.QueryRow(`SELECT COUNT(*) FROM blobs`).Scan(&n)
			time.Sleep(time.Millisecond)
			tx.Rollback()
			time.Sleep(time.Millisecond)
		}
	})
	var peak int64
	blob := make([]byte, 16<<10)
	const writes = 3000 // 48 MiB, one every millisecond or so: 24 times the limit
	for range writes {
		if err := s.write(context.Background(), func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO blobs (b) VALUES (?)`, blob)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path + "-wal"); err == nil {
			peak = max(peak, fi.Size())
		}
		time.Sleep(time.Millisecond)
	}
	stop()
	wg.Wait()
	// Without the restarts the WAL holds every write; with them, what
	// arrives between two checks (on a loaded machine, a few) comes on top
	// of the limit.
	if total := int64(writes * len(blob)); peak > total/3 {
		t.Fatalf("WAL peaked at %d bytes with a limit of %d", peak, limit)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
