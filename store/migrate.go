package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

const migrationMarker = "-- migration:"

type migration struct {
	version int
	sql     string
}

// parseMigrations splits schema at its "-- migration: N" markers. Versions must
// start at 1 and rise by one, so a missing or reordered section is caught at start.
func parseMigrations(schema string) ([]migration, error) {
	var out []migration
	for _, line := range strings.SplitAfter(schema, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), migrationMarker); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n != len(out)+1 {
				return nil, fmt.Errorf("schema: migration marker %q out of sequence", strings.TrimSpace(line))
			}
			out = append(out, migration{version: n})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].sql += line
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("schema: no %q sections", migrationMarker)
	}
	return out, nil
}

// migrate applies every migration newer than the database's user_version, each
// in its own transaction together with the version bump, so a crash leaves the
// database at a whole version and a re-run continues where it stopped.
func migrate(ctx context.Context, db *sql.DB, schema string) error {
	migrations, err := parseMigrations(schema)
	if err != nil {
		return err
	}
	var current int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if current > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this binary's %d", current, len(migrations))
	}
	for _, m := range migrations[current:] {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migration %d: %w", m.version, err)
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", m.version, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: set version: %w", m.version, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: commit: %w", m.version, err)
		}
	}
	return nil
}
