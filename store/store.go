// Package store keeps Garrison's data in SQLite. Its API speaks in domain
// types and sentinel errors only, so another database can stand behind the
// same methods later. Every method that touches tenant data takes the
// organization id and scopes its queries by it.
package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is the SQLite implementation. Writes go through one connection, as
// SQLite allows one writer at a time; reads use a pool.
type Store struct {
	writer *sql.DB
	reader *sql.DB
	// eventIDs derives events' ids from their seq (eventid.go).
	eventIDs eventIDs
	// blocks bounds the times of each block of seqs, for text search's
	// pages (eventtext.go).
	blocks timeBlocks
	// textCounts keeps text searches' totals (textcount.go).
	textCounts textCounts
	// scans is the turn of the searches that read every event of their
	// period (eventsearch.go): one at a time, so that no burst of them
	// holds every reader the pages and the health check need.
	scans   chan struct{}
	readers int // the reader pool's size
	now     func() time.Time
	// checkpointer copies the WAL back into the database in the background,
	// so no write request pays for a checkpoint (the writer's automatic
	// checkpoint is off).
	checkpointer *sql.DB
	alerts       alertMemory
	stmts        statements
	recent       recentCounts
	health       atomic.Pointer[probe]
	writeFailure atomic.Pointer[writeFailure] // why writes fail now (writehealth.go)
	path         string
	pending      pendingAuth // logouts a full disk could not write yet
	onReserve    atomic.Bool // the disk filled: the store works on its reserve (reserve.go)
	reserve      bool        // Config.DiskReserve
	auth         authCache
	walLimit     int64
	commits      atomic.Int64 // write transactions committed (Commits)
	fold         fold
	foldEvery    time.Duration
	quota        func(orgBytes int64) int64 // Config.DefaultQuota
	signalled    atomic.Pointer[func()]     // OnAlertSignals
	// pg: the database is PostgreSQL (postgres.go); writer and reader are
	// then one pool, and checkpointer is nil. pgURL is its URL, for the
	// connections that are not the pool's (the leader session, LISTEN).
	pg    bool
	pgURL string
	// node names this process among the cluster's nodes (Config.Node).
	node      string
	bus       clusterBus    // what the nodes tell each other (cluster.go)
	writeTurn chan struct{} // this node's one write waiting for the cluster's write lock (pgwrite.go)
	leaders   leaders       // the tasks this node leads (leader.go)
}

// checkpointInterval is how often the WAL is copied back: often enough that
// it stays small, rarely enough that an idle server does nothing.
const checkpointInterval = 250 * time.Millisecond

// Config is what Open needs: the database's path and the schema's
// migrations; the rest have defaults.
type Config struct {
	Path   string
	Schema string
	// Database is a PostgreSQL URL (postgres://…) for a store on
	// PostgreSQL; empty: the SQLite file at Path.
	Database string
	// Node names this process among the nodes sharing Database, in logs.
	Node string
	// NoMigrate: a PostgreSQL database must be at this release's schema
	// already (garrison migrate brings it there, once for the cluster);
	// else Open refuses it. SQLite files are always migrated.
	NoMigrate bool
	// Now is the wall clock (default time.Now); tests drive time with it.
	Now func() time.Time
	// AlertMemoryLimit is how many burst windows and open-alert
	// fingerprints ingest holds in memory per organization before it drops
	// them and recounts from the database (default 50,000).
	AlertMemoryLimit int
	// WALLimit is the size past which the WAL is started over (default
	// 64 MiB).
	WALLimit int64
	// DiskReserve makes a reserve file beside the database for a full disk
	// to be met on (reserve.go): the server's store does, a command's not.
	DiskReserve bool
	// DefaultQuota is an organization's storage quota in bytes when it has
	// none of its own, given what it stores now (nil: no quota).
	DefaultQuota func(orgBytes int64) int64
	// FoldInterval is how often stored events are folded when nobody reads
	// (default foldInterval); tests that need events left unfolded set it
	// long.
	FoldInterval time.Duration
}

