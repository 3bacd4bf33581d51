package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// schema.sql is one migration history for both engines:
//
//	-- migration: N        SQLite's statements of step N, then
//	-- postgres:           PostgreSQL's (every step after the baseline)
//	-- postgres baseline: B  PostgreSQL's whole schema at step B, where its
//	                       history begins (once, right after step B)
const (
	migrationMarker = "-- migration:"
	postgresMarker  = "-- postgres:"
	baselineMarker  = "-- postgres baseline:"
)

type migration struct {
	version  int
	sql      string // SQLite's
	postgres string // PostgreSQL's; empty up to the baseline
}

// migrations is schema.sql parsed.
type migrations struct {
	steps []migration
	// baseline is PostgreSQL's schema at step baselineAt.
	baseline   string
	baselineAt int
}

// parseMigrations splits schema at its markers. Versions must start at 1
// and rise by one, so a missing or reordered section is caught at start;
// every step after PostgreSQL's baseline must give its PostgreSQL part.
func parseMigrations(schema string) (migrations, error) {
	var m migrations
	part := "" // where the next line goes: "sqlite", "postgres", "baseline"
	for _, line := range strings.SplitAfter(schema, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, migrationMarker):
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(trimmed, migrationMarker)))
			if err != nil || n != len(m.steps)+1 {
				return m, fmt.Errorf("schema: migration marker %q out of sequence", trimmed)
			}
			m.steps = append(m.steps, migration{version: n})
			part = "sqlite"
			continue
		case strings.HasPrefix(trimmed, baselineMarker):
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(trimmed, baselineMarker)))
			if err != nil || n != len(m.steps) || m.baselineAt != 0 {
				return m, fmt.Errorf("schema: %q must come once, right after the migration it gives the schema of", trimmed)
			}
			m.baselineAt, part = n, "baseline"
			continue
		case trimmed == postgresMarker:
			if len(m.steps) == 0 || part != "sqlite" {
				return m, fmt.Errorf("schema: %q outside a migration", postgresMarker)
			}
			part = "postgres"
			continue
		}
		switch part {
		case "sqlite":
			m.steps[len(m.steps)-1].sql += line
		case "postgres":
			m.steps[len(m.steps)-1].postgres += line
		case "baseline":
			m.baseline += line
		}
	}
	if len(m.steps) == 0 {
		return m, fmt.Errorf("schema: no %q sections", migrationMarker)
	}
	for _, s := range m.steps {
		if m.baselineAt > 0 && s.version > m.baselineAt && strings.TrimSpace(s.postgres) == "" {
			return m, fmt.Errorf("schema: migration %d gives no %q part", s.version, postgresMarker)
		}
	}
	return m, nil
}

// migrate applies every migration newer than the database's user_version, each
// in its own transaction together with the version bump, so a crash leaves the
// database at a whole version and a re-run continues where it stopped.
func migrate(ctx context.Context, db *sql.DB, schema string) error {
	m, err := parseMigrations(schema)
	if err != nil {
		return err
	}
	var current int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if current > len(m.steps) {
		return fmt.Errorf("database schema version %d is newer than this binary's %d", current, len(m.steps))
	}
	for _, step := range m.steps[current:] {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migration %d: %w", step.version, err)
		}
		if _, err := tx.ExecContext(ctx, step.sql); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", step.version, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", step.version)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: set version: %w", step.version, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: commit: %w", step.version, err)
		}
	}
	return nil
}
