// Command findings measures continuous matching at scale (issue 33): a
// full re-match of every CVE against every asset, an incremental import of
// changed CVEs and one asset change, with the process's peak RSS.
//
//	go run ./bench/findings [--cves 250000] [--assets 10000] [--software 50] [--changed 1000] [--json out.json] [--profile dir]
//
// The store is built in a temporary directory through Garrison's own
// packages, as `garrison serve` would: the assets are written first (as
// an inventory import would), then an NVD CVE API 2.0 file of synthetic
// CVEs is imported (each names one to three of 20,000 products, with
// version ranges), which matches everything once. Then, each timed: a full
// re-match (the queue's "all"), an import of a file changing the ranges
// of --changed of those CVEs, and one asset's software changed. Targets:
// full match under 60 s, the incremental import under 2 s, the asset
// change under 50 ms (2-core machine).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"garrison/intel"
	"garrison/store"
)

// products is the universe CVEs and software are drawn from.
const products = 20000

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "findings:", err)
		os.Exit(2)
	}
}

type results struct {
	CVEs, Assets, Software, Changed int
	ImportSeconds                   float64 `json:"import_seconds"`
	Findings                        int     `json:"findings"`
	FullMatchSeconds                float64 `json:"full_match_seconds"`
	IncrementalSeconds              float64 `json:"incremental_import_seconds"`
	AssetChangeMS                   float64 `json:"asset_change_ms"`
	PeakRSSMiB                      float64 `json:"peak_rss_mib"`
}

func run() error {
	nCVEs := flag.Int("cves", 250000, "CVEs in the store")
	nAssets := flag.Int("assets", 10000, "assets in the inventory")
	nSoftware := flag.Int("software", 50, "software entries per asset")
	nChanged := flag.Int("changed", 1000, "CVEs the incremental import changes")
	schemaPath := flag.String("schema", "schema.sql", "Garrison's schema (run from the repository root)")
	jsonPath := flag.String("json", "", "also write the results as JSON to this file")
	profileDir := flag.String("profile", "", "write a CPU profile of each timed step into this directory")
	flag.Parse()
	profile := func(name string) func() { return startProfile(*profileDir, name) }
	ctx := context.Background()
	schema, err := os.ReadFile(*schemaPath)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "findings-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	st, err := store.Open(ctx, store.Config{Path: filepath.Join(tmp, "garrison.db"), Schema: string(schema)})
	if err != nil {
		return err
	}
	defer st.Close()
	// The store maintained as a server maintains it: its WAL checkpointed,
	// so reads do not slow down behind gigabytes of it.
	mctx, stop := context.WithCancel(ctx)
	defer stop()
	go st.Maintain(mctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	svc := intel.New(intel.Config{Store: st, TempDir: tmp})
	res := results{CVEs: *nCVEs, Assets: *nAssets, Software: *nSoftware, Changed: *nChanged}
	rng := rand.New(rand.NewPCG(1, 2))

	user, err := st.Register(ctx, store.NewAccount{Email: "bench@bench.test", Name: "Bench", PasswordHash: "-", OrgName: "Bench",
		Plan: "ultimate", Origin: store.OriginOperator,
		Verify: store.UserToken{Hash: []byte("bench"), Purpose: store.PurposeVerify, ExpiresAt: time.Now().Add(time.Hour)}})
	if err != nil {
		return err
	}
	org := user.OrgID
	fmt.Printf("writing %d assets of %d software entries\n", *nAssets, *nSoftware)
	for from := 0; from < *nAssets; from += 1000 {
		var batch []intel.AssetInput
		for i := from; i < min(from+1000, *nAssets); i++ {
			a := intel.AssetInput{Hostname: fmt.Sprintf("host-%05d", i)}
			for range *nSoftware {
				p := rng.IntN(products)
				a.Software = append(a.Software, store.Software{Vendor: fmt.Sprintf("vendor%d", p/4), Product: fmt.Sprintf("product%d", p),
					Version: fmt.Sprintf("%d.%d.%d", rng.IntN(10), rng.IntN(10), rng.IntN(10))})
			}
			batch = append(batch, a)
		}
		if _, _, err := svc.PutAssets(ctx, org, batch, true); err != nil {
			return err
		}
	}

	file := filepath.Join(tmp, "nvd.json")
	if err := writeNVD(file, rng, 0, *nCVEs, 0); err != nil {
		return err
	}
	start := time.Now()
	if _, err := svc.ImportFile(ctx, file, intel.ImportOptions{Name: "nvd.json", Via: "cli", Actor: "bench"}); err != nil {
		return err
	}
	res.ImportSeconds = time.Since(start).Seconds()
	fmt.Printf("import of %d CVEs, with its first full match: %.1f s\n", *nCVEs, res.ImportSeconds)

	if err := st.QueueMatch(ctx, store.MatchAll, ""); err != nil {
		return err
	}
	start = time.Now()
	done := profile("full")
	if err := svc.Match(ctx); err != nil {
		return err
	}
	done()
	res.FullMatchSeconds = time.Since(start).Seconds()
	if _, res.Findings, err = st.Findings(ctx, org, store.FindingFilter{}, store.Page{Limit: 1}); err != nil {
		return err
	}
	fmt.Printf("full re-match: %.1f s (%d findings)\n", res.FullMatchSeconds, res.Findings)

	changed := filepath.Join(tmp, "changed.json")
	if err := writeNVD(changed, rng, 0, *nChanged, 1); err != nil {
		return err
	}
	start = time.Now()
	done = profile("incremental")
	if _, err := svc.ImportFile(ctx, changed, intel.ImportOptions{Name: "changed.json", Via: "cli", Actor: "bench"}); err != nil {
		return err
	}
	done()
	res.IncrementalSeconds = time.Since(start).Seconds()
	fmt.Printf("import of %d changed CVEs, matched: %.2f s\n", *nChanged, res.IncrementalSeconds)

	assets, _, err := st.Assets(ctx, org, store.Page{Limit: 1})
	if err != nil || len(assets) == 0 {
		return fmt.Errorf("an asset to change: %v", err)
	}
	sw := assets[0].Software
	sw[0].Version = "9.9.9"
	start = time.Now()
	done = profile("asset")
	if _, err := svc.UpdateAsset(ctx, org, assets[0].ID, intel.AssetPatch{Software: &sw}); err != nil {
		return err
	}
	done()
	res.AssetChangeMS = float64(time.Since(start).Microseconds()) / 1000
	fmt.Printf("one asset change, matched: %.1f ms\n", res.AssetChangeMS)

	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		res.PeakRSSMiB = float64(ru.Maxrss) / 1024
	}
	fmt.Printf("peak RSS %.0f MiB (Go %s)\n", res.PeakRSSMiB, runtime.Version())
	if *jsonPath != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		return os.WriteFile(*jsonPath, b, 0o644)
	}
	return nil
}

