package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"garrison/actor"
)

// planInForce is organization o's plan: its provider's while it takes the
// provider's (a client without a plan of its own).
const planInForce = `CASE WHEN o.plan_inherited = 1
	THEN COALESCE((SELECT p.plan FROM orgs p WHERE p.id = o.provider_id), o.plan) ELSE o.plan END`

// memberReach is a CTE, m(role, origin, via), of how user ?1 may act in
// organization ?2: as its member (via ”), or else as an admin or
// technician of ?2's provider (via: the provider) when ?2 is among the
// clients they reach: all of the provider's, or the ones assigned to them
// when they have any. No row: they may not act in ?2.
var memberReach = `WITH m(role, origin, via) AS (
	SELECT role, origin, '' FROM memberships WHERE user_id = ?1 AND org_id = ?2
	UNION ALL
	SELECT pm.role, pm.origin, pm.org_id FROM orgs c
		JOIN memberships pm ON pm.org_id = c.provider_id AND pm.user_id = ?1 AND pm.role IN ('admin', 'technician')
		WHERE c.id = ?2 AND c.kind = 'client'
		AND NOT EXISTS (SELECT 1 FROM memberships d WHERE d.user_id = ?1 AND d.org_id = ?2)
		AND ` + assignedTo("?1", "c.id", "c.provider_id") + `) `

// assignedTo is the condition that the provider's staff member user
// reaches the provider's client: they reach all clients, or the client is
// one assigned to them. Its arguments are SQL expressions.
func assignedTo(user, client, provider string) string {
	return `(EXISTS (SELECT 1 FROM memberships s WHERE s.user_id = ` + user + ` AND s.org_id = ` + provider + ` AND s.all_clients = 1)
	OR EXISTS (SELECT 1 FROM member_clients a WHERE a.user_id = ` + user + ` AND a.client_id = ` + client + `))`
}

// staffOf selects (SELECT 1 FROM c, pm) the memberships pm of the
// provider's admins and technicians who reach the client c whose id is the
// SQL expression client; callers add conditions on pm.
func staffOf(client string) string {
	return `SELECT 1 FROM orgs c JOIN memberships pm ON pm.org_id = c.provider_id AND pm.role IN ('admin', 'technician')
		WHERE c.id = ` + client + ` AND c.kind = 'client' AND ` + assignedTo("pm.user_id", "c.id", "c.provider_id")
}

// orgColumns are an organization (o) with its member count.
const orgColumns = `o.id, o.name, ` + planInForce + `, o.created_at,
	(SELECT COUNT(*) FROM memberships WHERE org_id = o.id), o.kind, COALESCE(o.provider_id, ''), o.plan_inherited = 0`

func scanOrg(row interface{ Scan(...any) error }) (Org, error) {
	var o Org
	var created int64
	err := row.Scan(&o.ID, &o.Name, &o.Plan, &created, &o.Members, &o.Kind, &o.ProviderID, &o.PlanOwn)
	if errors.Is(err, sql.ErrNoRows) {
		return Org{}, ErrNotFound
	}
	o.CreatedAt = fromMS(created)
	return o, err
}

