package intel

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"garrison/store"
	"garrison/store/storetest"
)

func nvdOne(id, modified string, score float64, vector string) []byte {
	return []byte(`{"format":"NVD_CVE","version":"2.0","vulnerabilities":[{"cve":{"id":"` + id + `","published":"2024-01-01T00:00:00.000",
		"lastModified":"` + modified + `","vulnStatus":"Analyzed","descriptions":[{"lang":"en","value":"x"}],
		"metrics":{"cvssMetricV31":[{"source":"nvd@nist.gov","type":"Primary","cvssData":{"version":"3.1","vectorString":"` + vector + `","baseScore":` +
		strconv.FormatFloat(score, 'f', -1, 64) + `,"baseSeverity":"HIGH"}}]}}}]}`)
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// An older copy of a record never replaces the newer one.
func TestOlderRecordIsKept(t *testing.T) {
	s := testService(t)
	ctx := context.Background()
	newer := writeFile(t, "new.json", nvdOne("CVE-2024-1000", "2024-06-01T00:00:00.000", 9.8, "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"))
	older := writeFile(t, "old.json", nvdOne("CVE-2024-1000", "2024-02-01T00:00:00.000", 7.5, "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N"))
	if _, err := s.ImportFile(ctx, newer, ImportOptions{Name: "new"}); err != nil {
		t.Fatal(err)
	}
	res, err := s.ImportFile(ctx, older, ImportOptions{Name: "old"})
	if err != nil || res.Unchanged != 1 || res.Changed != 0 {
		t.Fatalf("older import: %v %+v", err, res.IntelImport)
	}
	r, ok, err := s.Lookup(ctx, "CVE-2024-1000")
	if err != nil || !ok || r.View.Primary.Score != 9.8 {
		t.Fatalf("after the older copy: %+v %v", r.View.Primary, err)
	}
}

// clockedStore opens a store in dir whose time is clock's.
func clockedStore(t *testing.T, dir string, clock func() time.Time) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Config{Path: filepath.Join(dir, "g.db"), Schema: storetest.Schema(t), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// One import at a time across processes; one whose process died is failed
// by the next.
func TestImportLockAndStaleImports(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st := clockedStore(t, dir, clock)
	ctx := context.Background()
	// Another process's import, running.
	if err := st.StartIntelImport(ctx, store.IntelImport{ID: "imp_other", Format: "nvd", Name: "x", Via: "cli", Actor: "cli", StartedAt: now}, ""); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Store: st, Now: clock, TempDir: dir})
	file := writeFile(t, "nvd.json", nvdOne("CVE-2024-1000", "2024-06-01T00:00:00.000", 9.8, "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"))
	if _, err := s.ImportFile(ctx, file, ImportOptions{Name: "nvd"}); !errors.Is(err, ErrImportRunning) {
		t.Fatalf("while another runs: %v", err)
	}
	// Its process died: no beat for three minutes.
	now = now.Add(3 * time.Minute)
	if _, err := s.ImportFile(ctx, file, ImportOptions{Name: "nvd"}); err != nil {
		t.Fatal(err)
	}
	old, err := st.IntelImportByID(ctx, "imp_other")
	if err != nil || old.Status != store.ImportFailed || !strings.Contains(old.Error, "stopped without finishing") {
		t.Fatalf("stale import: %+v %v", old, err)
	}
}

// An import whose process ended is closed by the maintenance loop's look,
// not only by the next import: its status stops saying running.
func TestStaleImportRecoveredWithoutNextImport(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st := clockedStore(t, dir, clock)
	ctx := context.Background()
	if err := st.StartIntelImport(ctx, store.IntelImport{ID: "imp_other", Format: "nvd", Name: "x", Via: "cli", Actor: "cli", StartedAt: now}, ""); err != nil {
		t.Fatal(err)
	}
	queued := 0
	s := New(Config{Store: st, Now: clock, TempDir: dir, Queued: func() { queued++ }})
	status := func() string {
		t.Helper()
		imp, err := st.IntelImportByID(ctx, "imp_other")
		if err != nil {
			t.Fatal(err)
		}
		return imp.Status
	}
	// Beating a minute ago: alive, left alone.
	now = now.Add(time.Minute)
	if err := s.RecoverStale(ctx); err != nil || status() != store.ImportRunning {
		t.Fatalf("a live import: %v, %s", err, status())
	}
	// Three minutes without a beat: its process ended.
	now = now.Add(2 * time.Minute)
	if err := s.RecoverStale(ctx); err != nil || status() != store.ImportFailed {
		t.Fatalf("a stale import: %v, %s", err, status())
	}
	if err := s.RecoverStale(ctx); err != nil || status() != store.ImportFailed {
		t.Fatalf("a second look: %v, %s", err, status())
	}
	if queued != 0 {
		t.Errorf("%d wake-ups for an import that changed nothing", queued)
	}
}

// An import stopped midway (a sync at shutdown, a CLI import interrupted)
// keeps the batches it wrote and says in plain words why it failed.
func TestStoppedImportSaysSo(t *testing.T) {
	s := testService(t)
	var kev strings.Builder
	kev.WriteString(`{"title":"KEV","catalogVersion":"1","dateReleased":"2025-08-25T00:00:00Z","count":1200,"vulnerabilities":[`)
	for i := range 1200 {
		if i > 0 {
			kev.WriteString(",")
		}
		fmt.Fprintf(&kev, `{"cveID":"CVE-2024-%d","vendorProject":"V","product":"P","vulnerabilityName":"n","dateAdded":"2025-01-01",`+
			`"shortDescription":"d","requiredAction":"a","dueDate":"2025-02-01","knownRansomwareCampaignUse":"Unknown","notes":"","cwes":[]}`, 10000+i)
	}
	kev.WriteString("]}")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	res, err := s.ImportFile(ctx, writeFile(t, "kev.json", []byte(kev.String())), ImportOptions{Name: "kev.json", Via: "sync",
		Progress: func(records int, _, _ int64) {
			if records > 0 {
				stop() // after the first batch is written
			}
		}})
	if err == nil {
		t.Fatal("a stopped import succeeded")
	}
	if res.Status != store.ImportFailed || res.Error != stoppedImport {
		t.Fatalf("stopped import: %s %q", res.Status, res.Error)
	}
	if n := kevCount(t, s); n == 0 || n >= 1200 {
		t.Fatalf("%d KEV entries kept from a stopped import of 1200", n)
	}
}

// A gzipped file that unpacks past the bound is refused before anything is
// written.
func TestImportDecompressionBound(t *testing.T) {
	s := testService(t)
	defer func(v int64) { maxDecompressed = v }(maxDecompressed)
	maxDecompressed = 1 << 20
	var csv bytes.Buffer
	csv.WriteString("cve,epss,percentile\n")
	for csv.Len() < 2<<20 {
		csv.WriteString("CVE-2024-1000,0.5,0.5\n")
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(csv.Bytes())
	zw.Close()
	_, err := s.ImportFile(context.Background(), writeFile(t, "epss.csv.gz", gz.Bytes()), ImportOptions{Name: "bomb"})
	if err == nil || !strings.Contains(err.Error(), "more than 4 GiB") {
		t.Fatalf("bomb: %v", err)
	}
	if st, _ := s.Status(context.Background()); st.EPSS != 0 {
		t.Fatalf("%d EPSS rows written", st.EPSS)
	}
}
