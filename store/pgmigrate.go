package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
)

// migrateLock is the advisory lock key migrations hold on PostgreSQL, so
// that nodes started together migrate one after the other ("GMIG").
const migrateLock = 0x474d4947

// MigratePostgres brings the PostgreSQL database at url to the newest step
// of schema (schema.sql) and says which it is at: the baseline first on an
// empty database, then each later step's PostgreSQL part, each in its own
// transaction with the version it reaches, under an advisory lock so that
// nodes starting at once migrate in turn. A database newer than schema is
// refused.
func MigratePostgres(ctx context.Context, url, schema string) (int, error) {
	m, err := parseMigrations(schema)
	if err != nil {
		return 0, err
	}
	if m.baselineAt == 0 {
		return 0, errors.New("schema: no PostgreSQL baseline")
	}
	db, err := sql.Open(PostgresDriver, url)
	if err != nil {
		return 0, fmt.Errorf("open postgres: %w", err)
	}
	defer db.Close()
	for {
		done, version, err := migrateStep(ctx, db, m)
		if err != nil || done {
			return version, err
		}
	}
}

// migrateStep applies the next step, if any, and says whether none was left.
func migrateStep(ctx context.Context, db *sql.DB, m migrations) (bool, int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, 0, fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, migrateLock); err != nil {
		return false, 0, fmt.Errorf("migrate: lock: %w", err)
	}
	// Made under the lock: two nodes making it at once would collide.
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS garrison_schema (
		id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`); err != nil {
		return false, 0, fmt.Errorf("schema version table: %w", err)
	}
	var current int
	switch err := tx.QueryRowContext(ctx, `SELECT version FROM garrison_schema WHERE id = 1`).Scan(&current); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return false, 0, fmt.Errorf("read schema version: %w", err)
	}
	if current > len(m.steps) {
		return false, current, fmt.Errorf("%w: it is at migration %d, this release knows %d", ErrSchemaNewer, current, len(m.steps))
	}
	if current == len(m.steps) {
		return true, current, nil
	}
	next, body := current+1, ""
	if current == 0 {
		next, body = m.baselineAt, m.baseline
	} else {
		body = m.steps[current].postgres
	}
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return false, current, fmt.Errorf("migration %d: %w", next, err)
	}
	if current == 0 {
		key := make([]byte, 16)
		rand.Read(key)
		if _, err := tx.ExecContext(ctx, `INSERT INTO event_id_key (id, key) VALUES (1, ?)`, key); err != nil {
			return false, current, fmt.Errorf("migration %d: event id key: %w", next, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO garrison_schema (id, version) VALUES (1, ?)
		ON CONFLICT (id) DO UPDATE SET version = excluded.version`, next); err != nil {
		return false, current, fmt.Errorf("migration %d: set version: %w", next, err)
	}
	if err := tx.Commit(); err != nil {
		return false, current, fmt.Errorf("migration %d: commit: %w", next, err)
	}
	return false, next, nil
}

// ErrSchemaOlder is a database not yet migrated to this release's schema
// (garrison migrate does it).
var ErrSchemaOlder = errors.New("the database's schema is older than this release's")

// ErrSchemaNewer is a database migrated by a newer release than this one:
// its nodes must not write to it.
var ErrSchemaNewer = errors.New("the database's schema is newer than this release's")

// PostgresVersion says which migration the PostgreSQL database at url is
// at (0: none, an empty database) and the newest schema has.
func PostgresVersion(ctx context.Context, url, schema string) (current, latest int, err error) {
	m, err := parseMigrations(schema)
	if err != nil {
		return 0, 0, err
	}
	db, err := sql.Open(PostgresDriver, url)
	if err != nil {
		return 0, 0, fmt.Errorf("open postgres: %w", err)
	}
	defer db.Close()
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass('garrison_schema') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, 0, fmt.Errorf("read schema version: %w", err)
	}
	if exists {
		err = db.QueryRowContext(ctx, `SELECT version FROM garrison_schema WHERE id = 1`).Scan(&current)
		if errors.Is(err, sql.ErrNoRows) {
			err = nil
		}
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read schema version: %w", err)
	}
	return current, len(m.steps), nil
}
