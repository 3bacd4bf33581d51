package mail

import (
	"context"
	"errors"
	"time"

	"garrison/credential"
	"garrison/store"
)

// ResetTokenTTL is how long a password-reset link works.
const ResetTokenTTL = time.Hour

// resetBatch is how many queued reset requests one round takes.
const resetBatch = 50

// ProcessResetRequests turns queued reset requests into tokens and mails;
// Run does it before each delivery round.
// The request itself only queues, so it answers the same, in the same
// time, whether or not the address has an account.
func (m *Mailer) ProcessResetRequests(ctx context.Context) error {
	for {
		reqs, err := m.store.ResetRequests(ctx, resetBatch)
		if err != nil || len(reqs) == 0 {
			return err
		}
		for _, req := range reqs {
			var t store.UserToken
			var msg store.Mail
			u, err := m.store.UserByEmail(ctx, req.Email)
			switch {
			case err == nil:
				token, hash := credential.NewToken()
				t = store.UserToken{Hash: hash, Purpose: store.PurposeReset, ExpiresAt: m.now().Add(ResetTokenTTL)}
				msg = m.Reset(u.Email, token)
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
			if err := m.store.CompleteResetRequest(ctx, req.ID, u.ID, t, msg); err != nil {
				return err
			}
		}
	}
}
