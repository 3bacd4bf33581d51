package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Software is one entry of an asset's software list.
type Software struct {
	Vendor  string `json:"vendor"`
	Product string `json:"product"`
	Version string `json:"version"`
	CPE     string `json:"cpe,omitempty"`
	// Rule is how an inventory import named it as NVD does (intel's name
	// dictionary): "display name: mozilla:firefox".
	Rule string `json:"rule,omitempty"`
	// Packages are the installed packages an agent reported this entry by
	// ("deb:libssl3=3.0.11-1~deb12u2", "program:Mozilla Firefox (x64
	// en-US)=115.1.0"): several binary packages of one source are one
	// entry, gone when the last of them is.
	Packages []string `json:"packages,omitempty"`
}

// Asset is a machine of the organization's inventory.
type Asset struct {
	ID, OrgID, Hostname, IP, OS, Owner string
	// Identifier is what the reporting agent calls the host (osquery's
	// host UUID); empty when none.
	Identifier           string
	InternetFacing       bool
	Software             []Software
	CreatedAt, UpdatedAt time.Time
	// Products are the software's vendors and products as the matching
	// indexes them (set by intel on writes; not read back).
	Products []ProductKey
}

// MaxAssets bounds an organization's inventory.
const MaxAssets = 10000

const assetColumns = `id, org_id, hostname, ip, os, owner, software, created_at, updated_at, internet_facing, identifier`

func scanAsset(row interface{ Scan(...any) error }) (Asset, error) {
	a, software, err := scanAssetRaw(row)
	if err != nil {
		return Asset{}, err
	}
	return a, decodeSoftware(&a, software)
}

// scanAssetRaw reads an asset's row, its software left encoded.
func scanAssetRaw(row interface{ Scan(...any) error }) (Asset, string, error) {
	var a Asset
	var software string
	var created, updated int64
	if err := row.Scan(&a.ID, &a.OrgID, &a.Hostname, &a.IP, &a.OS, &a.Owner, &software, &created, &updated, &a.InternetFacing, &a.Identifier); err != nil {
		return Asset{}, "", fmt.Errorf("asset: %w", err)
	}
	a.CreatedAt, a.UpdatedAt = fromMS(created), fromMS(updated)
	return a, software, nil
}

func decodeSoftware(a *Asset, software string) error {
	list, err := parseSoftware(software)
	if err != nil {
		return fmt.Errorf("asset %s software: %w", a.ID, err)
	}
	a.Software = list
	return nil
}

