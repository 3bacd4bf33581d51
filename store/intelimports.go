package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Import statuses.
const (
	ImportRunning   = "running"
	ImportCompleted = "completed"
	ImportFailed    = "failed"
)

// IntelImport is one import of a file into the intelligence store.
type IntelImport struct {
	ID, Format, Name                            string
	Via                                         string // "api", "cli" or "sync"
	Actor                                       string
	Status                                      string
	Records, Added, Changed, Unchanged, Skipped int
	Newest                                      *time.Time // the newest record's modification date
	Meta                                        map[string]string
	Error                                       string
	StartedAt                                   time.Time
	FinishedAt                                  *time.Time
}

// staleImport is how long a running import may go without a beat before
// the next import takes it for cut short.
const staleImport = 2 * time.Minute

// StartIntelImport records an import as running: one at a time across
// processes (ErrImportRunning). An import whose beat went stale (its
// process died) is failed first, and its watchers are still told what its
// committed batches changed.
func (s *Store) StartIntelImport(ctx context.Context, imp IntelImport, notifyAgent string) error {
	now := s.now()
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := failStaleImport(ctx, tx, now, notifyAgent); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO intel_imports (id, format, name, via, actor, status, started_at, beat_at) VALUES (?, ?, ?, ?, ?, 'running', ?, ?)`,
			imp.ID, imp.Format, imp.Name, imp.Via, imp.Actor, ms(imp.StartedAt), ms(now))
		if isUniqueViolation(err) {
			return ErrImportRunning
		}
		if err != nil {
			return fmt.Errorf("start import: %w", err)
		}
		return nil
	})
}

// failStaleImport fails the running import whose beat went stale (its
// process ended), and queues its watchers' notices of what its committed
// batches changed; it returns the number of runs queued.
func failStaleImport(ctx context.Context, tx *sql.Tx, now time.Time, notifyAgent string) (int, error) {
	var staleID string
	err := tx.QueryRowContext(ctx, `SELECT id FROM intel_imports WHERE status = 'running' AND beat_at < ?`, ms(now.Add(-staleImport))).Scan(&staleID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("stale imports: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE intel_imports SET status = 'failed', error = 'The import stopped without finishing (its process ended)',
		finished_at = ? WHERE id = ?`, ms(now), staleID); err != nil {
		return 0, fmt.Errorf("fail stale import: %w", err)
	}
	return queueNotices(ctx, tx, staleID, notifyAgent, now)
}

// RecoverIntelImport fails an import whose process ended (a crash, or a
// stop that did not wait for it) without waiting for the next import to
// start, so that its watchers hear of its committed changes and its status
// stops saying running. It returns the number of runs queued. Looking
// takes a read; only a stale import takes the write lock.
func (s *Store) RecoverIntelImport(ctx context.Context, notifyAgent string) (int, error) {
	now := s.now()
	var stale bool
	if err := s.reads().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM intel_imports WHERE status = 'running' AND beat_at < ?)`,
		ms(now.Add(-staleImport))).Scan(&stale); err != nil {
		return 0, fmt.Errorf("stale imports: %w", err)
	}
	if !stale {
		return 0, nil
	}
	var runs int
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		runs, err = failStaleImport(ctx, tx, now, notifyAgent)
		return err
	})
	return runs, err
}

// BeatIntelImport says a running import is alive.
func (s *Store) BeatIntelImport(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE intel_imports SET beat_at = ? WHERE id = ?`, ms(s.now()), id); err != nil {
			return fmt.Errorf("import beat: %w", err)
		}
		return nil
	})
}

// queueNotices queues one run of the notifying agent for each organization
// watching a CVE the import changed; the runs read only committed changes
// and deliver once, so a failed import's batches are notified too.
func queueNotices(ctx context.Context, tx *sql.Tx, importID, notifyAgent string, now time.Time) (int, error) {
	if notifyAgent == "" {
		return 0, nil
	}
	orgs, err := queryAll(ctx, tx, "watchers of changes", `SELECT DISTINCT w.org_id FROM intel_changes c
		JOIN cve_watchlist w ON w.cve_id = c.cve_id WHERE c.import_id = ? ORDER BY w.org_id`, []any{importID}, scanString)
	if err != nil {
		return 0, err
	}
	params, _ := json.Marshal(map[string]string{"intel_import": importID})
	for _, org := range orgs {
		if _, err := queueRun(ctx, tx, NewRun{OrgID: org, Agent: notifyAgent, Params: params, RequestedBy: "intel:" + importID}, now); err != nil {
			return 0, err
		}
	}
	return len(orgs), nil
}

