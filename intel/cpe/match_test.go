package cpe

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const httpd = "cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*"

func TestRangeMatch(t *testing.T) {
	apache := func(v string) Software { return Software{Vendor: "Apache", Product: "HTTP_Server", Version: v} }
	tests := []struct {
		name  string
		r     Range
		s     Software
		match bool
		known bool
		why   string // a substring of Reason
	}{
		{"inside", Range{Criteria: httpd, StartIncluding: "2.4.0", EndExcluding: "2.4.50"}, apache("2.4.49"), true, true, "2.4.49 is within [2.4.0, 2.4.50)"},
		{"below start", Range{Criteria: httpd, StartIncluding: "2.4.0", EndExcluding: "2.4.50"}, apache("2.2.34"), false, true, "2.2.34 is outside [2.4.0, 2.4.50)"},
		{"above end", Range{Criteria: httpd, StartIncluding: "2.4.0", EndExcluding: "2.4.50"}, apache("2.4.51"), false, true, "outside"},

		{"start including, at", Range{Criteria: httpd, StartIncluding: "2.4.0"}, apache("2.4.0"), true, true, "within [2.4.0, +inf)"},
		{"start including, at, other spelling", Range{Criteria: httpd, StartIncluding: "2.4.0"}, apache("2.4"), true, true, "within"},
		{"start including, below", Range{Criteria: httpd, StartIncluding: "2.4.0"}, apache("2.3.99"), false, true, "outside"},
		{"start including, above", Range{Criteria: httpd, StartIncluding: "2.4.0"}, apache("2.4.0.1"), true, true, "within"},
		{"start including, pre-release below", Range{Criteria: httpd, StartIncluding: "2.4.0"}, apache("2.4.0-rc1"), false, true, "outside"},

		{"start excluding, at", Range{Criteria: httpd, StartExcluding: "2.4.0"}, apache("2.4.0"), false, true, "2.4.0 is outside (2.4.0, +inf)"},
		{"start excluding, below", Range{Criteria: httpd, StartExcluding: "2.4.0"}, apache("2.3"), false, true, "outside"},
		{"start excluding, above", Range{Criteria: httpd, StartExcluding: "2.4.0"}, apache("2.4.0a"), true, true, "2.4.0a is within (2.4.0, +inf)"},

		{"end including, at", Range{Criteria: httpd, EndIncluding: "2.4.49"}, apache("2.4.49"), true, true, "2.4.49 is within (-inf, 2.4.49]"},
		{"end including, below", Range{Criteria: httpd, EndIncluding: "2.4.49"}, apache("2.4.48"), true, true, "within"},
		{"end including, above", Range{Criteria: httpd, EndIncluding: "2.4.49"}, apache("2.4.49.1"), false, true, "outside"},

		{"end excluding, at", Range{Criteria: httpd, EndExcluding: "2.4.50"}, apache("2.4.50"), false, true, "2.4.50 is outside (-inf, 2.4.50)"},
		{"end excluding, below", Range{Criteria: httpd, EndExcluding: "2.4.50"}, apache("2.4.49"), true, true, "within"},
		{"end excluding, pre-release of the end", Range{Criteria: httpd, EndExcluding: "2.4.50"}, apache("2.4.50-rc1"), true, true, "within"},
		{"end excluding, above", Range{Criteria: httpd, EndExcluding: "2.4.50"}, apache("2.4.51"), false, true, "outside"},

		{"both excluding, between", Range{Criteria: httpd, StartExcluding: "2.4.0", EndExcluding: "2.4.1"}, apache("2.4.0.5"), true, true, "within (2.4.0, 2.4.1)"},
		{"both including, single point", Range{Criteria: httpd, StartIncluding: "2.4.1", EndIncluding: "2.4.1"}, apache("2.4.1.0"), true, true, "within [2.4.1, 2.4.1]"},

		{"no bounds, any version", Range{Criteria: httpd}, apache("1.3"), true, true, "all versions"},
		{"exact version", Range{Criteria: "cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*"}, apache("2.4.49"), true, true, "2.4.49 is version 2.4.49"},
		{"exact version, other spelling", Range{Criteria: "cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*"}, apache("v2.4.49.0"), true, true, "is version 2.4.49"},
		{"exact version, different", Range{Criteria: "cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*"}, apache("2.4.50"), false, true, "2.4.50 is not 2.4.49"},
		{"exact quoted version", Range{Criteria: `cpe:2.3:o:cisco:ios:12.2\(15\)zj3:*:*:*:*:*:*:*`}, Software{Vendor: "Cisco", Product: "IOS", Version: "12.2(15)zj3"}, true, true, "is version 12.2(15)zj3"},
		{"NA version (hardware)", Range{Criteria: "cpe:2.3:h:cisco:asa_5505:-:*:*:*:*:*:*:*"}, Software{Vendor: "Cisco", Product: "ASA 5505", Version: "rev B"}, true, true, "no version"},

		{"vendor differs", Range{Criteria: httpd, EndExcluding: "2.4.50"}, Software{Vendor: "nginx", Product: "http_server", Version: "2.4.49"}, false, false, "vendor differs"},
		{"product differs", Range{Criteria: httpd, EndExcluding: "2.4.50"}, Software{Vendor: "apache", Product: "tomcat", Version: "2.4.49"}, false, false, "product differs"},
		{"names not translated", Range{Criteria: httpd, EndExcluding: "2.4.50"}, Software{Vendor: "Apache", Product: "Apache HTTP Server", Version: "2.4.49"}, false, false, "product differs"},
		{"names from the CPE", Range{Criteria: httpd, EndExcluding: "2.4.50"}, Software{Vendor: "Apache Software Foundation", Product: "Apache HTTP Server", Version: "2.4.49", CPE: "cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*"}, true, true, "within"},
		{"version field wins over the CPE's", Range{Criteria: httpd, EndExcluding: "2.4.50"}, Software{Version: "2.4.49", CPE: "cpe:2.3:a:apache:http_server:2.4:*:*:*:*:*:*:*"}, true, true, "2.4.49 is within"},
		{"version from the CPE", Range{Criteria: httpd, EndExcluding: "2.4.50"}, Software{CPE: "cpe:/a:apache:http_server:2.4.51"}, false, true, "2.4.51 is outside"},
		{"CPE vendor ANY falls back to the field", Range{Criteria: httpd}, Software{Vendor: "Apache", Product: "http server", CPE: "cpe:2.3:a:*:*:2.4.1:*:*:*:*:*:*:*"}, true, true, "all versions"},
		{"malformed CPE is ignored", Range{Criteria: httpd, EndExcluding: "2.4.50"}, Software{Vendor: "Apache", Product: "HTTP Server", Version: "2.4.49", CPE: "cpe:2.3:a:broken"}, true, true, "within"},
		{"part differs", Range{Criteria: "cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*"}, Software{Version: "6.1", CPE: "cpe:2.3:a:linux:linux_kernel:*:*:*:*:*:*:*:*"}, false, false, "part differs"},
		{"part ANY in the software CPE", Range{Criteria: "cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*"}, Software{Version: "6.1", CPE: "cpe:2.3:*:linux:linux_kernel:*:*:*:*:*:*:*:*"}, true, true, "all versions"},
		{"target_sw differs", Range{Criteria: "cpe:2.3:a:gradio_project:gradio:*:*:*:*:*:python:*:*"}, Software{Version: "4.0", CPE: "cpe:2.3:a:gradio_project:gradio:*:*:*:*:*:node.js:*:*"}, false, false, "target_sw differs"},
		{"update NA vs value", Range{Criteria: "cpe:2.3:o:juniper:junos:12.1x46:-:*:*:*:*:*:*"}, Software{CPE: "cpe:2.3:o:juniper:junos:12.1x46:d40:*:*:*:*:*:*"}, false, false, "update differs"},
		{"update unchecked without a CPE", Range{Criteria: "cpe:2.3:o:juniper:junos:12.1x46:d45:*:*:*:*:*:*"}, Software{Vendor: "Juniper", Product: "JUNOS", Version: "12.1X46"}, true, false, "update d45 not checked"},

		{"version unknown", Range{Criteria: httpd, StartIncluding: "2.4.0", EndExcluding: "2.4.50"}, apache(""), true, false, "version unknown; affected versions: [2.4.0, 2.4.50)"},
		{"version unknown, blank", Range{Criteria: httpd, EndExcluding: "2.4.50"}, apache("  "), true, false, "version unknown"},
		{"version unknown, CPE ANY", Range{Criteria: "cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*"}, Software{CPE: "cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*"}, true, false, "affected versions: 2.4.49"},
		{"version unknown, names still checked", Range{Criteria: httpd, EndExcluding: "2.4.50"}, Software{Vendor: "apache", Product: "tomcat"}, false, false, "product differs"},

		{"invalid criteria", Range{Criteria: "cpe:2.3:a:apache"}, apache("2.4.49"), false, false, "invalid criteria: cpe: invalid name"},
		{"2.2 criteria", Range{Criteria: "cpe:/a:apache:http_server", EndExcluding: "2.4.50"}, apache("2.4.49"), true, true, "within"},
		{"quoted bound", Range{Criteria: "cpe:2.3:o:cisco:adaptive_security_appliance_software:*:*:*:*:*:*:*:*", StartIncluding: "9.1.1", EndExcluding: `9.1.7\(9\)`}, Software{Vendor: "Cisco", Product: "Adaptive Security Appliance Software", Version: "9.1.7(9)"}, false, true, "9.1.7(9) is outside [9.1.1, 9.1.7(9))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ok := tt.r.Match(tt.s)
			if ok != tt.match || res.VersionKnown != tt.known || res.Kind != "cpe" {
				t.Errorf("Match = %+v, %v; want match %v, VersionKnown %v, Kind cpe", res, ok, tt.match, tt.known)
			}
			if !strings.Contains(res.Reason, tt.why) {
				t.Errorf("Reason = %q, want it to contain %q", res.Reason, tt.why)
			}
		})
	}
}

