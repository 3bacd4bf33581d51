package intel

import (
	"fmt"
	"testing"

	"garrison/intel/cpe"
	"garrison/intel/feed"
	"garrison/store"
)

// The index keys of each side are what the matching compares: vendor and
// product as CPE names them, a software CPE's too, a wildcard as "*".
func TestFindingKeys(t *testing.T) {
	sw := []store.Software{
		{Vendor: "Fortinet", Product: "FortiOS", Version: "6.0.4"},
		{Vendor: "Apache Software Foundation", Product: "HTTP Server", CPE: "cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*"},
		{Vendor: "fortinet", Product: "fortios"}, // the same key once
	}
	if got := fmt.Sprint(productKeys(sw)); got != "[{fortinet fortios} {apache_software_foundation http_server} {apache http_server}]" {
		t.Errorf("productKeys: %s", got)
	}
	for _, c := range []struct {
		name    string
		targets Targets
		want    string
	}{
		{"CPE ranges", Targets{CPEMatches: []feed.CPEMatch{{Criteria: "cpe:2.3:o:fortinet:fortios:*:*:*:*:*:*:*:*"},
			{Criteria: "cpe:2.3:o:fortinet:fortios:6.0.4:*:*:*:*:*:*:*"}, {Criteria: "cpe:2.3:a:*:openssl:*:*:*:*:*:*:*:*"}}},
			"[{fortinet fortios} {* openssl}]"},
		{"CVE 5 products when no CPE", Targets{Affected: []feed.Affected{{Vendor: "Synacor", Product: "Zimbra Collaboration (ZCS)"}, {Vendor: "n/a", Product: "n/a"}}},
			"[{synacor zimbra_collaboration_(zcs)} {n/a n/a}]"},
		{"CPE ranges win", Targets{CPEMatches: []feed.CPEMatch{{Criteria: "cpe:2.3:a:zimbra:collaboration:*:*:*:*:*:*:*:*"}},
			Affected: []feed.Affected{{Vendor: "Synacor", Product: "Zimbra"}}}, "[{zimbra collaboration}]"},
	} {
		if got := fmt.Sprint(targetKeys(c.targets)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// A finding no match names any more is fixed with the reason the asset
// as it is now gives.
func TestFixedReason(t *testing.T) {
	asset := &store.Asset{ID: "ast_1", Software: []store.Software{{Vendor: "Fortinet", Product: "FortiOS", Version: "6.0.5"},
		{Vendor: "OpenBSD", Product: "OpenSSH"}}}
	reason := fixedReason(map[string]*store.Asset{"ast_1": asset})
	finding := func(vendor, product, version string) store.Finding {
		return store.Finding{FindingMatch: store.FindingMatch{AssetID: "ast_1", Key: store.ProductKey{Vendor: normalizeName(vendor), Product: normalizeName(product)},
			Software: store.Software{Vendor: vendor, Product: product, Version: version}}}
	}
	for _, c := range []struct {
		f    store.Finding
		want string
	}{
		{finding("Fortinet", "FortiOS", "6.0.4"), "Fortinet FortiOS is now at version 6.0.5, outside the vulnerable versions"},
		{finding("Fortinet", "FortiOS", "6.0.5"), "The CVE's data no longer names this version as vulnerable"},
		{finding("OpenBSD", "OpenSSH", "9.6"), "OpenBSD OpenSSH is now at version (unknown), outside the vulnerable versions"},
		{finding("Microsoft", "Exchange Server", "2019"), "Microsoft Exchange Server is no longer on the asset"},
		{store.Finding{FindingMatch: store.FindingMatch{AssetID: "ast_2"}}, "The CVE's data no longer names this software"},
	} {
		if got := reason(c.f); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f.Software, got, c.want)
		}
	}
}

// A technique derived from a weakness fits a CVE when it is how the CVE's
// vector says it is reached.
func TestReachFits(t *testing.T) {
	view := func(vector string) *View { return &View{Primary: &Score{Vector: vector}} }
	initial, execution, evasion := []string{"Initial Access", "Persistence"}, []string{"Execution"}, []string{"Defense Evasion"}
	for _, c := range []struct {
		name    string
		v       *View
		tactics []string
		want    bool
	}{
		{"network, no user: initial access", view("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"), initial, true},
		{"network, no user: not execution", view("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"), execution, false},
		{"network, a user: execution", view("CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H"), execution, true},
		{"local: execution", view("CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H"), execution, true},
		{"local: not initial access", view("CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H"), initial, false},
		{"never evasion", view("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"), evasion, false},
		{"v2 network", view("AV:N/AC:L/Au:N/C:C/I:C/A:C"), initial, true},
		{"v4 network, passive user", view("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:P/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"), execution, true},
		{"no score", &View{}, initial, false},
	} {
		if got := vectorReach(c.v).fits(c.tactics); got != c.want {
			t.Errorf("%s: %v", c.name, got)
		}
	}
	if r := vectorReach(view("AV:N/AC:L/Au:N/C:C/I:C/A:C")); !r.fullImpact {
		t.Error("v2 complete impact is full")
	}
}

// An asset runs a platform when its software lists it or its OS says so,
// in the words distributions and vendors use.
func TestRunsPlatform(t *testing.T) {
	for _, c := range []struct {
		os, platform string
		software     []store.Software
		want         bool
	}{
		{"Windows Server 2019 Datacenter", "cpe:2.3:o:microsoft:windows:-:*:*:*:*:*:*:*", nil, true},
		{"Windows Server 2019 Datacenter", "cpe:2.3:o:microsoft:windows_server_2019:-:*:*:*:*:*:*:*", nil, true},
		{"Windows 11 Pro", "cpe:2.3:o:microsoft:windows_10:-:*:*:*:*:*:*:*", nil, false},
		{"Ubuntu 22.04 LTS", "cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*", nil, true},
		{"Ubuntu 22.04 LTS", "cpe:2.3:o:microsoft:windows:-:*:*:*:*:*:*:*", nil, false},
		{"macOS 14 Sonoma", "cpe:2.3:o:apple:mac_os_x:-:*:*:*:*:*:*:*", nil, true},
		{"Debian GNU/Linux 12", "cpe:2.3:o:debian:debian_linux:*:*:*:*:*:*:*:*", nil, true},
		{"", "cpe:2.3:h:microchip:timeprovider_4100:-:*:*:*:*:*:*:*", []store.Software{{Vendor: "Microchip", Product: "TimeProvider 4100"}}, true},
		{"", "cpe:2.3:o:microsoft:windows:-:*:*:*:*:*:*:*", nil, false},
	} {
		n, err := cpe.Parse(c.platform)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := runsPlatform(&store.Asset{OS: c.os, Software: c.software}, n); got != c.want {
			t.Errorf("%q on %s: %v", c.os, c.platform, got)
		}
	}
}