func addMembership(ctx context.Context, tx *sql.Tx, userID, orgID, role, origin string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO memberships (user_id, org_id, role, origin, created_at) VALUES (?, ?, ?, ?, ?)`,
		userID, orgID, role, origin, ms(now))
	if isUniqueViolation(err) {
		return ErrAlreadyMember
	}
	if err != nil {
		return fmt.Errorf("add membership: %w", err)
	}
	return nil
}

// UserIn returns the user acting in orgID: as its member, or as staff of
// its provider reaching it. ErrNotFound when they may not act there.
func (s *Store) UserIn(ctx context.Context, userID, orgID string) (User, error) {
	var via string
	row := s.reads().QueryRowContext(ctx, memberReach+`SELECT `+userColumns+`, m.via
		FROM users u JOIN orgs o ON o.id = ?2 CROSS JOIN m WHERE u.id = ?1`, userID, orgID)
	u, err := scanUser(row, &via)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return User{}, fmt.Errorf("user in organization: %w", err)
	}
	u.Via = via
	return s.pending.apply(u), err
}

// canAct reports whether userID may act in orgID, in tx.
func canAct(ctx context.Context, q querier, userID, orgID string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, memberReach+`SELECT COUNT(*) FROM m`, userID, orgID).Scan(&n); err != nil {
		return false, fmt.Errorf("reach: %w", err)
	}
	return n > 0, nil
}

// Membership is a person's role in one organization they belong to.
type Membership struct {
	Org  Org
	Role string
}

// Memberships lists the organizations userID belongs to, by name.
func (s *Store) Memberships(ctx context.Context, userID string) ([]Membership, error) {
	return queryAll(ctx, s.reads(), "memberships", `SELECT `+orgColumns+`, m.role FROM memberships m JOIN orgs o ON o.id = m.org_id
		WHERE m.user_id = ? ORDER BY o.name, o.id`, []any{userID}, func(rows *sql.Rows) (Membership, error) {
		var ms Membership
		var created int64
		err := rows.Scan(&ms.Org.ID, &ms.Org.Name, &ms.Org.Plan, &created, &ms.Org.Members, &ms.Org.Kind, &ms.Org.ProviderID, &ms.Org.PlanOwn, &ms.Role)
		ms.Org.CreatedAt = fromMS(created)
		return ms, err
	})
}

// ClientScope is whose view of a provider's clients a list takes: a
// person's (the clients assigned to them, or all when none are) or, with
// UserID "", the provider's own (an API key's): all of them.
type ClientScope struct {
	ProviderID string
	UserID     string
}

// clientWhere selects the clients (c) of scope's provider (?1) that its
// user (?2) reaches.
var clientWhere = ` WHERE o.provider_id = ?1 AND o.kind = 'client' AND (?2 = '' OR ` + assignedTo("?2", "o.id", "?1") + `)`

// Clients lists the clients the scope reaches, by name.
func (s *Store) Clients(ctx context.Context, sc ClientScope) ([]Org, error) {
	return queryAll(ctx, s.reads(), "clients", `SELECT `+orgColumns+` FROM orgs o`+clientWhere+` ORDER BY o.name, o.id`,
		[]any{sc.ProviderID, sc.UserID}, func(rows *sql.Rows) (Org, error) { return scanOrg(rows) })
}

// Client returns one client the scope reaches; any other organization is
// ErrNotFound.
func (s *Store) Client(ctx context.Context, sc ClientScope, clientID string) (Org, error) {
	o, err := scanOrg(s.reads().QueryRowContext(ctx, `SELECT `+orgColumns+` FROM orgs o`+clientWhere+` AND o.id = ?3`,
		sc.ProviderID, sc.UserID, clientID))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Org{}, fmt.Errorf("client: %w", err)
	}
	return o, err
}

// NewClient is a client organization to create under a provider.
type NewClient struct {
	ProviderID string
	Name       string
	Plan       string // "": the provider's, as it changes
	// Creator, a person of the provider restricted to assigned clients,
	// is assigned the new one.
	Creator string
}

// CreateClient creates a client under the provider, making a standalone
// organization a provider with its first client; a client cannot have
// clients (ErrClientOfClient).
func (s *Store) CreateClient(ctx context.Context, c NewClient) (Org, error) {
	var id string
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = createClient(ctx, tx, c, s.now())
		return err
	})
	if err != nil {
		return Org{}, err
	}
	return s.Org(ctx, id)
}

func createClient(ctx context.Context, tx *sql.Tx, c NewClient, now time.Time) (string, error) {
	var kind, plan string
	err := tx.QueryRowContext(ctx, `SELECT kind, plan FROM orgs WHERE id = ?`, c.ProviderID).Scan(&kind, &plan)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("provider: %w", err)
	}
	if kind == OrgClient {
		return "", ErrClientOfClient
	}
	if kind == OrgStandalone {
		if _, err := tx.ExecContext(ctx, `UPDATE orgs SET kind = 'provider' WHERE id = ?`, c.ProviderID); err != nil {
			return "", fmt.Errorf("make provider: %w", err)
		}
	}
	inherited := 0
	if c.Plan == "" {
		c.Plan, inherited = plan, 1
	}
	id := NewID("org", now)
	if _, err := tx.ExecContext(ctx, `INSERT INTO orgs (id, name, plan, created_at, kind, provider_id, plan_inherited)
		VALUES (?, ?, ?, ?, 'client', ?, ?)`, id, c.Name, c.Plan, ms(now), c.ProviderID, inherited); err != nil {
		return "", fmt.Errorf("create client: %w", err)
	}
	if err := seedNotifications(ctx, tx, id, now); err != nil {
		return "", err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO member_clients (user_id, provider_id, client_id)
		SELECT user_id, org_id, ? FROM memberships WHERE user_id = ? AND org_id = ? AND all_clients = 0`, id, c.Creator, c.ProviderID); err != nil {
		return "", fmt.Errorf("assign the new client to its creator: %w", err)
	}
	return id, nil
}

