package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestBlocklistImport(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(t.TempDir(), "list.txt")
	os.WriteFile(list, []byte("# our own list\n0.0.0.0 evil-c2.example\n||phish-kit.example^\n"), 0o600)
	var out bytes.Buffer
	if err := runCLI(t, []string{"blocklist", "import", "--data", dir, "--category", "malware", "--file", list}, &out, &out); err != nil {
		t.Fatalf("import: %v %s", err, out.String())
	}
	for name, args := range map[string][]string{
		"bad category": {"--category", "Bad Name!", "--file", list},
		"missing file": {"--category", "malware", "--file", filepath.Join(dir, "nope.txt")},
	} {
		if err := runCLI(t, append([]string{"blocklist", "import", "--data", dir}, args...), &out, &out); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	e := newTestEnv(t, func(c *config) { c.dataDir = dir })
	admin := e.register("ann@acme.test", "Acme")
	key := e.apiKey(admin, "write")
	at := e.clock.Now().Add(-time.Minute).Format(time.RFC3339)
	e.postWebhook("native", key, "application/json", mustJSON(map[string]any{"dns": []map[string]string{
		{"timestamp": at, "client": "10.0.0.4", "domain": "beacon.evil-c2.example", "qtype": "A"},
		{"timestamp": at, "client": "10.0.0.4", "domain": "www.example.org", "qtype": "A"},
	}})).must(t, http.StatusCreated)
	top := e.do("GET", "/api/dashboard/network-health", key, nil).must(t, http.StatusOK).data()["top_blocked_domains"].([]any)
	if len(top) != 1 || top[0].(map[string]any)["domain"] != "beacon.evil-c2.example" || top[0].(map[string]any)["category"] != "malware" {
		t.Fatalf("imported list not applied: %v", top)
	}
}
