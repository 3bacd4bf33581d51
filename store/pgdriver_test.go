package store_test

import (
	"context"
	"database/sql"
	"testing"

	"garrison/store"
	"garrison/store/storetest"
)

// The store's queries, written with SQLite's placeholders, run on
// PostgreSQL through its driver: numbered and repeated arguments,
// RETURNING, ON CONFLICT, transactions, prepared statements, and text that
// only looks like a placeholder.
func TestPostgresDriverRunsTheStoresSQL(t *testing.T) {
	db, err := sql.Open(store.PostgresDriver, storetest.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE kv (k TEXT PRIMARY KEY, v BIGINT NOT NULL, note TEXT NOT NULL DEFAULT '')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range []string{"a", "b", "a"} {
		var v int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO kv (k, v, note) VALUES (?, ?, 'why? because') ON CONFLICT (k) DO UPDATE SET v = kv.v + excluded.v
			RETURNING v`, k, i+1).Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM kv WHERE k = ?1 OR v > ?2 OR k = ?1`, "a", 100).Scan(&n); err != nil || n != 1 {
		t.Fatalf("numbered arguments: %d, %v", n, err)
	}
	stmt, err := db.PrepareContext(ctx, `SELECT v FROM kv WHERE k = ? -- the key?`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	var a, b int64
	if err := stmt.QueryRowContext(ctx, "a").Scan(&a); err != nil {
		t.Fatal(err)
	}
	if err := stmt.QueryRowContext(ctx, "b").Scan(&b); err != nil {
		t.Fatal(err)
	}
	if a != 4 || b != 2 {
		t.Fatalf("a %d, b %d; want 4 and 2", a, b)
	}
	var note string
	if err := db.QueryRowContext(ctx, `SELECT note FROM kv WHERE note = 'why? because' AND k = ?`, "b").Scan(&note); err != nil || note != "why? because" {
		t.Fatalf("a quoted question mark: %q, %v", note, err)
	}
}