// RenameOrg gives an organization a new name.
func (s *Store) RenameOrg(ctx context.Context, orgID, name string) (Org, error) {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE orgs SET name = ? WHERE id = ?`, name, orgID)
		return expectOne(res, err, "rename organization")
	})
	if err != nil {
		return Org{}, err
	}
	return s.Org(ctx, orgID)
}

// JoinOrg adds an existing account to an organization by an invitation
// addressed to it (inviteHash, unexpired, unaccepted: ErrInvalidToken
// otherwise), with the invitation's role; a member already is
// ErrAlreadyMember.
func (s *Store) JoinOrg(ctx context.Context, userID string, inviteHash []byte) (User, error) {
	now := s.now()
	var orgID string
	err := s.writeAuth(ctx, func(tx *sql.Tx) error {
		var inviteID, role, email string
		var byKey sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT i.id, i.org_id, i.role, i.invited_by_key, u.email FROM invites i JOIN users u ON u.email = i.email
			WHERE i.token_hash = ? AND i.accepted_at IS NULL AND i.expires_at > ? AND u.id = ?`, inviteHash, ms(now), userID).
			Scan(&inviteID, &orgID, &role, &byKey, &email)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrInvalidToken
		}
		if err != nil {
			return fmt.Errorf("find invite: %w", err)
		}
		origin := OriginInvite
		if byKey.Valid {
			origin = OriginKeyInvite
		}
		if err := addMembership(ctx, tx, userID, orgID, role, origin, now); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE invites SET accepted_at = ? WHERE id = ?`, ms(now), inviteID)
		return err
	})
	if err != nil {
		return User{}, err
	}
	return s.UserIn(ctx, userID, orgID)
}

// isMember reports whether the address's account belongs to orgID.
func isMember(ctx context.Context, q querier, email, orgID string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE u.email = ? AND m.org_id = ?`, email, orgID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("membership: %w", err)
	}
	return n > 0, nil
}

// MemberClients says whether a provider's member reaches all its clients
// and, when not, the ones assigned to them.
func (s *Store) MemberClients(ctx context.Context, providerID, userID string) (all bool, ids []string, err error) {
	err = s.read(ctx, func(tx querier) error {
		if err := tx.QueryRowContext(ctx, `SELECT all_clients FROM memberships WHERE user_id = ? AND org_id = ?`, userID, providerID).
			Scan(&all); errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		} else if err != nil {
			return fmt.Errorf("member clients: %w", err)
		}
		ids, err = queryAll(ctx, tx, "member clients", `SELECT client_id FROM member_clients WHERE provider_id = ? AND user_id = ?
			ORDER BY client_id`, []any{providerID, userID}, scanString)
		return err
	})
	return all, ids, err
}

// SetMemberClients replaces the clients assigned to a provider's admin or
// technician (empty: all of them). Each must be a client of the provider
// (ErrNotFound otherwise: no other organization's existence is told).
func (s *Store) SetMemberClients(ctx context.Context, providerID, userID string, clientIDs []string) error {
	return s.writeAuth(ctx, func(tx *sql.Tx) error {
		var role string
		err := tx.QueryRowContext(ctx, `SELECT role FROM memberships WHERE user_id = ? AND org_id = ?`, userID, providerID).Scan(&role)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("member: %w", err)
		}
		if role == actor.RoleMember {
			return ErrNotStaff
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM member_clients WHERE provider_id = ? AND user_id = ?`, providerID, userID); err != nil {
			return fmt.Errorf("clear assignments: %w", err)
		}
		all := len(clientIDs) == 0
		if _, err := tx.ExecContext(ctx, `UPDATE memberships SET all_clients = ? WHERE user_id = ? AND org_id = ?`, all, userID, providerID); err != nil {
			return fmt.Errorf("assign clients: %w", err)
		}
		for _, id := range clientIDs {
			res, err := tx.ExecContext(ctx, `INSERT INTO member_clients (user_id, provider_id, client_id)
				SELECT ?, ?, id FROM orgs WHERE id = ? AND provider_id = ? AND kind = 'client' ON CONFLICT DO NOTHING`, userID, providerID, id, providerID)
			if err != nil {
				return fmt.Errorf("assign client: %w", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				var dup int
				if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM member_clients WHERE user_id = ? AND client_id = ?`, userID, id).Scan(&dup); err != nil {
					return fmt.Errorf("assign client: %w", err)
				}
				if dup == 0 {
					return ErrNotFound
				}
			}
		}
		return nil
	})
}

// rehome moves the home of the accounts homed in orgID that belong to
// another organization too, to their oldest other membership, so deleting
// orgID (or removing them from it) does not end their account.
func rehome(ctx context.Context, tx *sql.Tx, orgID, onlyUser string) error {
	_, err := tx.ExecContext(ctx, `UPDATE users SET org_id = (SELECT m.org_id FROM memberships m
			WHERE m.user_id = users.id AND m.org_id <> ?1 ORDER BY m.created_at, m.org_id LIMIT 1)
		WHERE org_id = ?1 AND (?2 = '' OR id = ?2)
		AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = users.id AND m.org_id <> ?1)`, orgID, onlyUser)
	if err != nil {
		return fmt.Errorf("move accounts' home: %w", err)
	}
	return nil
}