// queryAssets reads many assets, their software decoded on every core:
// decoding is most of the cost of reading an inventory for matching.
func queryAssets(ctx context.Context, q querier, query string, args []any) ([]Asset, error) {
	var software []string
	assets, err := queryAll(ctx, q, "assets", query, args, func(rows *sql.Rows) (Asset, error) {
		a, sw, err := scanAssetRaw(rows)
		software = append(software, sw)
		return a, err
	})
	if err != nil {
		return nil, err
	}
	workers := min(runtime.GOMAXPROCS(0), 1+len(assets)/256)
	if workers == 1 { // a few assets: no goroutine for them
		for i := range assets {
			if err := decodeSoftware(&assets[i], software[i]); err != nil {
				return nil, err
			}
		}
		return assets, nil
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(assets); i += workers {
				if err := decodeSoftware(&assets[i], software[i]); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return assets, errors.Join(errs...)
}

// PutAssets stores assets in one transaction, all or none: an asset whose
// hostname the organization has already is updated in place (its id
// kept). created says, per asset, whether it is new.
func (s *Store) PutAssets(ctx context.Context, orgID string, assets []Asset) (out []Asset, created []bool, err error) {
	now := s.now()
	err = s.write(ctx, func(tx *sql.Tx) error {
		out, created = make([]Asset, len(assets)), make([]bool, len(assets))
		for i, a := range assets {
			software, err := json.Marshal(a.Software)
			if err != nil {
				return fmt.Errorf("encode software: %w", err)
			}
			id := NewID("ast", now)
			row := tx.QueryRowContext(ctx, `INSERT INTO assets (`+assetColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (org_id, hostname) DO UPDATE SET ip = excluded.ip, os = excluded.os, owner = excluded.owner,
				software = excluded.software, updated_at = excluded.updated_at, internet_facing = excluded.internet_facing,
				identifier = CASE WHEN excluded.identifier <> '' THEN excluded.identifier ELSE assets.identifier END RETURNING `+assetColumns,
				id, orgID, a.Hostname, a.IP, a.OS, a.Owner, string(software), ms(now), ms(now), a.InternetFacing, a.Identifier)
			if out[i], err = scanAsset(row); err != nil {
				return err
			}
			created[i] = out[i].ID == id
			if err := setAssetProducts(ctx, tx, orgID, out[i].ID, a.Products, ms(now)); err != nil {
				return err
			}
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM assets WHERE org_id = ?`, orgID).Scan(&n); err != nil {
			return fmt.Errorf("count assets: %w", err)
		}
		if n > MaxAssets {
			return ErrAssetLimit
		}
		return nil
	})
	return out, created, err
}

// Assets lists the organization's assets by hostname.
func (s *Store) Assets(ctx context.Context, orgID string, p Page) ([]Asset, int, error) {
	return readPage(ctx, s, pageQuery{what: "assets", args: []any{orgID},
		count: `SELECT COUNT(*) FROM assets WHERE org_id = ?`,
		list:  `SELECT ` + assetColumns + ` FROM assets WHERE org_id = ? ORDER BY hostname LIMIT ? OFFSET ?`},
		p, func(rows *sql.Rows) (Asset, error) { return scanAsset(rows) })
}

// AllAssets reads the whole inventory (at most MaxAssets), for matching.
func (s *Store) AllAssets(ctx context.Context, orgID string) ([]Asset, error) {
	return queryAll(ctx, s.reads(), "assets", `SELECT `+assetColumns+` FROM assets WHERE org_id = ? ORDER BY hostname`, []any{orgID},
		func(rows *sql.Rows) (Asset, error) { return scanAsset(rows) })
}

// AssetByID reads one asset of the organization.
func (s *Store) AssetByID(ctx context.Context, orgID, id string) (Asset, error) {
	a, err := scanAsset(s.reads().QueryRowContext(ctx, `SELECT `+assetColumns+` FROM assets WHERE org_id = ? AND id = ?`, orgID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Asset{}, ErrNotFound
	}
	return a, err
}

// UpdateAsset replaces an asset's fields; a hostname another asset has is
// ErrAssetHostname.
func (s *Store) UpdateAsset(ctx context.Context, a Asset) (Asset, error) {
	software, err := json.Marshal(a.Software)
	if err != nil {
		return Asset{}, fmt.Errorf("encode software: %w", err)
	}
	var out Asset
	err = s.write(ctx, func(tx *sql.Tx) error {
		out, err = scanAsset(tx.QueryRowContext(ctx, `UPDATE assets SET hostname = ?, ip = ?, os = ?, owner = ?, software = ?, updated_at = ?,
			internet_facing = ?, identifier = ? WHERE org_id = ? AND id = ? RETURNING `+assetColumns, a.Hostname, a.IP, a.OS, a.Owner, string(software),
			ms(s.now()), a.InternetFacing, a.Identifier, a.OrgID, a.ID))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return ErrNotFound
		case isUniqueViolation(err):
			return ErrAssetHostname
		case err != nil:
			return err
		}
		return setAssetProducts(ctx, tx, a.OrgID, a.ID, a.Products, ms(s.now()))
	})
	return out, err
}

// DeleteAsset removes an asset of the organization.
func (s *Store) DeleteAsset(ctx context.Context, orgID, id string) error {
	return s.deleteOwned(ctx, "assets", orgID, id)
}

// deleteOwned deletes a row of an organization's table by id; ErrNotFound
// when the organization has none (table is a constant of the caller).
func (s *Store) deleteOwned(ctx context.Context, table, orgID, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE org_id = ? AND id = ?`, orgID, id)
		if err != nil {
			return fmt.Errorf("delete from %s: %w", table, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// AssetByIdentifier reads the organization's (oldest) asset of an agent's
// identifier.
func (s *Store) AssetByIdentifier(ctx context.Context, orgID, identifier string) (Asset, error) {
	if identifier == "" {
		return Asset{}, ErrNotFound
	}
	a, err := scanAsset(s.reads().QueryRowContext(ctx, `SELECT `+assetColumns+` FROM assets WHERE org_id = ? AND identifier = ?
		ORDER BY created_at, id LIMIT 1`, orgID, identifier))
	if errors.Is(err, sql.ErrNoRows) {
		return Asset{}, ErrNotFound
	}
	return a, err
}

// AssetByHostname reads one asset of the organization by host name.
func (s *Store) AssetByHostname(ctx context.Context, orgID, hostname string) (Asset, error) {
	a, err := scanAsset(s.reads().QueryRowContext(ctx, `SELECT `+assetColumns+` FROM assets WHERE org_id = ? AND hostname = ?`, orgID, hostname))
	if errors.Is(err, sql.ErrNoRows) {
		return Asset{}, ErrNotFound
	}
	return a, err
}
