package store

import (
	"context"
	"path/filepath"
	"testing"
)

// Migration 39 moves each CVE's targets beside the facts of its view a
// finding copies, read from the view as it is.
func TestMigrationToCVEMatch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.db")
	s, err := Open(ctx, Config{Path: path, Schema: schemaThrough(t, 38)})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO intel_cves (id, view, targets, view_at) VALUES ('CVE-2024-1', '{"id":"CVE-2024-1","primary":{"version":"3.1","score":9.8},` +
			`"kev":{"date_added":"2024-01-01","ransomware_use":"Known"},"epss":{"score":0.97,"percentile":0.99}}', x'0102', 0)`,
		`INSERT INTO intel_cves (id, view, targets, view_at) VALUES ('CVE-2024-2', '{"id":"CVE-2024-2","primary":null,"kev":null}', x'03', 0)`,
		`INSERT INTO intel_cves (id, view, targets, view_at) VALUES ('CVE-2024-3', '{"id":"CVE-2024-3","primary":{"score":5}}', x'04', 0)`,
	} {
		if _, err := s.writer.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, Config{Path: path, Schema: realSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.IntelTargets(ctx, []string{"CVE-2024-1", "CVE-2024-2", "CVE-2024-3"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"CVE-2024-1": `{"primary":{"score":9.8},"kev":{"ransomware_use":"Known"},"epss":{"score":0.97}} 0102`,
		"CVE-2024-2": `{"primary":null,"kev":null,"epss":null} 03`,
		"CVE-2024-3": `{"primary":{"score":5},"kev":null,"epss":null} 04`,
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		if got := string(r.Facts) + " " + hexOf(r.Targets); got != want[r.ID] {
			t.Errorf("%s: %s, want %s", r.ID, got, want[r.ID])
		}
	}
	c, err := s.IntelCVE(ctx, "CVE-2024-1")
	if err != nil || hexOf(c.Targets) != "0102" {
		t.Fatalf("the CVE read whole: targets %x, %v", c.Targets, err)
	}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
