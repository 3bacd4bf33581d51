package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"garrison/fault"
	"garrison/valid"
)

// An address held by an unconfirmed account that another organization's
// invitation made does not block its owner: an invitation's token is shown
// to whoever invited, so such an account proves nothing about the mailbox.
// The owner's registration becomes a claim, confirmed through the mailbox;
// confirming it takes the address over: the holder is removed (its
// sessions end with it) and the owner's account is made, confirmed.

// EmailClaim is a registration waiting for its mailbox to confirm it.
type EmailClaim struct {
	ID        string
	Email     string
	ExpiresAt time.Time
}

// claimsPerAddress bounds the claims pending on one address: a new one
// drops the oldest, so whoever retries last (the owner, reading the mail)
// has a link that works.
const claimsPerAddress = 5

// ErrClaimTaken: the claimed address was confirmed by its holder, or given
// to another claim, before this claim was confirmed.
var ErrClaimTaken = fault.New(fault.Conflict, "This e-mail address has a confirmed Garrison account now: sign in to it, "+
	"or ask its organization's admin")

// claimableHolder is the unconfirmed, invitation-made account holding an
// address, when one does and it is not in inviteOrg (an organization may
// not re-invite its own member through a claim): "" when the address is
// free or its holder is confirmed, made by sign-up or the operator, or of
// inviteOrg.
func claimableHolder(ctx context.Context, q querier, email, inviteOrg string) (userID, orgID string, err error) {
	err = q.QueryRowContext(ctx, `SELECT id, org_id FROM users WHERE email = ? AND email_verified_at IS NULL
		AND origin IN (?, ?) AND org_id <> ?`, valid.NormalEmail(email), OriginInvite, OriginKeyInvite, inviteOrg).Scan(&userID, &orgID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("address holder: %w", err)
	}
	return userID, orgID, nil
}

// ClaimEmail records a registration for an address an unconfirmed
// invitation-made account holds (ErrEmailTaken when none does), with
// a.Verify as its confirmation token, and queues a.VerifyMail.
func (s *Store) ClaimEmail(ctx context.Context, a NewAccount) (EmailClaim, error) {
	now := s.now()
	c := EmailClaim{ID: NewID("clm", now), Email: valid.NormalEmail(a.Email), ExpiresAt: a.Verify.ExpiresAt}
	err := s.write(ctx, func(tx *sql.Tx) error {
		inviteOrg, err := inviteOrgOf(ctx, tx, a.InviteHash, c.Email, now)
		if err != nil {
			return err
		}
		holder, _, err := claimableHolder(ctx, tx, c.Email, inviteOrg)
		if err != nil {
			return err
		}
		if holder == "" {
			return ErrEmailTaken
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM email_claims WHERE id IN (SELECT id FROM email_claims WHERE email = ?
			ORDER BY created_at DESC, rowid DESC LIMIT 9223372036854775807 OFFSET ?)`, c.Email, claimsPerAddress-1); err != nil {
			return fmt.Errorf("drop older claims: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO email_claims (id, email, name, password_hash, org_name, plan, invite_hash, token_hash,
			expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, c.ID, c.Email, a.Name, a.PasswordHash, a.OrgName, a.Plan,
			a.InviteHash, a.Verify.Hash, ms(a.Verify.ExpiresAt), ms(now)); err != nil {
			return fmt.Errorf("store claim: %w", err)
		}
		return queueMail(ctx, tx, a.VerifyMail, now)
	})
	return c, err
}

// inviteOrgOf is the organization of a usable invite for email ("" without
// an invite); a bad invite is ErrInvalidToken.
func inviteOrgOf(ctx context.Context, tx *sql.Tx, inviteHash []byte, email string, now time.Time) (string, error) {
	if inviteHash == nil {
		return "", nil
	}
	var orgID string
	err := tx.QueryRowContext(ctx, `SELECT org_id FROM invites WHERE token_hash = ? AND email = ? AND accepted_at IS NULL AND expires_at > ?`,
		inviteHash, email, ms(now)).Scan(&orgID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrInvalidToken
	}
	if err != nil {
		return "", fmt.Errorf("find invite: %w", err)
	}
	return orgID, nil
}

// Displaced is the unconfirmed account a confirmed claim removed.
type Displaced struct{ UserID, OrgID string }

// ConfirmClaim takes the address of a claim whose token the mailbox sent
// back, in one transaction: the unconfirmed holder is removed (its sessions
// end with it) and the claim's account is made, confirmed; every claim on
// the address closes. ErrInvalidToken when no live claim has the token,
// ErrClaimTaken when the address has a confirmed account now.
func (s *Store) ConfirmClaim(ctx context.Context, tokenHash []byte) (User, *Displaced, error) {
	var userID string
	var displaced *Displaced
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		now := s.now()
		var a NewAccount
		var expires int64
		err := tx.QueryRowContext(ctx, `SELECT email, name, password_hash, org_name, plan, invite_hash, expires_at FROM email_claims
			WHERE token_hash = ?`, tokenHash).Scan(&a.Email, &a.Name, &a.PasswordHash, &a.OrgName, &a.Plan, &a.InviteHash, &expires)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && expires <= ms(now)) {
			return ErrInvalidToken
		}
		if err != nil {
			return fmt.Errorf("find claim: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM email_claims WHERE email = ?`, a.Email); err != nil {
			return fmt.Errorf("close claims: %w", err)
		}
		inviteOrg, err := inviteOrgOf(ctx, tx, a.InviteHash, a.Email, now)
		if err != nil {
			return err
		}
		holder, holderOrg, err := claimableHolder(ctx, tx, a.Email, inviteOrg)
		if err != nil {
			return err
		}
		if holder != "" {
			if _, err := tx.ExecContext(ctx, `DELETE FROM users WHERE id = ?`, holder); err != nil {
				return fmt.Errorf("remove the address's holder: %w", err)
			}
			displaced = &Displaced{UserID: holder, OrgID: holderOrg}
		}
		confirmed := ms(now)
		userID, err = register(ctx, tx, a, &confirmed, now)
		if errors.Is(err, ErrEmailTaken) {
			return ErrClaimTaken
		}
		return err
	})
	if err != nil {
		return User{}, nil, err
	}
	u, err := s.UserByID(ctx, userID)
	return u, displaced, err
}
