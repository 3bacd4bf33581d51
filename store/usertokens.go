package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// issueUserToken stores a reset or verification token, voiding the user's
// earlier unused tokens of the same purpose, and queues its mail.
func issueUserToken(ctx context.Context, tx *sql.Tx, userID string, t UserToken, m Mail, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `UPDATE user_tokens SET used_at = ? WHERE user_id = ? AND purpose = ? AND used_at IS NULL`,
		ms(now), userID, t.Purpose); err != nil {
		return fmt.Errorf("void older %s tokens: %w", t.Purpose, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO user_tokens (hash, user_id, purpose, expires_at, created_at) VALUES (?, ?, ?, ?, ?)`,
		t.Hash, userID, t.Purpose, ms(t.ExpiresAt), ms(now)); err != nil {
		return fmt.Errorf("store %s token: %w", t.Purpose, err)
	}
	return queueMail(ctx, tx, m, now)
}

// consumeUserToken marks a valid token used and returns its user id.
func consumeUserToken(ctx context.Context, tx *sql.Tx, hash []byte, purpose string, now time.Time) (string, error) {
	var userID string
	err := tx.QueryRowContext(ctx, `UPDATE user_tokens SET used_at = ?
		WHERE hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id`,
		ms(now), hash, purpose, ms(now)).Scan(&userID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrInvalidToken
	}
	if err != nil {
		return "", fmt.Errorf("consume %s token: %w", purpose, err)
	}
	return userID, nil
}

// UserTokenValid reports whether a token can still be spent, so callers can
// refuse a bad one before doing expensive work.
func (s *Store) UserTokenValid(ctx context.Context, hash []byte, purpose string) (bool, error) {
	var ok bool
	err := s.reads().QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM user_tokens
		WHERE hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?)`, hash, purpose, ms(s.now())).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("check %s token: %w", purpose, err)
	}
	return ok, nil
}

// ResetPassword spends a reset token: sets the new password hash and bumps
// token_version so every earlier session ends.
func (s *Store) ResetPassword(ctx context.Context, tokenHash []byte, passwordHash string) (User, error) {
	var userID string
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		var err error
		if userID, err = consumeUserToken(ctx, tx, tokenHash, PurposeReset, s.now()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ?, token_version = token_version + 1 WHERE id = ?`, passwordHash, userID)
		return expectOne(res, err, "reset password")
	})
	if err != nil {
		return User{}, err
	}
	return s.UserByID(ctx, userID)
}

// VerifyEmail spends a verification token and marks the address confirmed.
func (s *Store) VerifyEmail(ctx context.Context, tokenHash []byte) (User, error) {
	var userID string
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		var err error
		now := s.now()
		if userID, err = consumeUserToken(ctx, tx, tokenHash, PurposeVerify, now); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE users SET email_verified_at = COALESCE(email_verified_at, ?) WHERE id = ?`, ms(now), userID)
		return expectOne(res, err, "verify e-mail")
	})
	if err != nil {
		return User{}, err
	}
	return s.UserByID(ctx, userID)
}

// PurgeExpired deletes denylist entries and one-time tokens that can no
// longer matter because they have expired.
func (s *Store) PurgeExpired(ctx context.Context) error {
	now := ms(s.now())
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM revoked_tokens WHERE expires_at <= ?`, now); err != nil {
			return fmt.Errorf("purge revoked tokens: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM user_tokens WHERE expires_at <= ?`, now); err != nil {
			return fmt.Errorf("purge user tokens: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM email_claims WHERE expires_at <= ?`, now); err != nil {
			return fmt.Errorf("purge e-mail claims: %w", err)
		}
		if err := sweepRateBuckets(ctx, tx, s.now()); err != nil {
			return err
		}
		if s.pg {
			return nil // PostgreSQL's autovacuum keeps its statistics
		}
		// Keep the query planner's statistics current (cheap when nothing changed).
		if _, err := tx.ExecContext(ctx, `PRAGMA optimize`); err != nil {
			return fmt.Errorf("optimize: %w", err)
		}
		return nil
	})
}

// IssueResetToken stores a password-setting token for a user and queues its
// mail (a CLI-made admin's first password).
func (s *Store) IssueResetToken(ctx context.Context, userID string, t UserToken, m Mail) error {
	return s.write(ctx, func(tx *sql.Tx) error { return issueUserToken(ctx, tx, userID, t, m, s.now()) })
}
