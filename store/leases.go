package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"
)

// RunLease is how long a claimed agent run stays its worker's without a
// renewal. The worker renews it every third of that; a run whose lease
// lapsed (its node killed, or cut off from the database) is queued again
// by RecoverLapsedRuns, and the old worker's result is refused (its claim
// no longer holds).
const RunLease = 15 * time.Second

// newClaim is a claim's token.
func newClaim() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RenewRun extends a running run's lease under its claim; false when the
// run is no longer running under it (cancelled, or taken over).
func (s *Store) RenewRun(ctx context.Context, id, claim string) (bool, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		// From now, inside the lock: not from before its wait.
		r, err := tx.ExecContext(ctx, `UPDATE agent_runs SET lease_until = ? WHERE id = ? AND status = 'running' AND claim = ?`,
			ms(s.now().Add(RunLease)), id, claim)
		if err != nil {
			return fmt.Errorf("renew the run's lease: %w", err)
		}
		n, err = r.RowsAffected()
		return err
	})
	return n == 1, err
}
