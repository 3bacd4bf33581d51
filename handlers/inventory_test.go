package handlers_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"garrison/handlers/apitest"
)

// postInventory posts an inventory file to POST /assets/import.
func (e *env) postInventory(cred, query string, body []byte) apitest.Response {
	e.T.Helper()
	return e.DoHeaders("POST", "/api/assets/import"+query, body, map[string]string{"Authorization": "Bearer " + cred, "Content-Type": "text/plain"})
}

// A CycloneDX SBOM is one asset's software: the first import adds every
// component, the same SBOM again changes nothing, a changed one reports
// what it added, changed and removed.
func TestInventoryImportCycloneDX(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	bom := readTestdata(t, "testdata/inventory/laravel-7.12.0.bom.1.4.json")
	r := e.postInventory(admin.Token, "?hostname=web-01", bom).Must(t, http.StatusCreated).Get("data")
	asset := r.Get("assets").List()[0]
	if r.Get("format").Str() != "cyclonedx" || asset.Get("hostname").Str() != "web-01" || !asset.Get("created").Bool() ||
		asset.Get("added").Len() != 62 || r.Get("problems").Len() != 0 {
		t.Fatalf("first import: %v", r)
	}
	var cors map[string]any
	for _, sw := range asset.Get("added").List() {
		if sw.Get("product").Str() == "stack-cors" {
			cors = sw.MustObject(t).Any().(map[string]any)
		}
	}
	if cors["vendor"] != "asm89" || cors["version"] != "1.3.0" {
		t.Fatalf("stack-cors read as %v", cors)
	}
	again := e.postInventory(admin.Token, "?hostname=web-01", bom).Must(t, http.StatusOK).Get("data", "assets").List()[0]
	if again.Get("added").Len()+again.Get("changed").Len()+again.Get("removed").Len() != 0 || again.Get("created").Bool() {
		t.Fatalf("the same SBOM again: %v", again)
	}
	changed := bytes.Replace(bom, []byte(`"version": "1.3.0"`), []byte(`"version": "2.0.0"`), 1)
	changed = bytes.Replace(changed, []byte(`"name": "stack-cors"`), []byte(`"name": "stack-cors"`), 1)
	if d := e.postInventory(admin.Token, "?hostname=web-01", changed).Must(t, http.StatusOK).Get("data", "assets").List()[0]; d.Get("changed").Len() != 1 {
		t.Fatalf("a changed version: %v", d)
	}
	// Without ?hostname the SBOM's own component names the asset.
	if h := e.postInventory(admin.Token, "", bom).Must(t, http.StatusCreated).Get("data", "assets").List()[0].Get("hostname").Str(); h != "cyclonedx-php-composer-demo" {
		t.Fatalf("named %q", h)
	}
	for _, c := range []struct {
		name, query string
		body        []byte
		field       string
	}{
		{"empty", "", nil, "body"},
		{"not CycloneDX", "", []byte(`{"bomFormat":"SPDX"}`), "body"},
		{"a later spec", "", bytes.Replace(bom, []byte(`"specVersion": "1.4"`), []byte(`"specVersion": "2.0"`), 1), "body"},
		{"no name for the asset", "", []byte(`{"bomFormat":"CycloneDX","specVersion":"1.5","components":[]}`), "hostname"},
		{"broken JSON", "", []byte(`{"bomFormat":`), "body"},
	} {
		t.Run(c.name, func(t *testing.T) { e.postInventory(admin.Token, c.query, c.body).WantFields(t, c.field) })
	}
	e.postInventory(e.APIKey(admin, "read"), "?hostname=x", bom).Must(t, http.StatusForbidden)
}

// A CSV inventory names its columns in its header (Windows' "Display
// Name", "Publisher", "Display Version" among the names read); a program
// without a CPE is named as NVD names it (the rule kept on the software
// and shown on its findings), and its findings follow.
func TestInventoryImportCSV(t *testing.T) {
	nvd := readShared(t, "nvd_cves_sample.json")
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.importIntel(admin.Token, nvd).Must(t, http.StatusOK)
	csv := "Computer Name,IP Address,Operating System,Display Name,Publisher,Display Version\n" +
		"ws-01,10.0.0.21,Windows 10 Pro,Mozilla Firefox (x64 en-US),Mozilla,68.0\n" +
		"ws-01,10.0.0.21,Windows 10 Pro,Google Chrome,Google LLC,76.0.3809.100\n" +
		"ws-01,10.0.0.21,Windows 10 Pro,Notepad++ (64-bit x64),Notepad++ Team,8.6.2\n" +
		"ws-02,10.0.0.22,Windows 11 Pro,Adobe Acrobat Reader,Adobe Systems Incorporated,9.3\n"
	r := e.postInventory(admin.Token, "", []byte(csv)).Must(t, http.StatusCreated).Get("data")
	if r.Get("format").Str() != "csv" || r.Get("assets").Len() != 2 {
		t.Fatalf("csv import: %v", r)
	}
	rules := map[string]string{}
	for _, a := range r.Get("assets").List() {
		for _, sw := range a.Get("added").List() {
			rules[sw.Get("vendor").Str()+":"+sw.Get("product").Str()] = sw.Get("rule").Str()
		}
	}
	for key, want := range map[string]string{
		"mozilla:firefox":                       "display name: mozilla:firefox",
		"google:chrome":                         "display name: google:chrome",
		"adobe:acrobat_reader":                  "display name: adobe:acrobat_reader",
		"Notepad++ Team:Notepad++ (64-bit x64)": "",
	} {
		if got, ok := rules[key]; !ok || got != want {
			t.Errorf("%s: rule %q (read %v)", key, got, rules)
		}
	}
	found := findingsOf(t, e, admin.Token, "cve_id=CVE-2019-9812")
	if f, ok := found["CVE-2019-9812"]; !ok || f.Get("asset_hostname").Str() != "ws-01" || f.Get("software", "rule").Str() != "display name: mozilla:firefox" {
		t.Fatalf("Firefox 68.0's finding: %v", found)
	}

	// All or nothing: a bad row refuses the file, unless partial.
	bad := "hostname,vendor,product,version\nok-host,openbsd,openssh,9.6\nbad host!,openbsd,openssh,9.6\n"
	e.postInventory(admin.Token, "", []byte(bad)).WantFields(t, "line 3")
	if n := e.Do("GET", "/api/assets?limit=100", admin.Token, nil).Must(t, http.StatusOK).Get("pagination", "total").Int(); n != 2 {
		t.Fatalf("a refused file stored assets: %d", n)
	}
	p := e.postInventory(admin.Token, "?partial=true", []byte(bad)).Must(t, http.StatusCreated).Get("data")
	if p.Get("assets").Len() != 1 || p.Get("problems").Len() != 1 || !strings.Contains(p.Get("problems").List()[0].Get("where").Str(), "line 3") {
		t.Fatalf("partial: %v", p)
	}
	e.postInventory(admin.Token, "", []byte("vendor,version\nx,1\n")).WantFields(t, "body")
	e.postInventory(admin.Token, "?partial=maybe", []byte(bad)).WantFields(t, "partial")
}
