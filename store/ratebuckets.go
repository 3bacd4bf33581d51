package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"garrison/ratelimit"
)

// Take draws from a rate-limit bucket the nodes share (rate_buckets):
// ratelimit.Shared. Each take locks its bucket's row for a moment, apart
// from the cluster's write lock: a sign-in's bucket never waits for an
// ingest.
func (s *Store) Take(ctx context.Context, name, key string, limit ratelimit.Limit, now time.Time, consume bool) (float64, bool, error) {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, fmt.Errorf("rate bucket: %w", err)
	}
	defer tx.Rollback()
	// A bucket never seen starts full.
	if _, err := tx.ExecContext(ctx, `INSERT INTO rate_buckets (bucket, key, tokens, at, ok) VALUES (?, ?, ?, ?, 1)
		ON CONFLICT (bucket, key) DO NOTHING`, name, key, float64(limit.N), ms(now)); err != nil {
		return 0, false, fmt.Errorf("rate bucket: %w", err)
	}
	lock := ` FOR UPDATE`
	if !s.pg {
		lock = "" // SQLite's one writer holds it already
	}
	var tokens float64
	var at int64
	if err := tx.QueryRowContext(ctx, `SELECT tokens, at FROM rate_buckets WHERE bucket = ? AND key = ?`+lock, name, key).
		Scan(&tokens, &at); err != nil {
		return 0, false, fmt.Errorf("rate bucket: %w", err)
	}
	after, allowed := ratelimit.Refill(limit, tokens, fromMS(at), now, consume)
	if _, err := tx.ExecContext(ctx, `UPDATE rate_buckets SET tokens = ?, at = ?, ok = ? WHERE bucket = ? AND key = ?`,
		after, max(at, ms(now)), allowed, name, key); err != nil {
		return 0, false, fmt.Errorf("rate bucket: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, false, fmt.Errorf("rate bucket: %w", err)
	}
	return after, allowed, nil
}

// sweepRateBuckets drops the shared buckets untouched for a day: full
// again under any limit a server takes (a window is at most a day).
func sweepRateBuckets(ctx context.Context, tx *sql.Tx, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM rate_buckets WHERE at < ?`, ms(now.Add(-24*time.Hour))); err != nil {
		return fmt.Errorf("sweep rate buckets: %w", err)
	}
	return nil
}
