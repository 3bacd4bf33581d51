package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// IntelCVE is a CVE of the intelligence store: the latest normalized record
// of each source and the enrichment view computed from them.
type IntelCVE struct {
	ID        string
	NVD, CVE5 []byte          // packed records (intel); nil when that source has none
	View      json.RawMessage // the enrichment view
	Targets   []byte          // packed: what assets are matched against
	// Facts are what a finding copies of the view (intel's matchFacts),
	// written with the targets.
	Facts           json.RawMessage
	Vendor, Product string
	ViewAt          time.Time // when the view last changed
	// Products are the vendors and products its targets name, indexed for
	// matching; Rematch asks for its findings to be matched again (its
	// targets or view changed). Written only, by imports.
	Products []ProductKey
	Rematch  bool
}

// IntelEPSS is a CVE's EPSS score.
type IntelEPSS struct {
	CVEID             string
	Score, Percentile float64
	ScoreDate         string
}

// IntelTechnique is an imported ATT&CK technique.
type IntelTechnique struct {
	ID, Name   string
	Tactics    []string
	Deprecated bool
}

// IntelChange is what an import changed in one field of a CVE's view.
type IntelChange struct {
	CVEID         string
	ImportID      string
	Field         string
	Before, After *string
	At            time.Time
}

// IntelRows is what an import batch reads before deciding what changes:
// the stored CVEs, KEV entries and EPSS scores of the batch's ids.
type IntelRows struct {
	CVEs map[string]IntelCVE
	KEV  map[string]json.RawMessage
	EPSS map[string]IntelEPSS
}

// IntelRowsFor reads, in one snapshot, what the store holds of the CVEs.
func (s *Store) IntelRowsFor(ctx context.Context, ids []string) (IntelRows, error) {
	out := IntelRows{CVEs: map[string]IntelCVE{}, KEV: map[string]json.RawMessage{}, EPSS: map[string]IntelEPSS{}}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	in := "(" + placeholders(len(ids)) + ")"
	err := s.read(ctx, func(tx querier) error {
		cves, err := queryAll(ctx, tx, "intel cves", `SELECT i.id, i.nvd, i.cve5, i.view, m.targets, i.vendor, i.product, i.view_at FROM intel_cves i LEFT JOIN intel_cve_match m ON m.cve_id = i.id WHERE i.id IN `+in,
			args, func(rows *sql.Rows) (IntelCVE, error) { return scanIntelCVE(rows) })
		if err != nil {
			return err
		}
		for _, c := range cves {
			out.CVEs[c.ID] = c
		}
		type kevRow struct{ id, data string }
		kev, err := queryAll(ctx, tx, "intel kev", `SELECT cve_id, data FROM intel_kev WHERE cve_id IN `+in, args,
			func(rows *sql.Rows) (kevRow, error) {
				var k kevRow
				return k, rows.Scan(&k.id, &k.data)
			})
		if err != nil {
			return err
		}
		for _, k := range kev {
			out.KEV[k.id] = json.RawMessage(k.data)
		}
		epss, err := queryAll(ctx, tx, "intel epss", `SELECT cve_id, score, percentile, score_date FROM intel_epss WHERE cve_id IN `+in, args,
			func(rows *sql.Rows) (IntelEPSS, error) {
				var e IntelEPSS
				return e, rows.Scan(&e.CVEID, &e.Score, &e.Percentile, &e.ScoreDate)
			})
		for _, e := range epss {
			out.EPSS[e.CVEID] = e
		}
		return err
	})
	return out, err
}

func scanIntelCVE(row interface{ Scan(...any) error }) (IntelCVE, error) {
	var c IntelCVE
	var nvd, cve5, targets []byte
	var view string
	var at int64
	if err := row.Scan(&c.ID, &nvd, &cve5, &view, &targets, &c.Vendor, &c.Product, &at); err != nil {
		return IntelCVE{}, fmt.Errorf("intel cve: %w", err)
	}
	c.NVD, c.CVE5, c.Targets = nvd, cve5, targets
	c.View, c.ViewAt = json.RawMessage(view), fromMS(at)
	return c, nil
}

