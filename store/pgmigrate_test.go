package store_test

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"testing"

	"garrison/store"
	"garrison/store/storetest"
)

// PostgreSQL's schema is SQLite's: the same tables with the same columns
// (SQLite's full-text index and its shadow tables aside: PostgreSQL keeps
// event text as a tsvector; and SQLite's implicit rowid is a column on
// PostgreSQL where queries order by it), so a step written for one engine
// and not the other is caught here.
func TestPostgresSchemaIsSQLites(t *testing.T) {
	url := storetest.Postgres(t)
	ctx := context.Background()
	v, err := store.MigratePostgres(ctx, url, storetest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	lite := storetest.Open(t)
	var sqliteVersion int
	if err := lite.DB().QueryRowContext(ctx, `PRAGMA user_version`).Scan(&sqliteVersion); err != nil || v != sqliteVersion {
		t.Fatalf("PostgreSQL at %d, SQLite at %d (%v)", v, sqliteVersion, err)
	}
	sqliteCols := columns(t, lite.DB(), `SELECT m.name, p.name FROM sqlite_schema m JOIN pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE 'event_text%'`)
	pg, err := sql.Open(store.PostgresDriver, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	pgCols := columns(t, pg, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = 'public' AND table_name NOT LIKE 'event_text%' AND table_name <> 'garrison_schema' AND column_name <> 'rowid'`)
	if !slices.Equal(sqliteCols, pgCols) {
		for _, c := range sqliteCols {
			if !slices.Contains(pgCols, c) {
				t.Errorf("PostgreSQL lacks %s", c)
			}
		}
		for _, c := range pgCols {
			if !slices.Contains(sqliteCols, c) {
				t.Errorf("SQLite lacks %s", c)
			}
		}
	}
	if len(sqliteCols) < 500 {
		t.Fatalf("only %d columns read", len(sqliteCols))
	}
	// The secret event ids are derived with is there, and random.
	var key []byte
	if err := pg.QueryRowContext(ctx, `SELECT key FROM event_id_key WHERE id = 1`).Scan(&key); err != nil || len(key) != 16 {
		t.Fatalf("event id key %x, %v", key, err)
	}
}

func columns(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			t.Fatal(err)
		}
		out = append(out, table+"."+col)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// Migrations on PostgreSQL: the baseline on an empty database, each later
// step once and in turn (nodes started together), and a database newer
// than the binary refused.
func TestPostgresMigrations(t *testing.T) {
	url := storetest.Postgres(t)
	ctx := context.Background()
	schema := storetest.Schema(t)
	steps := 0
	for _, line := range strings.Split(schema, "\n") {
		if strings.HasPrefix(line, "-- migration:") {
			steps++
		}
	}
	later := schema + "\n-- migration: " + strconv.Itoa(steps+1) + "\nCREATE TABLE later (id INTEGER PRIMARY KEY) STRICT;\n-- postgres:\nCREATE TABLE later (id BIGINT PRIMARY KEY);\n"
	errs := make(chan error, 3)
	for range 3 { // three nodes at once
		go func() {
			_, err := store.MigratePostgres(ctx, url, later)
			errs <- err
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	v, err := store.MigratePostgres(ctx, url, later)
	if err != nil || v != steps+1 {
		t.Fatalf("version %d, %v; want %d", v, err, steps+1)
	}
	if _, err := store.MigratePostgres(ctx, url, schema); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("an older binary on a newer database: %v", err)
	}
}
