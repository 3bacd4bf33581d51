package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Statuses of a finding.
const (
	FindingOpen         = "open"
	FindingFixed        = "fixed"
	FindingAcceptedRisk = "accepted_risk"
	FindingNotAffected  = "not_affected"
)

// FindingMatch is one CVE matched to one software entry of an asset: what
// a match says, written by SyncFindings.
type FindingMatch struct {
	OrgID, AssetID, CVEID string
	Key                   ProductKey // the software's, normalized: with asset and CVE, the finding's identity
	Software              Software
	Match, Reason         string // cpe or name; why it matched
	VersionKnown          bool
	CVSS, EPSS            *float64
	KEV, Ransomware       bool
}

// Finding is a stored finding.
type Finding struct {
	FindingMatch
	ID                                  string
	AssetHostname                       string
	Status, StatusReason, Justification string
	StatusBy                            string
	StatusUntil, FixedAt                *time.Time
	StatusAt, FirstSeen, LastSeen       time.Time
}

// FindingChange is one status change of a finding.
type FindingChange struct {
	At                    time.Time
	Actor, Status, Reason string
}

// FindingScope is what a sync covers: the findings of these assets, or of
// these CVEs; a stored finding in scope that no match names is fixed.
type FindingScope struct {
	AssetIDs, CVEIDs []string
}

// Actor of the changes matching makes.
const MatcherActor = "garrison"

const findingColumns = `f.id, f.org_id, f.asset_id, a.hostname, f.cve_id, f.vendor, f.product, f.software, f.match, f.reason,
	f.version_known, f.cvss, f.kev, f.ransomware, f.epss, f.status, f.status_reason, f.justification, f.status_until, f.status_by,
	f.status_at, f.first_seen, f.last_seen, f.fixed_at`

func scanFinding(row interface{ Scan(...any) error }) (Finding, error) {
	var f Finding
	var software string
	var until, fixed sql.NullInt64
	var statusAt, first, last int64
	var cvss, epss sql.NullFloat64
	err := row.Scan(&f.ID, &f.OrgID, &f.AssetID, &f.AssetHostname, &f.CVEID, &f.Key.Vendor, &f.Key.Product, &software, &f.Match,
		&f.Reason, &f.VersionKnown, &cvss, &f.KEV, &f.Ransomware, &epss, &f.Status, &f.StatusReason, &f.Justification, &until,
		&f.StatusBy, &statusAt, &first, &last, &fixed)
	if err != nil {
		return Finding{}, fmt.Errorf("finding: %w", err)
	}
	if err := json.Unmarshal([]byte(software), &f.Software); err != nil {
		return Finding{}, fmt.Errorf("finding %s software: %w", f.ID, err)
	}
	if cvss.Valid {
		f.CVSS = &cvss.Float64
	}
	if epss.Valid {
		f.EPSS = &epss.Float64
	}
	if until.Valid {
		t := fromMS(until.Int64)
		f.StatusUntil = &t
	}
	if fixed.Valid {
		t := fromMS(fixed.Int64)
		f.FixedAt = &t
	}
	f.StatusAt, f.FirstSeen, f.LastSeen = fromMS(statusAt), fromMS(first), fromMS(last)
	return f, nil
}