// Open opens (creating if needed) the database at path, applies the
// migrations in schema that are newer than the database, and folds the
// events a crash left unfolded. It starts no goroutine: Maintain does the
// background work, for as long as its caller wants.
func Open(ctx context.Context, c Config) (*Store, error) {
	if c.Now == nil {
		c.Now = time.Now
	}
	s := &Store{now: c.Now, foldEvery: cmp.Or(c.FoldInterval, foldInterval), scans: make(chan struct{}, 1),
		alerts: alertMemory{limit: cmp.Or(c.AlertMemoryLimit, defaultMemoryLimit)}, walLimit: cmp.Or(c.WALLimit, defaultWALLimit)}
	s.auth.init()
	s.quota, s.node = c.DefaultQuota, c.Node
	if IsPostgres(c.Database) {
		return openPostgres(ctx, s, c)
	}
	path, schema := c.Path, c.Schema
	s.path, s.reserve = path, c.DiskReserve
	if s.lowOnSpace() {
		s.releaseReserve() // a server stopped on a full disk starts on its reserve
	}
	// The writer's page cache holds the indexes' working set as the tables
	// grow (at 400,000 events, 32 MiB made seeded ingest 1.45× faster than
	// SQLite's 2 MiB default: bench/suite); an idle server gives it back
	// (ReleaseMemory). The WAL file is cut back to walLimit after each
	// reset.
	writer, err := sql.Open("sqlite", dsn(path, "immediate")+"&_pragma=wal_autocheckpoint(0)"+
		fmt.Sprintf("&_pragma=cache_size(-%d)&_pragma=journal_size_limit(%d)", writerCacheKiB, s.walLimit))
	if err != nil {
		return nil, fmt.Errorf("open writer: %w", err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	if err := migrate(ctx, writer, schema); err != nil {
		writer.Close()
		return nil, err
	}
	if err := renormalizeEmails(ctx, writer); err != nil {
		writer.Close()
		return nil, err
	}
	if s.eventIDs, err = loadEventIDs(ctx, writer); err != nil {
		writer.Close()
		return nil, err
	}
	if err := s.backfillText(ctx, writer); err != nil {
		writer.Close()
		return nil, err
	}
	if err := s.blocks.load(ctx, writer); err != nil {
		writer.Close()
		return nil, err
	}
	// The migrations of a new or upgraded database can leave a WAL file of
	// megabytes that SQLite would reuse rather than shrink: start from an
	// empty one, so the disk the server sees is the disk it has.
	if _, err := writer.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil && !IsUnavailable(err) {
		writer.Close()
		return nil, fmt.Errorf("checkpoint after migrating: %w", err)
	}
	reader, err := sql.Open("sqlite", dsn(path, "deferred")+"&_pragma=query_only(1)")
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("open reader: %w", err)
	}
	readers := max(4, 2*runtime.GOMAXPROCS(0))
	reader.SetMaxOpenConns(readers)
	reader.SetMaxIdleConns(readers)
	s.readers = readers
	checkpointer, err := sql.Open("sqlite", dsn(path, "deferred"))
	if err != nil {
		writer.Close()
		reader.Close()
		return nil, fmt.Errorf("open checkpointer: %w", err)
	}
	checkpointer.SetMaxOpenConns(1)
	checkpointer.SetMaxIdleConns(1)
	s.writer, s.reader, s.checkpointer = writer, reader, checkpointer
	if err := s.initFold(ctx); err != nil {
		errors.Join(writer.Close(), reader.Close(), checkpointer.Close())
		return nil, err
	}
	// What a crash left unfolded is folded now. On a full disk it cannot
	// be: the store opens all the same (reads are exact without the fold),
	// Maintain retries, and ingest folds it first.
	if s.settle(ctx) != nil {
		s.fold.unrecovered.Store(true)
	}
	if err := s.auth.open(path); err != nil {
		errors.Join(writer.Close(), reader.Close(), checkpointer.Close())
		return nil, err
	}
	if c.DiskReserve && !s.OnReserve() {
		if err := s.keepReserve(nil); err != nil {
			errors.Join(writer.Close(), reader.Close(), checkpointer.Close(), s.auth.close())
			return nil, err
		}
	}
	return s, nil
}

// Maintain folds stored events into the rollups and copies the WAL back
// into the database, in the background, until ctx is done. A fold that
// fails (a full disk) is logged and retried; reads are exact meanwhile.
func (s *Store) Maintain(ctx context.Context, log *slog.Logger) {
	var wg sync.WaitGroup
	if !s.pg {
		wg.Go(func() { s.checkpointLoop(ctx) })
	} else {
		wg.Go(func() { s.listen(ctx, log) })
		wg.Go(func() { s.leaders.watch(ctx, log) })
	}
	// One node folds; reads are exact whoever does.
	wg.Go(func() { s.Lead(ctx, "fold", log, func(ctx context.Context) { s.foldLoop(ctx, log) }) })
	wg.Go(func() { s.probeLoop(ctx, log) })
	wg.Wait()
}

// Checkpoint keeps the WAL short until ctx ends, as Maintain does: for a
// command (an intelligence import) that writes much without the server's
// loops, so its writes are not all copied again when it closes.
func (s *Store) Checkpoint(ctx context.Context) {
	if !s.pg {
		s.checkpointLoop(ctx)
	}
}

// probeEvery is how often Maintain checks that the database answers.
const probeEvery = time.Second

// probeLoop keeps Healthy's answer: a read of the database, every second.
func (s *Store) probeLoop(ctx context.Context, log *slog.Logger) {
	t := time.NewTicker(probeEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if was, err := s.Healthy(), s.probe(ctx); ctx.Err() == nil {
			if err != nil && was == nil {
				log.Error("the database stopped answering", "err", err)
			} else if err == nil && was != nil {
				log.Info("the database answers again")
			}
		}
		s.probeWrite(ctx, log)
		if was := s.OnReserve(); !s.pg && (was || s.writeFailure.Load() != nil) {
			if err := s.keepReserve(log); err != nil {
				log.Warn("disk reserve", "err", err)
			}
			if !was && s.OnReserve() {
				log.Error("the disk is full: the store let its reserve go, for sign-ins, logouts and alert work; events and imports are refused until space is freed")
			}
		}
		if err := s.flushPendingAuth(ctx); err == nil && ctx.Err() == nil {
			continue
		}
	}
}

// probe reads from the database and records the answer for Healthy.
func (s *Store) probe(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, 2*probeEvery)
	defer cancel()
	var one int
	err := s.reads().QueryRowContext(pctx, `SELECT 1`).Scan(&one)
	if ctx.Err() == nil {
		s.health.Store(&probe{err})
	}
	return err
}

