package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// PostgreSQL (issue 34, under way): the same store on a PostgreSQL
// database, for nodes that share one. Its queries are SQLite's where the
// SQL is common (pgdriver.go numbers their placeholders); a method whose
// SQL differs asks s.pg. What the SQLite store does for its one file
// (the WAL and its checkpoints, the disk reserve, the auth epoch file)
// PostgreSQL does itself or has no need of.

// IsPostgres says whether a database setting names PostgreSQL (a
// postgres:// or postgresql:// URL) rather than the embedded SQLite file.
func IsPostgres(database string) bool {
	return strings.HasPrefix(database, "postgres://") || strings.HasPrefix(database, "postgresql://")
}

// Engine names the database the store is on: "sqlite" or "postgres".
func (s *Store) Engine() string {
	if s.pg {
		return "postgres"
	}
	return "sqlite"
}

// defaultPostgresConns is a node's pool: PostgreSQL serves each connection
// with a process, so a node keeps a few, not hundreds.
const defaultPostgresConns = 16

// openPostgres opens the store on the PostgreSQL database c.Database,
// migrating it first.
func openPostgres(ctx context.Context, s *Store, c Config) (*Store, error) {
	if c.NoMigrate {
		current, latest, err := PostgresVersion(ctx, c.Database, c.Schema)
		switch {
		case err != nil:
			return nil, err
		case current > latest:
			return nil, fmt.Errorf("%w: it is at migration %d, this release knows %d", ErrSchemaNewer, current, latest)
		case current < latest:
			return nil, fmt.Errorf("%w: it is at migration %d, this release needs %d", ErrSchemaOlder, current, latest)
		}
	} else if _, err := MigratePostgres(ctx, c.Database, c.Schema); err != nil {
		return nil, err
	}
	db, err := sql.Open(PostgresDriver, c.Database)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	conns := defaultPostgresConns
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	s.pg, s.pgURL, s.writer, s.reader, s.readers = true, c.Database, db, db, conns
	s.writeTurn = make(chan struct{}, 1)
	// Another node's sign-out, key revocation or role change retires
	// what this node's auth cache holds (cluster.go).
	s.OnChange(TopicAuth, func() { s.auth.gen.Add(1) })
	if s.eventIDs, err = loadEventIDs(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	s.blocks.shared = true
	if err := s.blocks.load(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.initFold(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if s.settle(ctx) != nil {
		s.fold.unrecovered.Store(true)
	}
	return s, nil
}

// jsonValues selects the values of the JSON array the parameter param
// holds (ints: as integers): SQLite's json_each, PostgreSQL's
// jsonb_array_elements_text.
func (s *Store) jsonValues(param string, ints bool) string {
	if !s.pg {
		return `SELECT value FROM json_each(` + param + `)`
	}
	v := `jsonb_array_elements_text(CAST(` + param + ` AS JSONB))`
	if ints {
		return `SELECT CAST(` + v + ` AS BIGINT)`
	}
	return `SELECT ` + v
}

// readOptions are a read transaction's: one snapshot for everything it
// reads (SQLite's read transactions are; PostgreSQL's need repeatable read).
func (s *Store) readOptions() *sql.TxOptions {
	if s.pg {
		return &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	}
	return &sql.TxOptions{ReadOnly: true}
}

// writeAttempts bounds how often a write that failed only for racing
// another transaction is run again. Writes hold the cluster's write lock
// (pgwrite.go), so none should; a deadlock with a command's own
// transaction, say, still could.
const writeAttempts = 8

// retryable says whether a PostgreSQL write failed only for racing
// another: a serialization failure or a deadlock.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// pgUnavailableReason is why PostgreSQL could not take a write now, or "".
func pgUnavailableReason(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return ""
	}
	switch {
	case pgDiskFull(err):
		return "the database's disk is full"
	case pe.Code == "53300":
		return "the database has no connection to spare"
	case strings.HasPrefix(pe.Code, "08"), pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03":
		return "the database is not reachable"
	}
	return ""
}

// pgDiskFull says whether PostgreSQL refused a write for a full disk.
func pgDiskFull(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "53100"
}

// pgUniqueViolation says whether err is a UNIQUE or PRIMARY KEY constraint
// failure on PostgreSQL.
func pgUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
