package store

import (
	"context"
	"database/sql"
	"log/slog"
)

// Health says a write failed, background ones included (the fold, the
// retention, the mailer, the WAL's checkpoint), until writes work again.
// A write that succeeds on a full disk proves little: one that only
// rewrites a page, or reuses a freed one, fits where a batch of events does
// not. So a failure for want of space is cleared only by a successful
// write with room left beside it: the file system and the database's page
// limit both have at least writeRoom free.

// noteWrite records a write's outcome for health: a failure for want of
// space or a lock is kept; a success clears it, once there is room.
func (s *Store) noteWrite(ctx context.Context, err error) {
	if reason := unavailableReason(err); reason != "" {
		s.writeFailure.Store(&writeFailure{reason: reason, space: spaceReason(err)})
		if spaceReason(err) {
			s.releaseReserve()
		}
		return
	}
	if err != nil {
		return
	}
	f := s.writeFailure.Load()
	if f == nil || (f.space && (s.OnReserve() || !s.hasRoom(ctx))) {
		return
	}
	s.writeFailure.CompareAndSwap(f, nil)
}

type writeFailure struct {
	reason string
	space  bool // the disk is full, or its storage failed: clear only with room
}

// hasRoom reports whether the data directory's file system and the
// database's page limit both have the headroom free (reserve.go).
func (s *Store) hasRoom(ctx context.Context) bool {
	free, _, headroom, err := s.room()
	if err != nil || free < headroom {
		return false
	}
	var pages, limit, size int64
	err = s.writer.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count()), (SELECT max_page_count FROM pragma_max_page_count()),
		(SELECT page_size FROM pragma_page_size())`).Scan(&pages, &limit, &size)
	return err == nil && (limit-pages)*size >= headroom
}

// WriteFailure says why writes fail now ("" when they work): a full disk,
// a storage that failed to write, or a database locked past the busy
// timeout.
func (s *Store) WriteFailure() string {
	if f := s.writeFailure.Load(); f != nil {
		return f.reason
	}
	if s.OnReserve() {
		return "the disk is full"
	}
	return ""
}

// probeWrite, while writes fail, tries an empty write: when space comes
// back (or the lock goes), the server says so without waiting for a
// client's write.
func (s *Store) probeWrite(ctx context.Context, log *slog.Logger) {
	f := s.writeFailure.Load()
	if f == nil {
		return
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE fold_state SET events_seq = events_seq`)
		return err
	})
	if err == nil && s.writeFailure.Load() == nil {
		log.Info("the database takes writes again", "after", f.reason)
	}
}
