package intel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"garrison/store"
	"garrison/store/storetest"
)

// writeReplicated writes an NVD file of n records: the sample's records in
// turn under new ids.
func writeReplicated(tb testing.TB, path string, n int) {
	raw, err := os.ReadFile("testdata/nvd_sample.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Vulnerabilities []json.RawMessage `json:"vulnerabilities"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, `{"format":"NVD_CVE","version":"2.0","resultsPerPage":%d,"vulnerabilities":[`, n)
	for i := range n {
		if i > 0 {
			w.WriteByte(',')
		}
		v := doc.Vulnerabilities[i%len(doc.Vulnerabilities)]
		var probe struct{ CVE struct{ ID string } }
		json.Unmarshal(v, &probe)
		w.Write(bytes.Replace(v, []byte(`"id":"`+probe.CVE.ID+`"`), []byte(fmt.Sprintf(`"id":"CVE-2099-%d"`, 1000000+i)), 1))
	}
	w.WriteString("]}")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkImportNVD imports 5,000 NVD records into an empty store: both
// passes (check, then write). records/s is the figure to compare.
func BenchmarkImportNVD(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "nvd.json")
	const n = 5000
	writeReplicated(b, path, n)
	for i := 0; b.Loop(); i++ {
		st, err := store.Open(context.Background(), store.Config{Path: filepath.Join(dir, fmt.Sprintf("g%d.db", i)), Schema: storetest.Schema(b)})
		if err != nil {
			b.Fatal(err)
		}
		svc := New(Config{Store: st, TempDir: dir})
		res, err := svc.ImportFile(context.Background(), path, ImportOptions{Name: "nvd.json", Via: "cli", Actor: "bench"})
		if err != nil || res.Added != n {
			b.Fatalf("import: %v %+v", err, res.IntelImport)
		}
		st.Close()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}