func TestAffectedMatch(t *testing.T) {
	sw := func(v string) Software { return Software{Vendor: "Acme", Product: "Flux Capacitor", Version: v} }
	single := Affected{Vendor: "Acme", Product: "Flux Capacitor", Versions: []AffectedVersion{
		{Version: "2.4", Status: "affected"},
		{Version: "2.5", Status: "affected"},
	}, DefaultStatus: "unaffected"}
	lessThan := Affected{Vendor: "ACME", Product: "flux-capacitor", Versions: []AffectedVersion{
		{Version: "2.0.0", LessThan: "2.5.2", Status: "affected", VersionType: "semver"},
	}, DefaultStatus: "unaffected"}
	lessEqual := Affected{Vendor: "Acme", Product: "Flux Capacitor", Versions: []AffectedVersion{
		{Version: "0", LessThanOrEqual: "1.0.3", Status: "affected", VersionType: "custom"},
	}}
	// The shape of CVE-2022-48971 (Linux): everything affected by default,
	// the fixed stable series listed as unaffected, git ranges alongside.
	linux := Affected{Vendor: "Linux", Product: "Linux", DefaultStatus: "affected", Versions: []AffectedVersion{
		{Version: "e64c97b53bc6", LessThan: "8a66c3a94285", Status: "unaffected", VersionType: "git"},
		{Version: "4.9", Status: "affected"},
		{Version: "0", LessThan: "4.9", Status: "unaffected", VersionType: "custom"},
		{Version: "4.19.269", LessThanOrEqual: "4.19.*", Status: "unaffected", VersionType: "custom"},
		{Version: "5.4.227", LessThanOrEqual: "5.4.*", Status: "unaffected", VersionType: "custom"},
		{Version: "6.1", LessThanOrEqual: "*", Status: "unaffected", VersionType: "original_commit_for_fix"},
	}}
	tests := []struct {
		name  string
		a     Affected
		s     Software
		match bool
		known bool
		why   string
	}{
		{"exact version", single, sw("2.4"), true, true, "2.4 is affected: version 2.4"},
		{"exact version, other spelling", single, sw("2.4.0"), true, true, "affected: version 2.4"},
		{"exact version, not listed", single, sw("2.4.1"), false, true, "2.4.1 is unaffected: no version entry contains it"},

		{"lessThan, start", lessThan, sw("2.0.0"), true, true, "2.0.0 is affected: within [2.0.0, 2.5.2)"},
		{"lessThan, inside", lessThan, sw("2.5.1"), true, true, "affected"},
		{"lessThan, at the bound", lessThan, sw("2.5.2"), false, true, "unaffected"},
		{"lessThan, below start", lessThan, sw("1.9.9"), false, true, "unaffected"},

		{"lessThanOrEqual, at the bound", lessEqual, sw("1.0.3"), true, true, "1.0.3 is affected: within (-inf, 1.0.3]"},
		{"lessThanOrEqual, start 0 is open", lessEqual, sw("0.0.1"), true, true, "affected"},
		{"lessThanOrEqual, above, default unknown", lessEqual, sw("1.0.4"), false, true, "1.0.4 is unknown: no version entry contains it, and the default status is unknown"},

		{"unaffected entry wins when first", linux, Software{Vendor: "linux", Product: "linux", Version: "5.4.260"}, false, true, "5.4.260 is unaffected: within [5.4.227, 5.4.*]"},
		{"series bound excludes the next series", linux, Software{Vendor: "Linux", Product: "Linux", Version: "5.5.1"}, true, true, "no version entry contains it, and the default status is affected"},
		{"before the series fix", linux, Software{Vendor: "Linux", Product: "Linux", Version: "5.4.226"}, true, true, "default status is affected"},
		{"single affected version", linux, Software{Vendor: "Linux", Product: "Linux", Version: "4.9"}, true, true, "4.9 is affected: version 4.9"},
		{"below the introduction", linux, Software{Vendor: "Linux", Product: "Linux", Version: "4.4.302"}, false, true, "unaffected: within (-inf, 4.9)"},
		{"fixed mainline and later", linux, Software{Vendor: "Linux", Product: "Linux", Version: "6.6"}, false, true, "unaffected: within [6.1, *]"},

		{"defaultStatus affected, no versions", Affected{Vendor: "Acme", Product: "Flux Capacitor", DefaultStatus: "affected"}, sw("9"), true, true, "default status is affected"},
		{"defaultStatus unaffected, no versions", Affected{Vendor: "Acme", Product: "Flux Capacitor", DefaultStatus: "Unaffected"}, sw("9"), false, true, "unaffected"},
		{"defaultStatus absent is unknown", Affected{Vendor: "Acme", Product: "Flux Capacitor"}, sw("9"), false, true, "default status is unknown"},

		{"n/a version", Affected{Vendor: "Acme", Product: "Flux Capacitor", Versions: []AffectedVersion{{Version: "n/a", Status: "affected"}}}, sw("1.0"), true, false, "affected: version n/a"},
		{"unspecified start", Affected{Vendor: "Atlassian", Product: "Jira Data Center", Versions: []AffectedVersion{{Version: "unspecified", LessThan: "8.5.16", Status: "affected", VersionType: "custom"}}}, Software{Vendor: "Atlassian", Product: "Jira Data Center", Version: "8.5.15"}, true, true, "within (-inf, 8.5.16)"},
		{"unspecified end", Affected{Vendor: "Atlassian", Product: "Jira Data Center", Versions: []AffectedVersion{{Version: "8.6.0", LessThan: "unspecified", Status: "affected", VersionType: "custom"}}}, Software{Vendor: "Atlassian", Product: "Jira Data Center", Version: "8.13.0"}, true, false, "within [8.6.0, unspecified)"},
		{"unspecified end, below the start", Affected{Vendor: "Atlassian", Product: "Jira Data Center", Versions: []AffectedVersion{{Version: "8.6.0", LessThan: "unspecified", Status: "affected", VersionType: "custom"}}}, Software{Vendor: "Atlassian", Product: "Jira Data Center", Version: "8.5.0"}, false, true, "unknown"},
		{"star start", Affected{Vendor: "smub", Product: "Transients Manager", Versions: []AffectedVersion{{Version: "*", LessThanOrEqual: "2.0.6", Status: "affected", VersionType: "semver"}}, DefaultStatus: "unaffected"}, Software{Vendor: "smub", Product: "transients manager", Version: "2.0.6"}, true, true, "affected"},
		{"all versions", Affected{Vendor: "LOGITEC CORPORATION", Product: "LAN-W300N/DR", Versions: []AffectedVersion{{Version: "all versions", Status: "affected"}}}, Software{Vendor: "Logitec Corporation", Product: "LAN W300N/DR", Version: "1.0"}, true, true, "affected"},
		{"lessThan series", Affected{Vendor: "Acme", Product: "Flux Capacitor", Versions: []AffectedVersion{{Version: "1.0", LessThan: "2.*", Status: "affected", VersionType: "semver"}}}, sw("2.9.9"), true, true, "within [1.0, 2.*)"},
		{"lessThan series, next series", Affected{Vendor: "Acme", Product: "Flux Capacitor", Versions: []AffectedVersion{{Version: "1.0", LessThan: "2.*", Status: "affected", VersionType: "semver"}}}, sw("3.0"), false, true, "unknown"},
		{"lessThanOrEqual latest", Affected{Vendor: "parisneo", Product: "parisneo/lollms-webui", Versions: []AffectedVersion{{Version: "unspecified", LessThanOrEqual: "latest", Status: "affected", VersionType: "custom"}}}, Software{Vendor: "ParisNeo", Product: "parisneo/lollms-webui", Version: "9.5"}, true, true, "affected"},
		{"git ranges are skipped", Affected{Vendor: "Linux", Product: "Linux", DefaultStatus: "unaffected", Versions: []AffectedVersion{{Version: "0", LessThan: "*", Status: "affected", VersionType: "git"}}}, Software{Vendor: "Linux", Product: "Linux", Version: "6.1"}, false, true, "unaffected"},
		{"first matching entry decides", Affected{Vendor: "Acme", Product: "Flux Capacitor", Versions: []AffectedVersion{
			{Version: "1.0", LessThan: "2.0", Status: "unaffected"},
			{Version: "0", LessThan: "*", Status: "affected"},
		}}, sw("1.5"), false, true, "unaffected"},

		{"version unknown, something affected", lessThan, sw(""), true, false, "version unknown; affected versions: within [2.0.0, 2.5.2)"},
		{"version unknown, affected by default", linux, Software{Vendor: "Linux", Product: "Linux"}, true, false, "affected by default"},
		{"version unknown, nothing affected", Affected{Vendor: "Acme", Product: "Flux Capacitor", Versions: []AffectedVersion{{Version: "1.0", Status: "unaffected"}}}, sw(""), false, false, "no version is listed as affected"},

		{"vendor differs", lessThan, Software{Vendor: "Umbrella", Product: "Flux Capacitor", Version: "2.1"}, false, false, "vendor or product differs"},
		{"product differs", lessThan, Software{Vendor: "Acme", Product: "Flux Inverter", Version: "2.1"}, false, false, "vendor or product differs"},
		{"names from the CPE", Affected{Vendor: "Fortinet", Product: "FortiManager", Versions: []AffectedVersion{{Version: "7.4.0", LessThanOrEqual: "7.4.4", Status: "affected", VersionType: "semver"}}, DefaultStatus: "unaffected"},
			Software{Vendor: "Fortinet Inc.", Product: "FortiManager VM", Version: "7.4.2", CPE: "cpe:2.3:a:fortinet:fortimanager:*:*:*:*:*:*:*:*"}, true, true, "7.4.2 is affected"},
		{"doubled space in the CVE", Affected{Vendor: "Veeam", Product: "Backup and  Recovery", Versions: []AffectedVersion{{Version: "12.1.2", LessThanOrEqual: "12.1.2", Status: "affected", VersionType: "semver"}}, DefaultStatus: "unaffected"},
			Software{Vendor: "veeam", Product: "Backup and Recovery", Version: "12.1.2"}, true, true, "affected"},
		{"n/a vendor and product", Affected{Vendor: "n/a", Product: "n/a", Versions: []AffectedVersion{{Version: "n/a", Status: "affected"}}}, Software{Vendor: "n/a", Product: "n/a", Version: "1"}, false, false, "names no vendor or product"},
		{"unknown vendor", Affected{Vendor: "Unknown", Product: "Checkout Fields Manager", DefaultStatus: "affected"}, Software{Vendor: "unknown", Product: "Checkout Fields Manager", Version: "1"}, false, false, "names no vendor or product"},
		{"empty vendor", Affected{Product: "left-pad", DefaultStatus: "affected"}, Software{Product: "left-pad", Version: "1"}, false, false, "names no vendor or product"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ok := tt.a.Match(tt.s)
			if ok != tt.match || res.VersionKnown != tt.known || res.Kind != "name" {
				t.Errorf("Match = %+v, %v; want match %v, VersionKnown %v, Kind name", res, ok, tt.match, tt.known)
			}
			if !strings.Contains(res.Reason, tt.why) {
				t.Errorf("Reason = %q, want it to contain %q", res.Reason, tt.why)
			}
		})
	}
}