// IntelCVE reads one CVE of the store.
func (s *Store) IntelCVE(ctx context.Context, id string) (IntelCVE, error) {
	c, err := scanIntelCVE(s.reads().QueryRowContext(ctx, `SELECT i.id, i.nvd, i.cve5, i.view, m.targets, i.vendor, i.product, i.view_at FROM intel_cves i LEFT JOIN intel_cve_match m ON m.cve_id = i.id WHERE i.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return IntelCVE{}, ErrNotFound
	}
	return c, err
}

// SearchIntel finds CVEs whose vendor or product is the term (normalized
// by the caller), newest first.
func (s *Store) SearchIntel(ctx context.Context, term string, limit int) ([]IntelCVE, error) {
	return queryAll(ctx, s.reads(), "search intel", `SELECT i.id, i.nvd, i.cve5, i.view, m.targets, i.vendor, i.product, i.view_at FROM intel_cves i LEFT JOIN intel_cve_match m ON m.cve_id = i.id
		WHERE i.vendor = ?1 OR i.product = ?1 ORDER BY i.id DESC LIMIT ?2`, []any{term, limit}, func(rows *sql.Rows) (IntelCVE, error) { return scanIntelCVE(rows) })
}

// IntelBatch is one batch of an import, written in one transaction.
type IntelBatch struct {
	CVEs       []IntelCVE // upserted whole
	KEV        map[string]json.RawMessage
	EPSS       []IntelEPSS
	Techniques []IntelTechnique
	Changes    []IntelChange
}

// WriteIntel applies an import batch.
func (s *Store) WriteIntel(ctx context.Context, b IntelBatch) error {
	if s.OnReserve() {
		return ErrDiskFull
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, c := range b.CVEs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO intel_cves (id, nvd, cve5, view, vendor, product, view_at) VALUES (?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET nvd = excluded.nvd, cve5 = excluded.cve5, view = excluded.view, vendor = excluded.vendor,
				product = excluded.product, view_at = excluded.view_at`,
				c.ID, nullBytes(c.NVD), nullBytes(c.CVE5), string(c.View), c.Vendor, c.Product, ms(c.ViewAt)); err != nil {
				return fmt.Errorf("write intel cve %s: %w", c.ID, err)
			}
			if !c.Rematch { // neither targets nor view changed, so neither did facts
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO intel_cve_match (cve_id, targets, facts) VALUES (?, ?, ?)
				ON CONFLICT (cve_id) DO UPDATE SET targets = excluded.targets, facts = excluded.facts`, c.ID, c.Targets, string(c.Facts)); err != nil {
				return fmt.Errorf("write intel cve %s targets: %w", c.ID, err)
			}
			if err := setCVEProducts(ctx, tx, c.ID, c.Products); err != nil {
				return err
			}
			if err := queueMatch(ctx, tx, MatchCVE, c.ID, ms(s.now())); err != nil {
				return err
			}
		}
		for id, data := range b.KEV {
			if _, err := tx.ExecContext(ctx, `INSERT INTO intel_kev (cve_id, data) VALUES (?, ?)
				ON CONFLICT (cve_id) DO UPDATE SET data = excluded.data`, id, string(data)); err != nil {
				return fmt.Errorf("write kev %s: %w", id, err)
			}
		}
		for _, e := range b.EPSS {
			if _, err := tx.ExecContext(ctx, `INSERT INTO intel_epss (cve_id, score, percentile, score_date) VALUES (?, ?, ?, ?)
				ON CONFLICT (cve_id) DO UPDATE SET score = excluded.score, percentile = excluded.percentile, score_date = excluded.score_date`,
				e.CVEID, e.Score, e.Percentile, e.ScoreDate); err != nil {
				return fmt.Errorf("write epss %s: %w", e.CVEID, err)
			}
		}
		for _, t := range b.Techniques {
			tactics, _ := json.Marshal(t.Tactics)
			if _, err := tx.ExecContext(ctx, `INSERT INTO intel_techniques (id, name, tactics, deprecated) VALUES (?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET name = excluded.name, tactics = excluded.tactics, deprecated = excluded.deprecated`,
				t.ID, t.Name, string(tactics), t.Deprecated); err != nil {
				return fmt.Errorf("write technique %s: %w", t.ID, err)
			}
		}
		for _, c := range b.Changes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO intel_changes (cve_id, import_id, field, before, after, at) VALUES (?, ?, ?, ?, ?, ?)`,
				c.CVEID, c.ImportID, c.Field, c.Before, c.After, ms(c.At)); err != nil {
				return fmt.Errorf("write intel change: %w", err)
			}
		}
		return nil
	})
}

func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

// IntelTechniques reads the imported ATT&CK techniques.
func (s *Store) IntelTechniques(ctx context.Context) (map[string]IntelTechnique, error) {
	list, err := queryAll(ctx, s.reads(), "intel techniques", `SELECT id, name, tactics, deprecated FROM intel_techniques`, nil,
		func(rows *sql.Rows) (IntelTechnique, error) {
			var t IntelTechnique
			var tactics string
			if err := rows.Scan(&t.ID, &t.Name, &tactics, &t.Deprecated); err != nil {
				return t, err
			}
			return t, json.Unmarshal([]byte(tactics), &t.Tactics)
		})
	out := make(map[string]IntelTechnique, len(list))
	for _, t := range list {
		out[t.ID] = t
	}
	return out, err
}

// IntelChanges lists the changes recorded for a CVE, oldest first (at most
// limit, the newest kept).
func (s *Store) IntelChanges(ctx context.Context, cveID string, limit int) ([]IntelChange, error) {
	return queryAll(ctx, s.reads(), "intel changes", `SELECT cve_id, import_id, field, before, after, at FROM
		(SELECT id, cve_id, import_id, field, before, after, at FROM intel_changes WHERE cve_id = ? ORDER BY id DESC LIMIT ?) AS newest ORDER BY id`,
		[]any{cveID, limit}, scanChange)
}

func scanChange(rows *sql.Rows) (IntelChange, error) {
	var c IntelChange
	var at int64
	err := rows.Scan(&c.CVEID, &c.ImportID, &c.Field, &c.Before, &c.After, &at)
	c.At = fromMS(at)
	return c, err
}
