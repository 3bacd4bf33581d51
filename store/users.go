package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"garrison/actor"
	"garrison/valid"
)

// NewAccount is what registration needs.
type NewAccount struct {
	Email        string
	Name         string
	PasswordHash string
	OrgName      string // used when no invite is given
	Plan         string // plan of a new organization
	InviteHash   []byte // joins the invite's organization instead, with its role
	// Origin is how the account came to be without an invite (OriginSignup
	// or OriginOperator); an invite's account is OriginInvite, or
	// OriginKeyInvite when an API key made the invitation.
	Origin     string
	Verify     UserToken
	VerifyMail Mail
}

// userColumns are a user as a member of one organization (m, a
// membership, or memberReach's row) in it (o); userFrom joins them by
// membership.
const userColumns = `u.id, o.id, o.name, ` + planInForce + `, u.email, u.name, m.role, u.password_hash,
	u.token_version, u.email_verified_at, u.created_at, m.origin, o.kind, COALESCE(o.provider_id, '')`

const userFrom = ` FROM users u JOIN memberships m ON m.user_id = u.id JOIN orgs o ON o.id = m.org_id`

func scanUser(row interface{ Scan(...any) error }, extra ...any) (User, error) {
	var u User
	var verified sql.NullInt64
	var created int64
	dest := append([]any{&u.ID, &u.OrgID, &u.OrgName, &u.Plan, &u.Email, &u.Name, &u.Role,
		&u.PasswordHash, &u.TokenVersion, &verified, &created, &u.Origin, &u.OrgKind, &u.ProviderID}, extra...)
	if err := row.Scan(dest...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return User{}, ErrNotFound
		}
		return User{}, err
	}
	u.EmailVerifiedAt = optMS(verified)
	u.CreatedAt = fromMS(created)
	return u, nil
}

// Register creates a user. Without an invite it also creates the organization,
// whose first user is its admin. The verification token and its mail are
// written in the same transaction. A taken e-mail is ErrEmailTaken; a bad
// invite is ErrInvalidToken.
func (s *Store) Register(ctx context.Context, a NewAccount) (User, error) {
	var userID string
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		userID, err = register(ctx, tx, a, nil, s.now())
		return err
	})
	if err != nil {
		return User{}, err
	}
	return s.UserByID(ctx, userID)
}