// TestNVDRanges checks real cpeMatch entries copied from an NVD sample.
func TestNVDRanges(t *testing.T) {
	data, err := os.ReadFile("testdata/nvd_ranges.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Ranges []struct {
			CVE      string `json:"cve"`
			CPEMatch struct {
				Criteria              string `json:"criteria"`
				VersionStartIncluding string `json:"versionStartIncluding"`
				VersionStartExcluding string `json:"versionStartExcluding"`
				VersionEndIncluding   string `json:"versionEndIncluding"`
				VersionEndExcluding   string `json:"versionEndExcluding"`
			} `json:"cpeMatch"`
			Cases []struct {
				Vendor, Product, Version, CPE string
				Match                         bool  `json:"match"`
				VersionKnown                  *bool `json:"versionKnown"`
				Note                          string
			} `json:"cases"`
		} `json:"ranges"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Ranges) < 10 {
		t.Fatalf("%d ranges in testdata, want at least 10", len(file.Ranges))
	}
	for _, rg := range file.Ranges {
		m := rg.CPEMatch
		r := Range{Criteria: m.Criteria, StartIncluding: m.VersionStartIncluding, StartExcluding: m.VersionStartExcluding,
			EndIncluding: m.VersionEndIncluding, EndExcluding: m.VersionEndExcluding}
		if _, err := Parse(r.Criteria); err != nil {
			t.Errorf("%s: %v", rg.CVE, err)
		}
		for _, c := range rg.Cases {
			s := Software{Vendor: c.Vendor, Product: c.Product, Version: c.Version, CPE: c.CPE}
			res, ok := r.Match(s)
			if ok != c.Match || c.VersionKnown != nil && res.VersionKnown != *c.VersionKnown {
				t.Errorf("%s %s: Match(%+v) = %+v, %v; want %v (%s)", rg.CVE, r.Criteria, s, res, ok, c.Match, c.Note)
			}
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Microsoft", "microsoft"},
		{"Internet Explorer", "internet_explorer"},
		{"  Internet Explorer\t", "internet_explorer"},
		{"Open-Xchange", "open_xchange"},
		{"node.js", "node_js"},
		{"Backup and  Recovery", "backup_and_recovery"},
		{"portfolio_gallery,_product_catalog_-_grid_kit_portfolio", "portfolio_gallery,_product_catalog_grid_kit_portfolio"},
		{"Apache HTTP Server", "apache_http_server"},
		{"Joomla!", "joomla!"},
		{"ÉCOLE Logiciel", "école_logiciel"},
		{"", ""},
		{"   ", ""},
		{"--", "_"},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if Normalize("Apache HTTP Server") == Normalize("http_server") {
		t.Error("display names are not meant to be translated")
	}
}

// TestEqNorm checks the allocation-free comparison against Normalize.
func TestEqNorm(t *testing.T) {
	names := []string{"", " ", "Microsoft", "microsoft", "MICROSOFT ", "internet_explorer", "Internet Explorer",
		"internet  explorer", "internet-explorer", "internet.explorer", "internet__explorer", "internet_explorer_",
		"_internet_explorer", "internetexplorer", "Ä", "ä", "a", "é", "n/a", "N/A", "joomla!", "Joomla!", "\tx\n"}
	for _, a := range names {
		for _, b := range names {
			if got, want := eqNorm(a, false, b, false), Normalize(a) == Normalize(b); got != want {
				t.Errorf("eqNorm(%q, %q) = %v, Normalize says %v", a, b, got, want)
			}
		}
	}
	quoted := []struct {
		cpe, name string
		want      bool
	}{
		{`tikiwiki_cms\/groupware`, "TikiWiki CMS/Groupware", true},
		{`veeam_backup_\&_replication`, "Veeam Backup & Replication", true},
		{`plack\:\:middleware\:\:xsrfblock`, "Plack::Middleware::XSRFBlock", true},
		{`joomla\!`, "joomla", false},
		{`a\-b`, "a b", true},
		{`caf\é`, "CAFÉ", true},
	}
	for _, q := range quoted {
		if got := eqNorm(q.cpe, true, q.name, false); got != q.want {
			t.Errorf("eqNorm(%q, %q) = %v, want %v", q.cpe, q.name, got, q.want)
		}
	}
}

func TestRangeMatchAllocs(t *testing.T) {
	r := Range{Criteria: httpd, StartIncluding: "2.4.0", EndExcluding: "2.4.50"}
	miss := Software{Vendor: "Microsoft", Product: "Internet Explorer", Version: "11.0.9600", CPE: "cpe:2.3:a:microsoft:internet_explorer:11.0.9600:*:*:*:*:*:*:*"}
	unknown := Software{Vendor: "Apache", Product: "HTTP Server", CPE: "cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*"}
	if n := testing.AllocsPerRun(100, func() { r.Match(miss) }); n != 0 {
		t.Errorf("a vendor mismatch allocates %v times, want 0", n)
	}
	all := Range{Criteria: httpd}
	if n := testing.AllocsPerRun(100, func() { all.Match(unknown) }); n > 1 {
		t.Errorf("an all-versions match allocates %v times, want at most 1", n)
	}
}

func BenchmarkRangeMatch(b *testing.B) {
	ranges := []Range{
		{Criteria: httpd, StartIncluding: "2.4.0", EndExcluding: "2.4.50"},
		{Criteria: "cpe:2.3:o:cisco:adaptive_security_appliance_software:*:*:*:*:*:*:*:*", StartIncluding: "9.1.1", EndExcluding: `9.1.7\(9\)`},
		{Criteria: "cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*", StartExcluding: "2.6.31", EndExcluding: "3.2.59"},
		{Criteria: "cpe:2.3:a:microsoft:internet_explorer:11:*:*:*:*:*:*:*"},
	}
	assets := []Software{
		{Vendor: "Apache", Product: "HTTP Server", Version: "2.4.49", CPE: "cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*"},
		{Vendor: "Apache", Product: "http_server", Version: "2.4.51"},
		{Vendor: "Microsoft", Product: "Internet Explorer", Version: "11.0.9600.19180"},
		{Vendor: "Linux", Product: "Linux Kernel", Version: "3.2.58"},
		{Vendor: "OpenSSL", Product: "OpenSSL", Version: "1.0.2k"},
		{Vendor: "Google", Product: "Chrome", Version: "129.0.6668.100"},
		{Vendor: "Cisco", Product: "Adaptive Security Appliance Software", Version: "9.1.7(8)"},
		{Vendor: "Mozilla", Product: "Firefox", Version: "131.0.3"},
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range ranges {
			for _, s := range assets {
				r.Match(s)
			}
		}
	}
}