// FinishIntelImport records how an import ended and queues, in the same
// transaction, the runs that notify its watchers (queueNotices), so no
// watcher is missed by a crash between the two; a failed import's
// committed batches are notified too.
func (s *Store) FinishIntelImport(ctx context.Context, imp IntelImport, notifyAgent string) (runs int, err error) {
	meta, err := json.Marshal(imp.Meta)
	if err != nil {
		return 0, fmt.Errorf("import meta: %w", err)
	}
	now := s.now()
	err = s.write(ctx, func(tx *sql.Tx) error {
		var newest any
		if imp.Newest != nil {
			newest = ms(*imp.Newest)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE intel_imports SET status = ?, records = ?, added = ?, changed = ?, unchanged = ?, skipped = ?,
			newest = ?, meta = ?, error = ?, finished_at = ? WHERE id = ?`, imp.Status, imp.Records, imp.Added, imp.Changed, imp.Unchanged,
			imp.Skipped, newest, string(meta), imp.Error, ms(now), imp.ID); err != nil {
			return fmt.Errorf("finish import: %w", err)
		}
		runs, err = queueNotices(ctx, tx, imp.ID, notifyAgent, now)
		return err
	})
	return runs, err
}

// IntelImportByID reads one import.
func (s *Store) IntelImportByID(ctx context.Context, id string) (IntelImport, error) {
	imp, err := scanImport(s.reads().QueryRowContext(ctx, `SELECT `+importColumns+` FROM intel_imports WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return IntelImport{}, ErrNotFound
	}
	return imp, err
}

const importColumns = `id, format, name, via, actor, status, records, added, changed, unchanged, skipped, newest, meta, error, started_at, finished_at`

func scanImport(row interface{ Scan(...any) error }) (IntelImport, error) {
	var imp IntelImport
	var newest, finished sql.NullInt64
	var meta string
	var started int64
	if err := row.Scan(&imp.ID, &imp.Format, &imp.Name, &imp.Via, &imp.Actor, &imp.Status, &imp.Records, &imp.Added, &imp.Changed,
		&imp.Unchanged, &imp.Skipped, &newest, &meta, &imp.Error, &started, &finished); err != nil {
		return IntelImport{}, fmt.Errorf("intel import: %w", err)
	}
	imp.Newest, imp.FinishedAt, imp.StartedAt = optMS(newest), optMS(finished), fromMS(started)
	if err := json.Unmarshal([]byte(meta), &imp.Meta); err != nil {
		return IntelImport{}, fmt.Errorf("intel import meta: %w", err)
	}
	return imp, nil
}

// IntelStatus is what the store holds.
type IntelStatus struct {
	CVEs, NVD, CVE5, KEV, EPSS, Techniques int
	NewestCVE                              *time.Time             // newest modification date imported
	LastImports                            map[string]IntelImport // the last completed import of each format
	Running                                []IntelImport
}

// IntelStatus counts the store's records and finds each format's last import.
func (s *Store) IntelStatus(ctx context.Context) (IntelStatus, error) {
	st := IntelStatus{LastImports: map[string]IntelImport{}}
	err := s.read(ctx, func(tx querier) error {
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(nvd), COUNT(cve5) FROM intel_cves`).Scan(&st.CVEs, &st.NVD, &st.CVE5); err != nil {
			return fmt.Errorf("intel counts: %w", err)
		}
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM intel_kev), (SELECT COUNT(*) FROM intel_epss), (SELECT COUNT(*) FROM intel_techniques)`).
			Scan(&st.KEV, &st.EPSS, &st.Techniques); err != nil {
			return fmt.Errorf("intel counts: %w", err)
		}
		var newest sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT MAX(newest) FROM intel_imports WHERE status = 'completed'`).Scan(&newest); err != nil {
			return fmt.Errorf("intel newest: %w", err)
		}
		st.NewestCVE = optMS(newest)
		rows, err := tx.QueryContext(ctx, `SELECT `+importColumns+` FROM intel_imports i WHERE status = 'running' OR id = (SELECT id FROM intel_imports
			WHERE format = i.format AND status = 'completed' ORDER BY started_at DESC, id DESC LIMIT 1) ORDER BY started_at`)
		if err != nil {
			return fmt.Errorf("last imports: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			imp, err := scanImport(rows)
			if err != nil {
				return err
			}
			if imp.Status == ImportRunning {
				st.Running = append(st.Running, imp)
			} else {
				st.LastImports[imp.Format] = imp
			}
		}
		return rows.Err()
	})
	return st, err
}

// ImportChanges lists what an import changed in the CVEs the organization
// watches, by CVE.
func (s *Store) ImportChanges(ctx context.Context, orgID, importID string) ([]IntelChange, error) {
	return queryAll(ctx, s.reads(), "import changes", `SELECT c.cve_id, c.import_id, c.field, c.before, c.after, c.at FROM intel_changes c
		JOIN cve_watchlist w ON w.cve_id = c.cve_id AND w.org_id = ? WHERE c.import_id = ? ORDER BY c.cve_id, c.id`, []any{orgID, importID}, scanChange)
}

// WatchedAmong says which of the CVEs at least one organization watches.
func (s *Store) WatchedAmong(ctx context.Context, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	watched, err := queryAll(ctx, s.reads(), "watched among", `SELECT DISTINCT cve_id FROM cve_watchlist WHERE cve_id IN (`+placeholders(len(ids))+`)`,
		args, scanString)
	for _, id := range watched {
		out[id] = true
	}
	return out, err
}

// FinishedAtOr is when the import finished, or def while it runs.
func (imp IntelImport) FinishedAtOr(def time.Time) time.Time {
	if imp.FinishedAt != nil {
		return *imp.FinishedAt
	}
	return def
}

// SyncState is what a sync last fetched from a URL.
type SyncState struct {
	URL, ETag, LastModified string
	CheckedAt               time.Time
}

// SyncStateOf reads a URL's sync state (the zero state for a new URL).
func (s *Store) SyncStateOf(ctx context.Context, url string) (SyncState, error) {
	st := SyncState{URL: url}
	var at int64
	err := s.reads().QueryRowContext(ctx, `SELECT etag, last_modified, checked_at FROM intel_sync WHERE url = ?`, url).Scan(&st.ETag, &st.LastModified, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("sync state: %w", err)
	}
	st.CheckedAt = fromMS(at)
	return st, nil
}

// SaveSyncState records what a sync fetched.
func (s *Store) SaveSyncState(ctx context.Context, st SyncState) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO intel_sync (url, etag, last_modified, checked_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified, checked_at = excluded.checked_at`,
			st.URL, st.ETag, st.LastModified, ms(st.CheckedAt))
		if err != nil {
			return fmt.Errorf("save sync state: %w", err)
		}
		return nil
	})
}
