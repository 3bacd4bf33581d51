package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/app"
	"garrison/credential"
	"garrison/store"
	"garrison/store/storetest"
)

// The cluster's commands: migrate once (again: nothing to do), a node that
// waits for it and one that refuses a newer schema, copy an appliance into
// a new database (refused into one with data, or while its server runs),
// and backup pointing at pg_dump.
func TestClusterCommands(t *testing.T) {
	url := storetest.Postgres(t)
	ctx := context.Background()
	var out bytes.Buffer
	cmd := func(args ...string) error {
		out.Reset()
		return runCLI(t, args, &out, &out)
	}

	// A node started on the empty database waits for garrison migrate.
	cfg := testConfig(t)
	cfg.database = url
	started := make(chan error, 1)
	go func() {
		a, err := newApp(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), appOptions{})
		if err == nil {
			a.Close()
		}
		started <- err
	}()
	select {
	case err := <-started:
		t.Fatalf("a node started on an unmigrated database: %v", err)
	case <-time.After(time.Second):
	}
	if err := cmd("migrate", "--database", url); err != nil || !strings.Contains(out.String(), "Migrated the database from migration 0 to") {
		t.Fatalf("migrate: %v %s", err, out.String())
	}
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("the waiting node: %v", err)
		}
	case <-time.After(3 * app.MigrationWait):
		t.Fatal("the waiting node did not start after the migration")
	}
	if err := cmd("migrate", "--database", url); err != nil || !strings.Contains(out.String(), "nothing to do") {
		t.Fatalf("migrate again: %v %s", err, out.String())
	}

	// A newer release migrated it: this one refuses to serve.
	db, err := sql.Open(store.PostgresDriver, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE garrison_schema SET version = version + 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := newApp(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), appOptions{}); !errors.Is(err, store.ErrSchemaNewer) {
		t.Fatalf("a node on a newer schema: %v", err)
	}
	if _, err := db.Exec(`UPDATE garrison_schema SET version = version - 1`); err != nil {
		t.Fatal(err)
	}

	// An appliance with an organization and an event, copied.
	e := newTestEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	e.Do("POST", "/api/events", key, map[string]any{"events": []map[string]any{{"type": "threat_detected", "severity": "high",
		"source": "ids", "asset": "web-01", "timestamp": e.clock.Now().Add(-time.Minute).Format(time.RFC3339), "message": "beacon"}}}).
		Must(t, http.StatusCreated)
	dataDir := dataDirOf(t, e.app)
	unlock, err := app.LockDataDir(dataDir) // as a server running there does
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd("copy", "--from", "sqlite:"+dataDir, "--to", storetest.Postgres(t)); err == nil || !strings.Contains(err.Error(), "stop the server") {
		t.Fatalf("copy while the server runs: %v", err)
	}
	unlock()
	e.stopRunner()
	e.app.Close()
	target := storetest.Postgres(t)
	if err := cmd("copy", "--from", "sqlite:"+dataDir, "--to", target); err != nil || !strings.Contains(out.String(), "every table's count and checksum match") ||
		!strings.Contains(out.String(), "copied events") {
		t.Fatalf("copy: %v %s", err, out.String())
	}
	if err := cmd("copy", "--from", "sqlite:"+dataDir, "--to", target); !errors.Is(err, store.ErrTargetNotEmpty) {
		t.Fatalf("a second copy: %v", err)
	}
	// The copied organization's admin, through a command on the cluster.
	if err := cmd("apikey", "create", "--database", target, "--email", "ann@acme.test", "--name", "cluster", "--scope", "read"); err != nil ||
		!strings.Contains(out.String(), credential.APIKeyPrefix) {
		t.Fatalf("apikey create on the cluster: %v %s", err, out.String())
	}

	if err := cmd("backup", "--database", url, t.TempDir()+"/b"); !errors.Is(err, errPostgresBackup) {
		t.Fatalf("backup of a cluster: %v", err)
	}
	for _, bad := range [][]string{{"migrate"}, {"migrate", "--database", "mysql://x"}, {"copy", "--from", dataDir, "--to", target},
		{"copy", "--from", "sqlite:" + dataDir, "--to", "/tmp/x"}} {
		if err := cmd(bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