// startProfile profiles the CPU into dir/name.pprof until the returned
// function is called; without a directory it does nothing.
func startProfile(dir, name string) func() {
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, name+".pprof"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// writeNVD writes CVEs from..to-1 (CVE-2099-1000000 …): each names one to
// three products with a range; generation shifts the ranges, so that a
// second file changes every CVE it holds.
func writeNVD(path string, rng *rand.Rand, from, to, generation int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, `{"format":"NVD_CVE","version":"2.0","resultsPerPage":%d,"startIndex":0,"totalResults":%d,"timestamp":"2026-11-20T00:00:00.000","vulnerabilities":[`, to-from, to-from)
	for i := from; i < to; i++ {
		if i > from {
			w.WriteByte(',')
		}
		var matches []map[string]any
		for range 1 + rng.IntN(3) {
			p := rng.IntN(products)
			lo := rng.IntN(9) + generation
			matches = append(matches, map[string]any{"vulnerable": true, "matchCriteriaId": "00000000-0000-0000-0000-000000000000",
				"criteria":              fmt.Sprintf("cpe:2.3:a:vendor%d:product%d:*:*:*:*:*:*:*:*", p/4, p),
				"versionStartIncluding": fmt.Sprintf("%d.0.0", lo), "versionEndExcluding": fmt.Sprintf("%d.0.5", lo)})
		}
		cve := map[string]any{"id": fmt.Sprintf("CVE-2099-%d", 1000000+i), "sourceIdentifier": "bench", "published": "2026-01-01T00:00:00.000",
			"lastModified": fmt.Sprintf("2026-0%d-01T00:00:00.000", 1+generation), "vulnStatus": "Analyzed",
			"descriptions": []map[string]any{{"lang": "en", "value": "A synthetic flaw."}},
			"metrics": map[string]any{"cvssMetricV31": []map[string]any{{"source": "nvd@nist.gov", "type": "Primary",
				"cvssData": map[string]any{"version": "3.1", "vectorString": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "baseScore": 9.8, "baseSeverity": "CRITICAL"}}}},
			"configurations": []map[string]any{{"nodes": []map[string]any{{"operator": "OR", "negate": false, "cpeMatch": matches}}}}}
		b, err := json.Marshal(map[string]any{"cve": cve})
		if err != nil {
			return err
		}
		w.Write(b)
	}
	w.WriteString("]}")
	return w.Flush()
}
