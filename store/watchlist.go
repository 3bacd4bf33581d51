package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"garrison/fault"
)

// WatchEntry is a CVE an organization watches, with what the intelligence
// store holds of it (Intel is nil while the CVE is pending).
type WatchEntry struct {
	ID, OrgID, CVEID, AddedBy string
	CreatedAt                 time.Time
	Intel                     *IntelCVE
}

// MaxWatched bounds an organization's watchlist.
const MaxWatched = 2000

// watchExists refuses a CVE the organization watches already, naming
// the entry.
func watchExists(cveID, id string) error {
	return &fault.Error{Code: fault.Conflict, Message: fmt.Sprintf("%s is already on the watchlist as %s", cveID, id), ExistingID: id}
}

// AddWatch puts a CVE on the organization's watchlist.
func (s *Store) AddWatch(ctx context.Context, e WatchEntry) (WatchEntry, error) {
	now := s.now()
	e.ID, e.CreatedAt = NewID("cvw", now), fromMS(ms(now))
	err := s.write(ctx, func(tx *sql.Tx) error {
		var existing string
		err := tx.QueryRowContext(ctx, `SELECT id FROM cve_watchlist WHERE org_id = ? AND cve_id = ?`, e.OrgID, e.CVEID).Scan(&existing)
		if err == nil {
			return watchExists(e.CVEID, existing)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("watch lookup: %w", err)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM cve_watchlist WHERE org_id = ?`, e.OrgID).Scan(&n); err != nil {
			return fmt.Errorf("count watchlist: %w", err)
		}
		if n >= MaxWatched {
			return ErrWatchLimit
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO cve_watchlist (id, org_id, cve_id, added_by, created_at) VALUES (?, ?, ?, ?, ?)`,
			e.ID, e.OrgID, e.CVEID, e.AddedBy, ms(now)); err != nil {
			return fmt.Errorf("add watch: %w", err)
		}
		return nil
	})
	return e, err
}

const watchColumns = `w.id, w.org_id, w.cve_id, w.added_by, w.created_at,
	i.id, i.view, m.targets, i.vendor, i.product, i.view_at`

func scanWatch(row interface{ Scan(...any) error }) (WatchEntry, error) {
	var e WatchEntry
	var created int64
	var id, view, vendor, product sql.NullString
	var targets []byte
	var at sql.NullInt64
	if err := row.Scan(&e.ID, &e.OrgID, &e.CVEID, &e.AddedBy, &created, &id, &view, &targets, &vendor, &product, &at); err != nil {
		return WatchEntry{}, fmt.Errorf("watch entry: %w", err)
	}
	e.CreatedAt = fromMS(created)
	if id.Valid {
		e.Intel = &IntelCVE{ID: id.String, View: json.RawMessage(view.String), Targets: targets,
			Vendor: vendor.String, Product: product.String, ViewAt: fromMS(at.Int64)}
	}
	return e, nil
}

// WatchEntries reads the organization's whole watchlist (at most
// MaxWatched), newest first, with each CVE's view and targets.
func (s *Store) WatchEntries(ctx context.Context, orgID string) ([]WatchEntry, error) {
	return queryAll(ctx, s.reads(), "watchlist", `SELECT `+watchColumns+` FROM cve_watchlist w LEFT JOIN intel_cves i ON i.id = w.cve_id
		LEFT JOIN intel_cve_match m ON m.cve_id = w.cve_id
		WHERE w.org_id = ? ORDER BY w.created_at DESC, w.id DESC`, []any{orgID}, func(rows *sql.Rows) (WatchEntry, error) { return scanWatch(rows) })
}

// WatchEntryByID reads one entry of the organization's watchlist.
func (s *Store) WatchEntryByID(ctx context.Context, orgID, id string) (WatchEntry, error) {
	e, err := scanWatch(s.reads().QueryRowContext(ctx, `SELECT `+watchColumns+` FROM cve_watchlist w LEFT JOIN intel_cves i ON i.id = w.cve_id
		LEFT JOIN intel_cve_match m ON m.cve_id = w.cve_id
		WHERE w.org_id = ? AND w.id = ?`, orgID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return WatchEntry{}, ErrNotFound
	}
	return e, err
}

// DeleteWatch takes a CVE off the organization's watchlist.
func (s *Store) DeleteWatch(ctx context.Context, orgID, id string) error {
	return s.deleteOwned(ctx, "cve_watchlist", orgID, id)
}