type probe struct{ err error }

// Healthy is the last probe's answer: nil when the database answered.
// A store that is open and not yet probed answered Open.
func (s *Store) Healthy() error {
	if p := s.health.Load(); p != nil {
		return p.err
	}
	return nil
}

func (s *Store) checkpointLoop(ctx context.Context) {
	t := time.NewTicker(checkpointInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// On the disk's reserve the WAL is not copied back: the copy
			// grows the database by what the WAL holds, which would eat the
			// reserve sign-ins need.
			if s.OnReserve() {
				continue
			}
			// PASSIVE never blocks the writer or readers; what it cannot
			// copy now it copies next time.
			var busy, frames, copied int64
			err := s.checkpointer.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
			if spaceReason(err) {
				s.noteWrite(ctx, err) // copying the WAL back needs room too
			}
			// Under constant ingest this checkpoint never catches the writer,
			// and the WAL (which every page read searches) would grow
			// without end.
			if err == nil && frames*pageSize > s.walLimit {
				s.restartWAL(ctx)
			}
		}
	}
}

// ReleaseMemory closes the idle database connections and drops the alert
// memory, for a server that has gone idle (memory.Trimmer decides when):
// an appliance that ingested a burst at noon should not hold what that
// burst warmed all night. Closing a connection gives back all it holds
// (page cache, parsed schema, prepared statements), where shrinking its
// cache left SQLite's allocations spread over pages it cannot return. The
// next query opens a connection again (about a millisecond); one in use
// now stays open. The next ingest recounts from the events what it needs,
// as after a restart.
func (s *Store) ReleaseMemory() {
	s.alerts.release()
	if s.pg { // PostgreSQL's memory is its own processes'
		return
	}
	s.writer.SetMaxIdleConns(0)
	s.writer.SetMaxIdleConns(1)
	s.checkpointer.SetMaxIdleConns(0)
	s.checkpointer.SetMaxIdleConns(1)
	s.reader.SetMaxIdleConns(0)
	s.reader.SetMaxIdleConns(s.readers)
}