func nullFloat(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

type findingKey struct {
	asset, cve string
	key        ProductKey
}

// SyncFindings makes the stored findings in scope what the matches say,
// in one transaction: a new match opens a finding, a known one is seen
// again (a fixed one reopens), and one no match names any more is fixed,
// with the reason fixedReason gives. It returns the findings it opened or
// reopened.
//
// notice words, for one organization, what the findings it opened or
// reopened call for: a notification written in the same transaction
// (nil: none).
func (s *Store) SyncFindings(ctx context.Context, scope FindingScope, matches []FindingMatch,
	fixedReason func(Finding) string, notice func(orgID string, opened []Finding) *Notification) ([]Finding, error) {
	now := ms(s.now())
	var opened []Finding
	err := s.write(ctx, func(tx *sql.Tx) error {
		opened = nil
		existing := map[findingKey]Finding{}
		read := func(column string, ids []string) error {
			return chunks(ids, func(part []string) error {
				args := make([]any, len(part))
				for i, id := range part {
					args[i] = id
				}
				found, err := queryAll(ctx, tx, "findings in scope", `SELECT `+findingColumns+` FROM findings f JOIN assets a ON a.id = f.asset_id
					WHERE f.`+column+` IN (`+inList(len(part))+`)`, args, func(rows *sql.Rows) (Finding, error) { return scanFinding(rows) })
				for _, f := range found {
					existing[findingKey{f.AssetID, f.CVEID, f.Key}] = f
				}
				return err
			})
		}
		if err := read("asset_id", scope.AssetIDs); err != nil {
			return err
		}
		if err := read("cve_id", scope.CVEIDs); err != nil {
			return err
		}
		seen := map[findingKey]bool{}
		for _, m := range matches {
			k := findingKey{m.AssetID, m.CVEID, m.Key}
			if seen[k] {
				continue
			}
			seen[k] = true
			software, err := json.Marshal(m.Software)
			if err != nil {
				return fmt.Errorf("encode software: %w", err)
			}
			f, ok := existing[k]
			if !ok {
				id := NewID("fnd", s.now())
				if _, err := tx.ExecContext(ctx, `INSERT INTO findings (id, org_id, asset_id, cve_id, vendor, product, software, match, reason,
					version_known, cvss, kev, ransomware, epss, status, status_at, first_seen, last_seen) VALUES
					(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?)`, id, m.OrgID, m.AssetID, m.CVEID, m.Key.Vendor, m.Key.Product,
					string(software), m.Match, m.Reason, m.VersionKnown, nullFloat(m.CVSS), m.KEV, m.Ransomware, nullFloat(m.EPSS), now, now, now); err != nil {
					return fmt.Errorf("open finding: %w", err)
				}
				if err := addFindingChange(ctx, tx, id, m.OrgID, now, MatcherActor, FindingOpen, "Found: "+m.Reason); err != nil {
					return err
				}
				opened = append(opened, Finding{FindingMatch: m, ID: id, Status: FindingOpen})
				continue
			}
			reopen := f.Status == FindingFixed
			if _, err := tx.ExecContext(ctx, `UPDATE findings SET software = ?, match = ?, reason = ?, version_known = ?, cvss = ?, kev = ?,
				ransomware = ?, epss = ?, last_seen = ?,
				status = CASE WHEN status = 'fixed' THEN 'open' ELSE status END,
				status_at = CASE WHEN status = 'fixed' THEN ? ELSE status_at END,
				status_reason = CASE WHEN status = 'fixed' THEN '' ELSE status_reason END,
				status_by = CASE WHEN status = 'fixed' THEN ? ELSE status_by END,
				fixed_at = CASE WHEN status = 'fixed' THEN NULL ELSE fixed_at END
				WHERE id = ?`, string(software), m.Match, m.Reason, m.VersionKnown, nullFloat(m.CVSS), m.KEV, m.Ransomware, nullFloat(m.EPSS),
				now, now, MatcherActor, f.ID); err != nil {
				return fmt.Errorf("see finding again: %w", err)
			}
			if reopen {
				if err := addFindingChange(ctx, tx, f.ID, f.OrgID, now, MatcherActor, FindingOpen, "Matched again: "+m.Reason); err != nil {
					return err
				}
				f.FindingMatch, f.Status = m, FindingOpen
				opened = append(opened, f)
			}
		}
		for k, f := range existing {
			if seen[k] || f.Status == FindingFixed {
				continue
			}
			why := fixedReason(f)
			if _, err := tx.ExecContext(ctx, `UPDATE findings SET status = 'fixed', status_reason = ?, status_by = ?, status_at = ?, fixed_at = ?
				WHERE id = ?`, why, MatcherActor, now, now, f.ID); err != nil {
				return fmt.Errorf("fix finding: %w", err)
			}
			if err := addFindingChange(ctx, tx, f.ID, f.OrgID, now, MatcherActor, FindingFixed, why); err != nil {
				return err
			}
		}
		byOrg := map[string][]Finding{}
		var orgs []string
		for _, f := range opened {
			if byOrg[f.OrgID] == nil {
				orgs = append(orgs, f.OrgID)
			}
			byOrg[f.OrgID] = append(byOrg[f.OrgID], f)
		}
		for _, org := range orgs {
			if n := notice(org, byOrg[org]); n != nil {
				if err := notify(ctx, tx, org, *n, now); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return opened, err
}

func addFindingChange(ctx context.Context, tx *sql.Tx, findingID, orgID string, at int64, actor, status, reason string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO finding_changes (finding_id, org_id, at, actor, status, reason) VALUES (?, ?, ?, ?, ?, ?)`,
		findingID, orgID, at, actor, status, reason); err != nil {
		return fmt.Errorf("record finding change: %w", err)
	}
	return nil
}

// FindingFilter selects an organization's findings; zero values select
// all.
type FindingFilter struct {
	KEV              *bool
	MinCVSS, MinEPSS *float64
	AssetID, CVEID   string
	Status           string
	Vendor, Product  string // normalized
}

// Findings lists an organization's findings the filter selects, highest
// score first.
func (s *Store) Findings(ctx context.Context, orgID string, f FindingFilter, p Page) ([]Finding, int, error) {
	where := []string{"f.org_id = ?"}
	args := []any{orgID}
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	if f.KEV != nil {
		add("f.kev = ?", *f.KEV)
	}
	if f.MinCVSS != nil {
		add("f.cvss >= ?", *f.MinCVSS)
	}
	if f.MinEPSS != nil {
		add("f.epss >= ?", *f.MinEPSS)
	}
	if f.AssetID != "" {
		add("f.asset_id = ?", f.AssetID)
	}
	if f.CVEID != "" {
		add("f.cve_id = ?", f.CVEID)
	}
	if f.Status != "" {
		add("f.status = ?", f.Status)
	}
	if f.Vendor != "" {
		add("f.vendor = ?", f.Vendor)
	}
	if f.Product != "" {
		add("f.product = ?", f.Product)
	}
	cond := strings.Join(where, " AND ")
	return readPage(ctx, s, pageQuery{what: "findings", args: args,
		count: `SELECT COUNT(*) FROM findings f WHERE ` + cond,
		list: `SELECT ` + findingColumns + ` FROM findings f JOIN assets a ON a.id = f.asset_id WHERE ` + cond +
			` ORDER BY f.kev DESC, COALESCE(f.cvss, -1) DESC, f.cve_id DESC, a.hostname, f.id LIMIT ? OFFSET ?`},
		p, func(rows *sql.Rows) (Finding, error) { return scanFinding(rows) })
}

// OpenFindings reads every open finding of an organization (at most
// limit), for ranking.
func (s *Store) OpenFindings(ctx context.Context, orgID string, limit int) ([]Finding, error) {
	return queryAll(ctx, s.reads(), "open findings", `SELECT `+findingColumns+` FROM findings f JOIN assets a ON a.id = f.asset_id
		WHERE f.org_id = ? AND f.status = 'open' ORDER BY f.id LIMIT ?`, []any{orgID, limit},
		func(rows *sql.Rows) (Finding, error) { return scanFinding(rows) })
}

// FindingByID reads one of the organization's findings with its changes,
// oldest first.
func (s *Store) FindingByID(ctx context.Context, orgID, id string) (Finding, []FindingChange, error) {
	f, err := scanFinding(s.reads().QueryRowContext(ctx, `SELECT `+findingColumns+` FROM findings f JOIN assets a ON a.id = f.asset_id
		WHERE f.org_id = ? AND f.id = ?`, orgID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Finding{}, nil, ErrNotFound
	}
	if err != nil {
		return Finding{}, nil, err
	}
	changes, err := queryAll(ctx, s.reads(), "finding changes", `SELECT at, actor, status, reason FROM finding_changes
		WHERE finding_id = ? AND org_id = ? ORDER BY id`, []any{id, orgID}, func(rows *sql.Rows) (FindingChange, error) {
		var c FindingChange
		var at int64
		err := rows.Scan(&at, &c.Actor, &c.Status, &c.Reason)
		c.At = fromMS(at)
		return c, err
	})
	return f, changes, err
}

// FindingStatus is a person's decision on a finding.
type FindingStatus struct {
	Status, Reason, Justification string
	Until                         *time.Time
	By                            string
}

// SetFindingStatus records a person's decision on one of the
// organization's findings; a fixed finding is matching's to reopen, and
// refused (ErrFindingFixed).
func (s *Store) SetFindingStatus(ctx context.Context, orgID, id string, st FindingStatus) error {
	now := ms(s.now())
	return s.write(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM findings WHERE org_id = ? AND id = ?`, orgID, id).Scan(&status)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return ErrNotFound
		case err != nil:
			return fmt.Errorf("finding: %w", err)
		case status == FindingFixed:
			return ErrFindingFixed
		}
		var until any
		if st.Until != nil {
			until = ms(*st.Until)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE findings SET status = ?, status_reason = ?, justification = ?, status_until = ?, status_by = ?,
			status_at = ? WHERE org_id = ? AND id = ?`, st.Status, st.Reason, st.Justification, until, st.By, now, orgID, id); err != nil {
			return fmt.Errorf("set finding status: %w", err)
		}
		reason := st.Reason
		if st.Justification != "" {
			reason = st.Justification + ": " + reason
		}
		return addFindingChange(ctx, tx, id, orgID, now, st.By, st.Status, reason)
	})
}

// ExpireAcceptedRisk reopens accepted risks whose expiry passed, of every
// organization; it returns how many.
func (s *Store) ExpireAcceptedRisk(ctx context.Context) (int, error) {
	now := ms(s.now())
	n := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		type expired struct{ id, org string }
		rows, err := queryAll(ctx, tx, "expired risks", `SELECT id, org_id FROM findings WHERE status = 'accepted_risk' AND status_until <= ?`,
			[]any{now}, func(rows *sql.Rows) (expired, error) {
				var e expired
				return e, rows.Scan(&e.id, &e.org)
			})
		if err != nil {
			return err
		}
		for _, e := range rows {
			if _, err := tx.ExecContext(ctx, `UPDATE findings SET status = 'open', status_by = ?, status_at = ?, status_reason = '',
				status_until = NULL WHERE id = ?`, MatcherActor, now, e.id); err != nil {
				return fmt.Errorf("reopen expired risk: %w", err)
			}
			if err := addFindingChange(ctx, tx, e.id, e.org, now, MatcherActor, FindingOpen, "The risk acceptance expired"); err != nil {
				return err
			}
		}
		n = len(rows)
		return nil
	})
	return n, err
}
