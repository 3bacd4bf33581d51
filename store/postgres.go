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

// defaultPostgresConns is a node's pool: PostgreSQL serves each connection
// with a process, so a node keeps a few, not hundreds.
const defaultPostgresConns = 16

// openPostgres opens the store on the PostgreSQL database c.Database,
// migrating it first.
func openPostgres(ctx context.Context, s *Store, c Config) (*Store, error) {
	if _, err := MigratePostgres(ctx, c.Database, c.Schema); err != nil {
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
	s.pg, s.writer, s.reader, s.readers = true, db, db, conns
	// Another node's sign-out must be refused here from the next request:
	// until the nodes tell each other (LISTEN/NOTIFY), the cache is off.
	s.auth.off = true
	if s.eventIDs, err = loadEventIDs(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
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

// beginWrite starts a write transaction. On PostgreSQL it is serializable:
// the store's methods read and then write as if they were alone, as they
// are on SQLite's one writer, and another node's concurrent change makes
// one of the two fail (and be run again, writeOnce) rather than both apply.
func (s *Store) beginWrite(ctx context.Context) (*sql.Tx, error) {
	if s.pg {
		return s.writer.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	}
	return s.writer.BeginTx(ctx, nil)
}

// readOptions are a read transaction's: one snapshot for everything it
// reads (SQLite's read transactions are; PostgreSQL's need repeatable read).
func (s *Store) readOptions() *sql.TxOptions {
	if s.pg {
		return &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	}
	return &sql.TxOptions{ReadOnly: true}
}

// writeAttempts bounds how often a write that lost a race with another
// node's (a serialization failure, a deadlock) is run again.
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
