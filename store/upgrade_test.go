package store_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"garrison/store"
	"garrison/store/storetest"
)

// TestUpgradeFromMigration8: a database made by the release that shipped
// migration 8 (testdata/schema_v8.sql) opens with today's schema and its
// intelligence imports work.
func TestUpgradeFromMigration8(t *testing.T) {
	old, err := os.ReadFile("testdata/schema_v8.sql")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "g.db")
	st, err := store.Open(context.Background(), store.Config{Path: path, Schema: string(old)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st.Close()
	// An import a crash left running under the old release.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO intel_imports (id, format, name, via, actor, status, started_at) VALUES ('imp_crashed', 'nvd', 'x', 'cli', 'cli', 'running', 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, err = store.Open(ctx, store.Config{Path: path, Schema: storetest.Schema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if imp, err := st.IntelImportByID(ctx, "imp_crashed"); err != nil || imp.Status != store.ImportFailed {
		t.Fatalf("a crashed import after the upgrade: %+v %v", imp, err)
	}
	if err := st.StartIntelImport(ctx, store.IntelImport{ID: "imp_new", Format: "nvd", Name: "x", Via: "cli", Actor: "cli", StartedAt: time.Now()}, ""); err != nil {
		t.Fatalf("import after the upgrade: %v", err)
	}
}
