package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ProductKey is a vendor and product as CPE names them, normalized by
// the caller (cpe.Normalize): what assets and CVEs are indexed by, so
// that either side finds the other's candidates (intel/findings.go).
type ProductKey struct {
	Vendor, Product string
}

// Kinds of match_queue jobs.
const (
	MatchAsset = "asset" // key: an asset id
	MatchCVE   = "cve"   // key: a CVE id
	MatchAll   = "all"   // every asset against every CVE, after an upgrade
)

// MatchJob is something still to be matched.
type MatchJob struct {
	Kind, Key string
	queuedAt  int64
}

// maxInList is how many values one IN (…) list carries.
const maxInList = 500

// setAssetProducts replaces an asset's index rows and queues it for
// matching, in the transaction that wrote it.
func setAssetProducts(ctx context.Context, tx *sql.Tx, orgID, assetID string, keys []ProductKey, now int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM asset_products WHERE asset_id = ?`, assetID); err != nil {
		return fmt.Errorf("clear asset products: %w", err)
	}
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `INSERT INTO asset_products (vendor, product, asset_id, org_id) VALUES (?, ?, ?, ?)
			ON CONFLICT DO NOTHING`, k.Vendor, k.Product, assetID, orgID); err != nil {
			return fmt.Errorf("index asset product: %w", err)
		}
	}
	return queueMatch(ctx, tx, MatchAsset, assetID, now)
}

// setCVEProducts replaces a CVE's index rows.
func setCVEProducts(ctx context.Context, tx *sql.Tx, cveID string, keys []ProductKey) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM intel_cve_products WHERE cve_id = ?`, cveID); err != nil {
		return fmt.Errorf("clear cve products: %w", err)
	}
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `INSERT INTO intel_cve_products (vendor, product, cve_id) VALUES (?, ?, ?)
			ON CONFLICT DO NOTHING`, k.Vendor, k.Product, cveID); err != nil {
			return fmt.Errorf("index cve product: %w", err)
		}
	}
	return nil
}

func queueMatch(ctx context.Context, tx *sql.Tx, kind, key string, now int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO match_queue (kind, key, queued_at) VALUES (?, ?, ?)
		ON CONFLICT (kind, key) DO UPDATE SET queued_at = CASE WHEN excluded.queued_at > match_queue.queued_at
		THEN excluded.queued_at ELSE match_queue.queued_at + 1 END`, kind, key, now)
	if err != nil {
		return fmt.Errorf("queue %s %s for matching: %w", kind, key, err)
	}
	return nil
}

// QueueMatch asks for something to be matched again.
func (s *Store) QueueMatch(ctx context.Context, kind, key string) error {
	return s.write(ctx, func(tx *sql.Tx) error { return queueMatch(ctx, tx, kind, key, ms(s.now())) })
}

// MatchJobs reads up to limit queued jobs, an "all" first.
func (s *Store) MatchJobs(ctx context.Context, limit int) ([]MatchJob, error) {
	return queryAll(ctx, s.reads(), "match queue", `SELECT kind, key, queued_at FROM match_queue
		ORDER BY kind = 'all' DESC, queued_at, kind, key LIMIT ?`, []any{limit},
		func(rows *sql.Rows) (MatchJob, error) {
			var j MatchJob
			return j, rows.Scan(&j.Kind, &j.Key, &j.queuedAt)
		})
}

// MatchJobsOf reads the queued jobs of the kind for these keys.
func (s *Store) MatchJobsOf(ctx context.Context, kind string, keys []string) ([]MatchJob, error) {
	var out []MatchJob
	err := chunks(keys, func(part []string) error {
		args := []any{kind}
		for _, k := range part {
			args = append(args, k)
		}
		jobs, err := queryAll(ctx, s.reads(), "match queue", `SELECT kind, key, queued_at FROM match_queue WHERE kind = ? AND key IN (`+
			inList(len(part))+`)`, args, func(rows *sql.Rows) (MatchJob, error) {
			var j MatchJob
			return j, rows.Scan(&j.Kind, &j.Key, &j.queuedAt)
		})
		out = append(out, jobs...)
		return err
	})
	return out, err
}

// MatchStamp is the queue's time now: a full match that starts after it
// covers every job queued up to it (ClearMatchQueue).
func (s *Store) MatchStamp() int64 { return ms(s.now()) }

// ClearMatchQueue removes every job queued before the stamp (one queued
// in its millisecond may postdate what the full match read: it stays).
func (s *Store) ClearMatchQueue(ctx context.Context, stamp int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM match_queue WHERE queued_at < ?`, stamp); err != nil {
			return fmt.Errorf("clear the match queue: %w", err)
		}
		return nil
	})
}

