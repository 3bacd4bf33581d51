package handlers_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"garrison/handlers/apitest"
)

// softwareOf lists an asset's software as "vendor:product version".
func softwareOf(t *testing.T, e *env, cred, id string) []string {
	t.Helper()
	var out []string
	for _, sw := range e.Do("GET", "/api/assets/"+id, cred, nil).Must(t, http.StatusOK).Get("data", "software").List() {
		out = append(out, sw.Get("vendor").Str()+":"+sw.Get("product").Str()+" "+sw.Get("version").Str())
	}
	slices.Sort(out)
	return out
}

// osquery's results are an inventory: one host's tables (osqueryi --json
// per table), a pack's results log whose first run is the host's whole
// inventory and whose later runs change it, other queries' rows skipped.
// Windows programs are named as NVD names them and find their CVEs; a
// Debian package is named by its source package and its upstream version.
func TestInventoryImportOsquery(t *testing.T) {
	nvd := readShared(t, "nvd_cves_sample.json")
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.importIntel(admin.Token, nvd).Must(t, http.StatusOK)

	// A Windows host's tables.
	ws := e.postInventory(admin.Token, "", readTestdata(t, "testdata/inventory/osquery-ws-07.json")).Must(t, http.StatusCreated).Get("data")
	asset := ws.Get("assets").List()[0]
	if ws.Get("format").Str() != "osquery" || asset.Get("hostname").Str() != "ws-07" || asset.Get("added").Len() != 5 {
		t.Fatalf("the Windows host: %v", ws)
	}
	wsID := asset.Get("id").Str()
	detail := e.Do("GET", "/api/assets/"+wsID, admin.Token, nil).Must(t, http.StatusOK).Get("data")
	if detail.Get("os").Str() != "Microsoft Windows 10 Pro 10.0.19045" || detail.Get("identifier").Str() != "4C4C4544-0037-3510-8052-B7C04F4B4D32" {
		t.Fatalf("os %q, identifier %q", detail.Get("os").Str(), detail.Get("identifier").Str())
	}
	rules := map[string]string{}
	for _, sw := range detail.Get("software").List() {
		rules[sw.Get("vendor").Str()+":"+sw.Get("product").Str()+" "+sw.Get("version").Str()] = sw.Get("rule").Str()
	}
	for key, want := range map[string]string{
		"google:chrome 129.0.6668.101":        "display name: google:chrome",
		"mozilla:firefox 115.1.0":             "display name: mozilla:firefox",
		"wireshark:wireshark 4.4.0":           "only vendor: NVD names wireshark under wireshark alone",
		"Igor Pavlov:7-Zip 23.01 (x64) 23.01": "",
	} {
		if got, ok := rules[key]; !ok || got != want {
			t.Errorf("%s: rule %q (read %v)", key, got, rules)
		}
	}
	found := findingsOf(t, e, admin.Token, "asset="+wsID)
	for _, cve := range []string{"CVE-2024-9958", "CVE-2024-9962", "CVE-2024-9966", "CVE-2023-4581", "CVE-2023-4584", "CVE-2024-9780"} {
		if _, ok := found[cve]; !ok {
			t.Errorf("ws-07 does not find %s (finds %v)", cve, sortedKeys(found))
		}
	}
	if _, ok := found["CVE-2024-7535"]; ok {
		t.Errorf("Chrome 129 finds CVE-2024-7535, fixed in 127")
	}

	// The host renamed keeps its asset: merged by its identifier.
	renamed := strings.Replace(string(readTestdata(t, "testdata/inventory/osquery-ws-07.json")), `"hostname": "WS-07"`, `"hostname": "WS-07-NEW"`, 1)
	again := e.postInventory(admin.Token, "", []byte(renamed)).Must(t, http.StatusOK).Get("data", "assets").List()[0]
	if again.Get("id").Str() != wsID || again.Get("added").Len()+again.Get("removed").Len()+again.Get("changed").Len() != 0 {
		t.Fatalf("the same host under a new name: %v", again)
	}

	// A pack's results log: the real log of another host's other queries
	// comes first and is skipped; web-1's first run is its inventory.
	log := append(append(readTestdata(t, "testdata/inventory/osquery-msticpy-results.log"), '\n'), readTestdata(t, "testdata/inventory/osquery-pack-web-1.log")...)
	web := e.DoHeaders("POST", "/api/assets/import", log, map[string]string{"Authorization": "Bearer " + admin.Token,
		"Content-Type": "application/x-ndjson"}).Must(t, http.StatusCreated).Get("data")
	if web.Get("assets").Len() != 1 || web.Get("skipped").Int() != 29 || web.Get("problems").Len() != 0 {
		t.Fatalf("the pack log: %v", web)
	}
	webID := web.Get("assets").List()[0].Get("id").Str()
	if got := strings.Join(softwareOf(t, e, admin.Token, webID), ", "); got != "debian:debian_linux 7.0, gnu:glibc 2.13, nginx:nginx 1.2.1, samba:rsync 3.0.9" {
		t.Fatalf("web-1's software: %s", got)
	}
	found = findingsOf(t, e, admin.Token, "asset="+webID)
	for _, cve := range []string{"CVE-2009-5029", "CVE-2014-2855"} {
		if f, ok := found[cve]; !ok || f.Get("status").Str() != "open" {
			t.Fatalf("web-1 does not find %s open (finds %v)", cve, sortedKeys(found))
		}
	}
	var pkgs []string
	for _, p := range found["CVE-2009-5029"].Get("software", "packages").List() {
		pkgs = append(pkgs, p.Str())
	}
	if !slices.Equal(pkgs, []string{"deb:libc6:amd64=2.13-38+deb7u10", "deb:libc-bin:amd64=2.13-38+deb7u10"}) {
		t.Errorf("glibc's finding names the packages %v, want libc6's and libc-bin's", pkgs)
	}

	// A later run's changes: glibc upgraded, the rest kept; its finding is fixed.
	later := e.postInventory(admin.Token, "", readTestdata(t, "testdata/inventory/osquery-pack-web-1-later.log")).Must(t, http.StatusOK).Get("data", "assets").List()[0]
	if later.Get("changed").Len() != 1 || later.Get("removed").Len() != 0 {
		t.Fatalf("the later run: %v", later)
	}
	if got := strings.Join(softwareOf(t, e, admin.Token, webID), ", "); got != "debian:debian_linux 7.0, gnu:glibc 2.19, nginx:nginx 1.2.1, samba:rsync 3.0.9" {
		t.Fatalf("web-1's software after the upgrade: %s", got)
	}
	if f := findingsOf(t, e, admin.Token, "asset="+webID)["CVE-2009-5029"]; f.Get("status").Str() != "fixed" {
		t.Fatalf("glibc 2.19's CVE-2009-5029: %v", f)
	}

	// Real rows of other tools: Zentral's Debian host, Fleet's Windows 11 row
	// (one query's rows, the host named by the request).
	zen := e.postInventory(admin.Token, "", readTestdata(t, "testdata/inventory/osquery-zentral-debian.json")).Must(t, http.StatusCreated).Get("data", "assets").List()[0]
	if zen.Get("hostname").Str() != "debian.example.com" || zen.Get("added").Len() != 1 {
		t.Fatalf("Zentral's Debian host: %v", zen)
	}
	win := e.postInventory(admin.Token, "?hostname=ws-11", readTestdata(t, "testdata/inventory/osquery-fleet-windows11-os_version.json")).
		Must(t, http.StatusCreated).Get("data", "assets").List()[0]
	if d := e.Do("GET", "/api/assets/"+win.Get("id").Str(), admin.Token, nil).Must(t, http.StatusOK).Get("data"); d.Get("os").Str() != "Microsoft Windows 11 Enterprise 10.0.22000" {
		t.Fatalf("Fleet's Windows 11: %v", d)
	}

	for _, c := range []struct {
		name, query, body, field string
	}{
		{"only other queries", "", string(readTestdata(t, "testdata/inventory/osquery-docs-formats.log")), "body"},
		{"one query's rows without a host", "", `[{"name":"curl","version":"7.81.0","maintainer":"x"}]`, "hostname"},
		{"a host file without system_info", "", `{"deb_packages":[{"name":"curl","version":"7.81.0","maintainer":"x"}]}`, "hostname"},
		{"not rows", "?hostname=h", `[1, 2]`, "body"},
		{"a broken line", "", `{"name":"pack_deb_packages","hostIdentifier":"h","counter":0,"columns":{"name":"curl","version":"1","maintainer":"x"},"action":"added"}` + "\n{broken\n", "line 2"},
		{"an unknown action", "", `{"name":"pack_deb_packages","hostIdentifier":"h","counter":0,"columns":{"name":"curl","version":"1","maintainer":"x"},"action":"changed"}`, "line 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.postInventory(admin.Token, c.query, []byte(c.body)).WantFields(t, c.field)
		})
	}
	// A log whose first line is broken is still a log: with ?partial=true
	// the good lines are read and the broken one named.
	broken := "{broken\n" + string(readTestdata(t, "testdata/inventory/osquery-pack-web-1-later.log"))
	p := e.postInventory(admin.Token, "?partial=true", []byte(broken)).Must(t, http.StatusOK).Get("data")
	if p.Get("format").Str() != "osquery" || p.Get("problems").Len() != 1 || p.Get("problems").List()[0].Get("where").Str() != "line 1" {
		t.Fatalf("a log with a broken first line: %v", p)
	}
	if n := e.Do("GET", "/api/assets?limit=100", admin.Token, nil).Must(t, http.StatusOK).Get("pagination", "total").Int(); n != 4 {
		t.Fatalf("refused files stored assets: %d assets", n)
	}
}

var _ = apitest.JSON{}