// restartWAL has the writer's own connection, taken between two
// transactions, copy back what is left of the WAL and wait a moment for
// readers to move off it, so that the next write starts it over from the
// beginning. The wait is short: a reader that keeps it from finishing is
// waited out on the next round instead, so writes never stall for long.
func (s *Store) restartWAL(ctx context.Context) {
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, restartWait.Milliseconds())); err != nil {
		return
	}
	conn.ExecContext(ctx, `PRAGMA wal_checkpoint(RESTART)`)
	conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA busy_timeout = %d`, busyTimeout.Milliseconds()))
}

// restartWait bounds how long the writer waits for readers to leave the WAL.
const restartWait = 50 * time.Millisecond

// busyTimeout is how long a connection waits for a lock before it fails.
const busyTimeout = 10 * time.Second

// The WAL's default bound, and what it is measured in.
const (
	defaultWALLimit = 64 << 20
	pageSize        = 4096 // SQLite's default, which Garrison keeps
	writerCacheKiB  = 32 << 10
)

func dsn(path, txlock string) string {
	q := url.Values{}
	q.Set("_txlock", txlock)
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Close folds what is left, copies the WAL back one last time and closes
// the pools. Maintain must have returned.
func (s *Store) Close() error {
	foldErr := s.settle(context.Background())
	if err := s.flushPendingAuth(context.Background()); err != nil {
		foldErr = errors.Join(foldErr, fmt.Errorf("logouts held in memory are lost: %w", err))
	}
	if s.pg {
		s.closeStatements()
		return errors.Join(foldErr, s.writer.Close())
	}
	_, err := s.checkpointer.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	if err != nil {
		err = fmt.Errorf("final checkpoint: %w", err)
	}
	s.closeStatements()
	return errors.Join(foldErr, err, s.checkpointer.Close(), s.reader.Close(), s.writer.Close(), s.auth.close())
}

// write runs fn in one write transaction: the unit every store method builds on,
// so helpers taking a *sql.Tx compose into one atomic change.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	err := s.writeOnce(ctx, fn)
	s.noteWrite(ctx, err)
	return unavailable(err)
}

func (s *Store) writeOnce(ctx context.Context, fn func(tx *sql.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := s.writeTx(ctx, fn)
		// A PostgreSQL write that failed only for racing another
		// transaction (a deadlock) is run again: fn reads afresh.
		if !s.pg || !retryable(err) || attempt == writeAttempts || ctx.Err() != nil {
			return err
		}
	}
}

func (s *Store) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.pg {
		return s.pgWriteTx(ctx, fn)
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	return s.runTx(tx, err, fn)
}

// runTx runs fn in the transaction tx (whose begin gave err), committing
// it when fn succeeds and counting the commit.
func (s *Store) runTx(tx *sql.Tx, err error, fn func(tx *sql.Tx) error) error {
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	s.commits.Add(1)
	return nil
}

// Commits counts the write transactions this store committed: a reader
// keeping a view of the data sees by it whether anything changed since.
func (s *Store) Commits() int64 { return s.commits.Load() }

// LimitPages caps the database's size at its pages now plus extra (0:
// lifts the cap): a full disk, for tests of what the server does then.
// The cap is the writer connection's: an idle release (ReleaseMemory),
// which closes that connection, lifts it.
func (s *Store) LimitPages(ctx context.Context, extra int) error {
	var pages int
	if err := s.writer.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return err
	}
	limit := pages + extra
	if extra == 0 {
		limit = 1 << 30
	}
	_, err := s.writer.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, limit))
	return err
}

// read runs fn in one read-only transaction, so everything it reads comes
// from the same snapshot; its queries use the prepared statements.
func (s *Store) read(ctx context.Context, fn func(q querier) error) error {
	tx, err := s.reader.BeginTx(ctx, s.readOptions())
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback() // for a panic in fn; a second Rollback does nothing
	rtx := &readTx{tx: tx, s: s}
	err = fn(rtx)
	tx.Rollback()
	// Now that its connection is back in the pool, what the transaction
	// ran unprepared is prepared for next time.
	for _, q := range rtx.missed {
		if _, ok := s.cached(q); !ok && ctx.Err() == nil {
			s.prepare(ctx, q)
		}
	}
	return err
}

// reads is the read pool through the prepared statements.
func (s *Store) reads() readPool { return readPool{s} }

// ms converts a time to the stored unix-millisecond form.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMS converts a stored unix-millisecond value to UTC time.
func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// nullMS maps an optional time to a nullable column.
func nullMS(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// optMS maps a nullable column to an optional time.
func optMS(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}

// DB exposes the read pool for checks of what is stored (tests, diagnostics).
func (s *Store) DB() *sql.DB { return s.reader }

// pageQuery is a list endpoint's two queries: the count of all matching rows
// and one page of them (its last two parameters are LIMIT and OFFSET).
type pageQuery struct {
	what  string // for errors: "runs", "tickets", ...
	count string
	list  string
	args  []any
}

// readPage runs a pageQuery in one read snapshot, so the page and its total
// agree, scanning each row with scan.
func readPage[T any](ctx context.Context, s *Store, q pageQuery, p Page, scan func(*sql.Rows) (T, error)) ([]T, int, error) {
	var out []T
	var total int
	err := s.read(ctx, func(tx querier) error {
		if err := tx.QueryRowContext(ctx, q.count, q.args...).Scan(&total); err != nil {
			return fmt.Errorf("count %s: %w", q.what, err)
		}
		rows, err := tx.QueryContext(ctx, q.list, append(q.args, p.Limit, p.Offset)...)
		if err != nil {
			return fmt.Errorf("list %s: %w", q.what, err)
		}
		defer rows.Close()
		for rows.Next() {
			item, err := scan(rows)
			if err != nil {
				return fmt.Errorf("list %s: %w", q.what, err)
			}
			out = append(out, item)
		}
		return rows.Err()
	})
	return out, total, err
}

// queryAll runs a query on q and scans every row with scan.
func queryAll[T any](ctx context.Context, q querier, what, query string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// scanString reads a one-column row.
func scanString(rows *sql.Rows) (string, error) {
	var s string
	err := rows.Scan(&s)
	return s, err
}

// Backup writes a consistent copy of the database to path (which must not
// exist) while the store keeps serving: SQLite's VACUUM INTO reads one
// snapshot, so writes during it neither block nor tear the copy.
func (s *Store) Backup(ctx context.Context, path string) error {
	// VACUUM INTO fills an empty file: creating it first makes the copy
	// private (0600) from its first byte, whatever the umask.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("back up the database: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("back up the database: %w", err)
	}
	// The checkpointer's connection can write (the readers are query-only);
	// checkpoints wait while the snapshot is read.
	if _, err := s.checkpointer.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("back up the database: %w", err)
	}
	return nil
}

// FoldLag is how many stored events the fold has not counted yet.
func (s *Store) FoldLag(ctx context.Context) (int64, error) {
	var lag int64
	err := s.reads().QueryRowContext(ctx, `SELECT MAX(0, COALESCE((SELECT MAX(seq) FROM events), 0) - (SELECT events_seq FROM fold_state))`).Scan(&lag)
	if err != nil {
		return 0, fmt.Errorf("fold lag: %w", err)
	}
	return lag, nil
}