// DoneMatching removes jobs that were matched, unless queued again since
// they were read.
func (s *Store) DoneMatching(ctx context.Context, jobs []MatchJob) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, j := range jobs {
			if _, err := tx.ExecContext(ctx, `DELETE FROM match_queue WHERE kind = ? AND key = ? AND queued_at = ?`,
				j.Kind, j.Key, j.queuedAt); err != nil {
				return fmt.Errorf("done matching %s %s: %w", j.Kind, j.Key, err)
			}
		}
		return nil
	})
}

// inList renders n placeholders: "?, ?, ?".
func inList(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// chunks calls f with consecutive slices of at most maxInList items.
func chunks[T any](items []T, f func([]T) error) error {
	for len(items) > 0 {
		n := min(len(items), maxInList)
		if err := f(items[:n]); err != nil {
			return err
		}
		items = items[n:]
	}
	return nil
}

// valuesOf renders keys as a VALUES list of (vendor, product) rows, flat
// however many (an OR of hundreds of terms is too deep for SQLite).
func valuesOf(keys []ProductKey) (string, []any) {
	rows := make([]string, len(keys))
	args := make([]any, 0, 2*len(keys))
	for i, k := range keys {
		rows[i] = "(?, ?)"
		args = append(args, k.Vendor, k.Product)
	}
	return "VALUES " + strings.Join(rows, ", "), args
}

// CVEsOfProducts lists the CVEs whose targets name any of the products,
// and those naming any vendor or any product ("*"), which may match
// anything.
func (s *Store) CVEsOfProducts(ctx context.Context, keys []ProductKey) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	scan := func(rows *sql.Rows) (string, error) {
		var id string
		err := rows.Scan(&id)
		return id, err
	}
	add := func(ids []string) {
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	wild, err := queryAll(ctx, s.reads(), "cves of any product", `SELECT DISTINCT cve_id FROM intel_cve_products
		WHERE vendor = '*' OR product = '*'`, nil, scan)
	if err != nil {
		return nil, err
	}
	add(wild)
	// One lookup a key on the primary key: a join with a VALUES list lets
	// the planner scan the whole index instead.
	err = s.read(ctx, func(q querier) error {
		for _, k := range keys {
			ids, err := queryAll(ctx, q, "cves of a product", `SELECT cve_id FROM intel_cve_products WHERE vendor = ? AND product = ?`,
				[]any{k.Vendor, k.Product}, scan)
			if err != nil {
				return err
			}
			add(ids)
		}
		return nil
	})
	return out, err
}

// CVEProducts reads the index rows of CVEs.
func (s *Store) CVEProducts(ctx context.Context, ids []string) (map[string][]ProductKey, error) {
	out := map[string][]ProductKey{}
	err := chunks(ids, func(part []string) error {
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := queryAll(ctx, s.reads(), "cve products", `SELECT cve_id, vendor, product FROM intel_cve_products WHERE cve_id IN (`+
			inList(len(part))+`)`, args, func(rows *sql.Rows) ([3]string, error) {
			var r [3]string
			return r, rows.Scan(&r[0], &r[1], &r[2])
		})
		for _, r := range rows {
			out[r[0]] = append(out[r[0]], ProductKey{r[1], r[2]})
		}
		return err
	})
	return out, err
}

// AssetsOfProducts reads the assets, of every organization, whose
// software names any of the products ("*" in a key: any).
func (s *Store) AssetsOfProducts(ctx context.Context, keys []ProductKey) ([]Asset, error) {
	seen := map[string]bool{}
	var out []Asset
	read := func(match string, part []ProductKey) error {
		values, args := valuesOf(part)
		assets, err := queryAssets(ctx, s.reads(), `WITH k (vendor, product) AS (`+values+`)
			SELECT `+qualified("a.", assetColumns)+` FROM assets a WHERE a.id IN (SELECT p.asset_id FROM asset_products p JOIN k ON `+
			match+`)`, args)
		for _, a := range assets {
			if !seen[a.ID] {
				seen[a.ID] = true
				out = append(out, a)
			}
		}
		return err
	}
	var exact, anyVendor, anyProduct []ProductKey
	for _, k := range keys {
		switch {
		case k.Vendor == "*" && k.Product == "*":
			return s.everyAssetOf(ctx)
		case k.Vendor == "*":
			anyVendor = append(anyVendor, k)
		case k.Product == "*":
			anyProduct = append(anyProduct, k)
		default:
			exact = append(exact, k)
		}
	}
	// Exact keys: one lookup each on the primary key, then the assets by id.
	var ids []string
	seenID := map[string]bool{}
	err := s.read(ctx, func(q querier) error {
		for _, k := range exact {
			found, err := queryAll(ctx, q, "assets of a product", `SELECT asset_id FROM asset_products WHERE vendor = ? AND product = ?`,
				[]any{k.Vendor, k.Product}, func(rows *sql.Rows) (string, error) {
					var id string
					return id, rows.Scan(&id)
				})
			if err != nil {
				return err
			}
			for _, id := range found {
				if !seenID[id] {
					seenID[id] = true
					ids = append(ids, id)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	byID, err := s.AssetsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, a := range byID {
		seen[a.ID] = true
		out = append(out, a)
	}
	for _, group := range []struct {
		match string
		keys  []ProductKey
	}{
		{"p.product = k.product", anyVendor},
		{"p.vendor = k.vendor", anyProduct},
	} {
		if err := chunks(group.keys, func(part []ProductKey) error { return read(group.match, part) }); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// everyAssetOf reads every asset of every organization.
func (s *Store) everyAssetOf(ctx context.Context) ([]Asset, error) {
	return queryAssets(ctx, s.reads(), `SELECT `+assetColumns+` FROM assets`, nil)
}

// AssetsByID reads assets of any organization (for matching).
func (s *Store) AssetsByID(ctx context.Context, ids []string) ([]Asset, error) {
	var out []Asset
	err := chunks(ids, func(part []string) error {
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		assets, err := queryAssets(ctx, s.reads(), `SELECT `+assetColumns+` FROM assets WHERE id IN (`+inList(len(part))+`)`, args)
		out = append(out, assets...)
		return err
	})
	return out, err
}

// EveryAsset reads every organization's assets, a page at a time after
// the id given ("" first), for a full match.
func (s *Store) EveryAsset(ctx context.Context, after string, limit int) ([]Asset, error) {
	return queryAssets(ctx, s.reads(), `SELECT `+assetColumns+` FROM assets WHERE id > ? ORDER BY id LIMIT ?`, []any{after, limit})
}

// scanCVEMatch reads what matching reads of a CVE: its facts and targets.
func scanCVEMatch(rows *sql.Rows) (IntelCVE, error) {
	var c IntelCVE
	var facts string
	err := rows.Scan(&c.ID, &facts, &c.Targets)
	c.Facts = json.RawMessage(facts)
	return c, err
}

// EveryCVE reads the intelligence store's CVE ids and targets, a page at
// a time after the id given, for a full match.
func (s *Store) EveryCVE(ctx context.Context, after string, limit int) ([]IntelCVE, error) {
	return queryAll(ctx, s.reads(), "every cve", `SELECT cve_id, facts, targets FROM intel_cve_match WHERE cve_id > ? ORDER BY cve_id LIMIT ?`,
		[]any{after, limit}, scanCVEMatch)
}

// IndexCVEProducts writes the index rows of CVEs whose rows are not what
// they should be (rows that predate the index).
func (s *Store) IndexCVEProducts(ctx context.Context, products map[string][]ProductKey) error {
	ids := make([]string, 0, len(products))
	for id := range products {
		ids = append(ids, id)
	}
	have, err := s.indexedKeys(ctx, "intel_cve_products", "cve_id", ids)
	if err != nil {
		return err
	}
	stale := staleKeys(products, have)
	if len(stale) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, id := range stale {
			if err := setCVEProducts(ctx, tx, id, products[id]); err != nil {
				return err
			}
		}
		return nil
	})
}

// IndexAssetProducts writes the index rows of assets whose rows are not
// what they should be (rows that predate the index), queueing nothing (a
// full match is running).
func (s *Store) IndexAssetProducts(ctx context.Context, assets []Asset) error {
	want := make(map[string][]ProductKey, len(assets))
	orgOf := make(map[string]string, len(assets))
	ids := make([]string, len(assets))
	for i, a := range assets {
		want[a.ID], orgOf[a.ID], ids[i] = a.Products, a.OrgID, a.ID
	}
	have, err := s.indexedKeys(ctx, "asset_products", "asset_id", ids)
	if err != nil {
		return err
	}
	stale := staleKeys(want, have)
	if len(stale) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, id := range stale {
			if _, err := tx.ExecContext(ctx, `DELETE FROM asset_products WHERE asset_id = ?`, id); err != nil {
				return fmt.Errorf("clear asset products: %w", err)
			}
			for _, k := range want[id] {
				if _, err := tx.ExecContext(ctx, `INSERT INTO asset_products (vendor, product, asset_id, org_id) VALUES (?, ?, ?, ?)
					ON CONFLICT DO NOTHING`, k.Vendor, k.Product, id, orgOf[id]); err != nil {
					return fmt.Errorf("index asset product: %w", err)
				}
			}
		}
		return nil
	})
}

// indexedKeys reads the index rows of ids (table and column are
// constants of the callers): a full match rewrites only rows that
// differ, so a re-match of an indexed store writes no index row.
func (s *Store) indexedKeys(ctx context.Context, table, column string, ids []string) (map[string]map[ProductKey]bool, error) {
	have := make(map[string]map[ProductKey]bool, len(ids))
	err := chunks(ids, func(part []string) error {
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := queryAll(ctx, s.reads(), table, `SELECT `+column+`, vendor, product FROM `+table+` WHERE `+column+` IN (`+inList(len(part))+`)`,
			args, func(rows *sql.Rows) (indexRow, error) {
				var r indexRow
				return r, rows.Scan(&r.id, &r.k.Vendor, &r.k.Product)
			})
		for _, r := range rows {
			if have[r.id] == nil {
				have[r.id] = map[ProductKey]bool{}
			}
			have[r.id][r.k] = true
		}
		return err
	})
	return have, err
}

// indexRow is a row of an index table: whose and which key.
type indexRow struct {
	id string
	k  ProductKey
}

// staleKeys are the ids whose index rows are not the keys they should be.
func staleKeys(want map[string][]ProductKey, have map[string]map[ProductKey]bool) []string {
	var stale []string
	for id, keys := range want {
		got := have[id]
		same := true
		for _, k := range keys {
			if !got[k] {
				same = false
				break
			}
		}
		if !same || len(got) != len(distinctKeys(keys)) {
			stale = append(stale, id)
		}
	}
	slices.Sort(stale)
	return stale
}

func distinctKeys(keys []ProductKey) map[ProductKey]bool {
	out := make(map[ProductKey]bool, len(keys))
	for _, k := range keys {
		out[k] = true
	}
	return out
}

// qualified qualifies a column list: qualified("a.", "id, org_id").
func qualified(prefix, columns string) string {
	parts := strings.Split(columns, ", ")
	for i, p := range parts {
		parts[i] = prefix + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

// KnownProducts says which of the keys the intelligence store's CVEs name.
func (s *Store) KnownProducts(ctx context.Context, keys []ProductKey) (map[ProductKey]bool, error) {
	out := map[ProductKey]bool{}
	err := s.read(ctx, func(q querier) error {
		for _, k := range keys {
			var one int
			err := q.QueryRowContext(ctx, `SELECT 1 FROM intel_cve_products WHERE vendor = ? AND product = ? LIMIT 1`, k.Vendor, k.Product).Scan(&one)
			switch {
			case err == nil:
				out[k] = true
			case !errors.Is(err, sql.ErrNoRows):
				return fmt.Errorf("known product: %w", err)
			}
		}
		return nil
	})
	return out, err
}

// VendorsOfProduct lists up to limit vendors the intelligence store's
// CVEs name a product under.
func (s *Store) VendorsOfProduct(ctx context.Context, product string, limit int) ([]string, error) {
	return queryAll(ctx, s.reads(), "vendors of a product", `SELECT DISTINCT vendor FROM intel_cve_products WHERE product = ? AND vendor <> '*'
		ORDER BY vendor LIMIT ?`, []any{product, limit}, func(rows *sql.Rows) (string, error) {
		var v string
		return v, rows.Scan(&v)
	})
}

// IntelTargets reads what matching needs of CVEs: their facts and
// targets, not their records or views.
func (s *Store) IntelTargets(ctx context.Context, ids []string) ([]IntelCVE, error) {
	var out []IntelCVE
	err := chunks(ids, func(part []string) error {
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		found, err := queryAll(ctx, s.reads(), "cve targets", `SELECT cve_id, facts, targets FROM intel_cve_match WHERE cve_id IN (`+inList(len(part))+`)`,
			args, scanCVEMatch)
		out = append(out, found...)
		return err
	})
	return out, err
}
