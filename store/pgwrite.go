package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"
)

// writeLock is the advisory lock every write transaction on PostgreSQL
// holds, whichever node runs it ("GWRT"). The store's methods were written
// for SQLite's one writer: they read, decide and write as if alone, and
// event seqs are handed out in commit order (the fold, the text index and
// the time blocks rely on it). Holding one lock across the cluster keeps
// both true without a serialization failure to retry, at the cost of
// writes going one at a time: a cluster writes as fast as its database
// does, which is where its limit is (docs/architecture.md).
const writeLock = 0x47575254

// unlockWait bounds giving the write lock back; past it the connection is
// dropped, which gives it back as well.
const unlockWait = 5 * time.Second

// writeAlone is write for a change that is one statement on one row whose
// outcome reads nothing else (a delivery's attempt recorded): on
// PostgreSQL it does not wait for the cluster's write lock, as nothing it
// does depends on another write's order.
func (s *Store) writeAlone(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if !s.pg {
		return s.write(ctx, fn)
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	return unavailable(s.runTx(tx, err, fn))
}

// pgWriteTx runs fn in one write transaction holding the cluster's write
// lock. The lock is a session lock taken before the transaction begins,
// so the transaction's snapshot holds every write committed before it.
func (s *Store) pgWriteTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	// One write of this node waits for the lock at a time, on one
	// connection: the others wait here, leaving the pool to reads, the
	// health probe and the rate buckets while another node writes.
	select {
	case s.writeTurn <- struct{}{}:
		defer func() { <-s.writeTurn }()
	case <-ctx.Done():
		return fmt.Errorf("begin: %w", ctx.Err())
	}
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(?)`, writeLock); err != nil {
		return fmt.Errorf("begin: take the write lock: %w", err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockWait)
		defer cancel()
		if _, err := conn.ExecContext(uctx, `SELECT pg_advisory_unlock(?)`, writeLock); err != nil {
			// A session that may still hold the lock must not go back to
			// the pool: ending it is what gives the lock back.
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	return s.runTx(tx, err, fn)
}

// unavailable marks an error of a database that cannot take writes now as
// ErrUnavailable, as write does.
func unavailable(err error) error {
	if unavailableReason(err) != "" {
		return errors.Join(ErrUnavailable, err)
	}
	return err
}
