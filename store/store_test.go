package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const testSchema = `-- migration: 1
CREATE TABLE a (id INTEGER PRIMARY KEY) STRICT;
-- migration: 2
CREATE TABLE b (id INTEGER PRIMARY KEY) STRICT;
`

func TestMigrationsApplyOnceAndResume(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	first, _, _ := strings.Cut(testSchema, "-- migration: 2")
	s, err := Open(ctx, path, first)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for range 2 { // the second Open applies migration 2; the third changes nothing
		s, err = Open(ctx, path, testSchema)
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
	if _, err := Open(ctx, path, first); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("older binary on a newer database: %v", err)
	}
}

func TestMigrationSequenceChecked(t *testing.T) {
	for _, bad := range []string{"", "CREATE TABLE x (y);", "-- migration: 2\nSELECT 1;", "-- migration: 1\nSELECT 1;\n-- migration: 3\nSELECT 1;"} {
		if _, err := parseMigrations(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestFailedMigrationLeavesWholeVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	broken := testSchema + "-- migration: 3\nCREATE TABLE c (id INTEGER PRIMARY KEY);\nTHIS IS NOT SQL;\n"
	if _, err := Open(ctx, path, broken); err == nil {
		t.Fatal("broken migration accepted")
	}
	s, err := Open(ctx, path, testSchema)
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
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "t.db"), testSchema+
		"-- migration: 3\nCREATE TABLE revoked_tokens (jti TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) STRICT;\n")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exp := time.Now().Add(time.Hour)
	if err := s.RevokeSession(context.Background(), "j", exp); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeSession(context.Background(), "j", exp); !errors.Is(err, ErrConflict) {
		t.Fatalf("second revocation: %v", err)
	}
}
