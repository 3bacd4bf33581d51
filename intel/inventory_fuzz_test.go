package intel

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"garrison/store/storetest"
	"garrison/valid"
)

// Every inventory format is outside input: whatever a file holds, reading
// it answers a validation error or assets that pass the inventory's own
// checks, and never panics.
func FuzzParseInventory(f *testing.F) {
	seeds, _ := filepath.Glob("../handlers/testdata/inventory/*")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"hostname,product,vendor,version\nws-1,Firefox,Mozilla,68.0\n",
		`{"bomFormat":"CycloneDX","specVersion":"1.5","metadata":{"component":{"name":"web"}},"components":[{"name":"x","purl":"pkg:npm/%40a/b@1"}]}`,
		`[{"name":"curl","version":"7.81.0-1","source":"","arch":"amd64","revision":"1","maintainer":"m"}]`,
		`{"name":"pack_x_deb_packages","hostIdentifier":"h","counter":0,"columns":{"name":"a","version":"1:2-3","source":"b (2-3)"},"action":"added"}`,
		`{"name":"q","hostname":"h","counter":"1","diffResults":{"added":[{"platform":"ubuntu","name":"Ubuntu","version":"","major":"22","codename":"x"}],"removed":null}}`,
		`{"system_info":[{"hostname":"","uuid":"u","computer_name":"Ö"}],"programs":[{"name":"","version":"","publisher":""}]}`,
	} {
		f.Add([]byte(s))
	}
	st := storetest.Open(f)
	s := New(Config{Store: st, TempDir: f.TempDir()})
	f.Fuzz(func(t *testing.T, body []byte) {
		format, inputs, problems, _, err := s.parseInventory(context.Background(), "org_fuzz", body, InventoryOptions{Hostname: "fuzz-host"})
		if err != nil {
			return
		}
		if format == "" {
			t.Fatalf("no format for a file read")
		}
		for _, pr := range problems {
			if pr.Where == "" || pr.Reason == "" {
				t.Fatalf("a problem without its place or reason: %+v", pr)
			}
		}
		for _, in := range inputs {
			var p valid.Problems
			in.check(&p, "") // what the write checks next: it must not panic either
		}
	})
}
