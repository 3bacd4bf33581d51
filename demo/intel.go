package demo

import (
	"context"
	"embed"
	"fmt"
	"os"
	"path/filepath"

	"garrison/intel"
	"garrison/store"
)

// The demo's intelligence: real NVD and KEV records of six CVEs.
//
//go:embed data/demo-nvd.json data/demo-kev.json data/NOTICE.md
var demoIntel embed.FS

var demoWatched = []string{"CVE-2012-1823", "CVE-2010-4344", "CVE-2009-1151", "CVE-2011-3544", "CVE-2010-3904", "CVE-2004-1464"}

// seedDemoIntel loads the demo's intelligence into the store (public data,
// shared by the appliance), and gives the demo organization an inventory and
// a watchlist of those CVEs.
func seedDemoIntel(ctx context.Context, st *store.Store, admin store.User) error {
	dir, err := os.MkdirTemp("", "garrison-demo-intel-")
	if err != nil {
		return fmt.Errorf("demo intelligence: %w", err)
	}
	defer os.RemoveAll(dir)
	svc := intel.New(intel.Config{Store: st, TempDir: dir})
	for _, name := range []string{"demo-kev.json", "demo-nvd.json"} {
		b, err := demoIntel.ReadFile("data/" + name)
		if err != nil {
			return fmt.Errorf("demo intelligence: %w", err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return fmt.Errorf("demo intelligence: %w", err)
		}
		if _, err := svc.ImportFile(ctx, path, intel.ImportOptions{Name: name, Via: "demo", Actor: admin.ID}); err != nil {
			return fmt.Errorf("demo intelligence %s: %w", name, err)
		}
	}
	if _, _, err := svc.PutAssets(ctx, admin.OrgID, append([]intel.AssetInput(nil), demoAssets...), true); err != nil {
		return fmt.Errorf("demo assets: %w", err)
	}
	for _, id := range demoWatched {
		if _, err := svc.Watch(ctx, admin.OrgID, id, admin.ID); err != nil {
			return fmt.Errorf("demo watchlist %s: %w", id, err)
		}
	}
	return nil
}