// register creates the account in tx: a user confirmed at confirmedAt (nil:
// unconfirmed, with a verification token issued), in the invite's
// organization or a new one.
func register(ctx context.Context, tx *sql.Tx, a NewAccount, confirmedAt *int64, now time.Time) (string, error) {
	email := valid.NormalEmail(a.Email)
	var exists bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM users WHERE email = ?)`, email).Scan(&exists); err != nil {
		return "", fmt.Errorf("check e-mail: %w", err)
	}
	if exists {
		return "", ErrEmailTaken
	}
	orgID, role, origin := "", actor.RoleAdmin, cmp.Or(a.Origin, OriginSignup)
	if a.InviteHash != nil {
		var inviteID, inviteEmail string
		var byKey sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT id, org_id, email, role, invited_by_key FROM invites
			WHERE token_hash = ? AND accepted_at IS NULL AND expires_at > ?`, a.InviteHash, ms(now)).
			Scan(&inviteID, &orgID, &inviteEmail, &role, &byKey)
		origin = OriginInvite
		if byKey.Valid {
			origin = OriginKeyInvite
		}
		if errors.Is(err, sql.ErrNoRows) || (err == nil && inviteEmail != email) {
			return "", ErrInvalidToken
		}
		if err != nil {
			return "", fmt.Errorf("find invite: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE invites SET accepted_at = ? WHERE id = ?`, ms(now), inviteID); err != nil {
			return "", fmt.Errorf("accept invite: %w", err)
		}
	} else {
		orgID = NewID("org", now)
		if _, err := tx.ExecContext(ctx, `INSERT INTO orgs (id, name, plan, created_at) VALUES (?, ?, ?, ?)`,
			orgID, a.OrgName, a.Plan, ms(now)); err != nil {
			return "", fmt.Errorf("create organization: %w", err)
		}
		if err := seedNotifications(ctx, tx, orgID, now); err != nil {
			return "", err
		}
	}
	userID := NewID("usr", now)
	if _, err := tx.ExecContext(ctx, `INSERT INTO users (id, org_id, email, name, password_hash, created_at, origin, email_verified_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, userID, orgID, email, a.Name, a.PasswordHash, ms(now), origin, confirmedAt); err != nil {
		if isUniqueViolation(err) {
			return "", ErrEmailTaken
		}
		return "", fmt.Errorf("create user: %w", err)
	}
	if err := addMembership(ctx, tx, userID, orgID, role, origin, now); err != nil {
		return "", err
	}
	if confirmedAt != nil {
		return userID, nil
	}
	return userID, issueUserToken(ctx, tx, userID, a.Verify, a.VerifyMail, now)
}

// UserByID returns a user as a member of their home organization (the one
// the account was made in), with its name and plan.
func (s *Store) UserByID(ctx context.Context, id string) (User, error) {
	row := s.reads().QueryRowContext(ctx, `SELECT `+userColumns+userFrom+` WHERE u.id = ? AND m.org_id = u.org_id`, id)
	u, err := scanUser(row)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return User{}, fmt.Errorf("user by id: %w", err)
	}
	return s.pending.apply(u), err
}

// UserByEmail returns the user with that address, as a member of their
// home organization.
func (s *Store) UserByEmail(ctx context.Context, email string) (User, error) {
	row := s.reads().QueryRowContext(ctx, `SELECT `+userColumns+userFrom+` WHERE u.email = ? AND m.org_id = u.org_id`, valid.NormalEmail(email))
	u, err := scanUser(row)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return User{}, fmt.Errorf("user by e-mail: %w", err)
	}
	return s.pending.apply(u), err
}

// SessionUser loads the user behind a session token acting in orgID (the
// token's active organization, which they must still reach: ErrNotFound
// otherwise) and whether the token's jti was logged out, in one query: it
// runs on every JWT request.
func (s *Store) SessionUser(ctx context.Context, userID, orgID, jti string) (User, bool, error) {
	gen := s.auth.current()
	key := sessionKey{userID, orgID, jti}
	if f, ok := s.auth.session(key, gen); ok {
		return s.pending.apply(f.user), f.revoked || s.pending.isRevoked(jti), nil
	}
	var revoked bool
	var via string
	row := s.reads().QueryRowContext(ctx, memberReach+`SELECT `+userColumns+`, m.via,
		EXISTS(SELECT 1 FROM revoked_tokens WHERE jti = ?3)
		FROM users u JOIN orgs o ON o.id = ?2 CROSS JOIN m WHERE u.id = ?1`, userID, orgID, jti)
	u, err := scanUser(row, &via, &revoked)
	u.Via = via
	if err != nil && !errors.Is(err, ErrNotFound) {
		return User{}, false, fmt.Errorf("session user: %w", err)
	}
	if err == nil {
		s.auth.putSession(key, sessionFacts{gen, u, revoked})
	}
	return s.pending.apply(u), revoked || s.pending.isRevoked(jti), err
}

// SetPassword replaces a user's password hash. With endSessions it also bumps
// token_version, rejecting every session token issued before.
func (s *Store) SetPassword(ctx context.Context, userID, hash string, endSessions bool) error {
	bump := 0
	if endSessions {
		bump = 1
	}
	return s.writeAuth(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ?, token_version = token_version + ? WHERE id = ?`, hash, bump, userID)
		return expectOne(res, err, "set password")
	})
}

// EndSessions bumps token_version: every earlier session token is rejected.
// On a full disk it takes effect in memory at once (pendingauth.go).
func (s *Store) EndSessions(ctx context.Context, userID string) error {
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET token_version = token_version + 1 WHERE id = ?`, userID)
		return expectOne(res, err, "end sessions")
	})
	if !IsUnavailable(err) {
		return err
	}
	u, readErr := s.UserByID(ctx, userID)
	if readErr != nil {
		return errors.Join(err, readErr)
	}
	s.pending.end(userID, u.TokenVersion+1)
	return nil
}

// RevokeSession denylists one session token until it would have expired;
// on a full disk it takes effect in memory at once (pendingauth.go).
// A token revoked already is ErrSessionEnded, so two concurrent refreshes of one
// token cannot both succeed.
func (s *Store) RevokeSession(ctx context.Context, jti string, expires time.Time) error {
	if s.pending.isRevoked(jti) {
		return ErrSessionEnded
	}
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO revoked_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING`, jti, ms(expires))
		if err := expectOne(res, err, "revoke session"); errors.Is(err, ErrNotFound) {
			return ErrSessionEnded
		} else if err != nil {
			return err
		}
		return nil
	})
	if IsUnavailable(err) && !s.pending.revoke(jti, expires) {
		return ErrSessionEnded
	} else if IsUnavailable(err) {
		return nil // in force now, written when writes work again
	}
	return err
}

// expectOne turns "no row changed" into ErrNotFound.
func expectOne(res sql.Result, err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// ChangeEmail gives a user a new address; one another user has is ErrEmailTaken.
func (s *Store) ChangeEmail(ctx context.Context, userID, email string) error {
	return s.writeAuth(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET email = ? WHERE id = ?`, valid.NormalEmail(email), userID)
		if isUniqueViolation(err) {
			return ErrEmailTaken
		}
		return expectOne(res, err, "change e-mail")
	})
}
