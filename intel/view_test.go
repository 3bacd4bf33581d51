package intel

import (
	"testing"

	"garrison/intel/feed"
)

func TestBuildView(t *testing.T) {
	nvd := &feed.CVE{ID: "CVE-2024-1", Source: feed.NVD, Description: "Flaw.",
		Metrics: []feed.Metric{
			{Version: "3.1", Vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", BaseScore: 9.8, Severity: "CRITICAL", Source: "nvd@nist.gov", Type: "Primary"},
			{Version: "3.1", Vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N", BaseScore: 9.0, Source: "cna@vendor", Type: "Secondary"},
			{Version: "4.0", Vector: "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", BaseScore: 9.3, Source: "cna@vendor"},
		},
		CPEMatches: []feed.CPEMatch{{Criteria: "cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*", Vulnerable: true, EndExcluding: "2.0"},
			{Criteria: "cpe:2.3:a:acme:widget:*:*:*:*:*:*:*:*", Vulnerable: true, EndExcluding: "3.1"},
			{Criteria: "cpe:2.3:o:acme:os:1:*:*:*:*:*:*:*", Vulnerable: true}},
		References: []feed.Reference{{URL: "https://acme.example/adv", Tags: []string{"Vendor Advisory"}}, {URL: "https://x.example/poc", Tags: []string{"Exploit", "Third Party Advisory"}}},
	}
	kev := &feed.KEV{CVEID: "CVE-2024-1", DateAdded: "2024-02-01", DueDate: "2024-02-22", KnownRansomware: "Known",
		RequiredAction: "Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable."}
	v, targets := buildView("CVE-2024-1", sources{nvd: nvd, kev: kev})
	// NVD's own v3.1 score is primary, and our calculator agrees with it.
	if v.Primary == nil || v.Primary.Score != 9.8 || v.Primary.Source != "nvd@nist.gov" || v.Severity() != "critical" ||
		*v.Primary.Matches != true || *v.Primary.Computed != 9.8 {
		t.Fatalf("primary: %+v", v.Primary)
	}
	// The CNA's 9.0 does not match its vector (7.5): shown, not hidden.
	if cna := v.Scores[1]; cna.Matches == nil || *cna.Matches || *cna.Computed != 7.5 {
		t.Fatalf("mismatched score: %+v", cna)
	}
	if v.Vendor != "acme" || v.Product != "widget" || len(targets.CPEMatches) != 3 {
		t.Fatalf("product %s/%s, targets %v", v.Vendor, v.Product, targets)
	}
	if v.PatchStatus != PatchAvailable || len(v.PatchRefs) != 1 || len(v.ExploitRefs) != 1 || v.KEV == nil || v.KEV.RansomwareUse != "Known" {
		t.Fatalf("patch and exploits: %+v", v)
	}

	for _, tc := range []struct {
		name string
		s    sources
		want string
	}{
		{"no record", sources{}, PatchUnknown},
		{"record without patch signs", sources{nvd: &feed.CVE{ID: "x", Source: feed.NVD}}, NoPatchKnown},
		{"KEV says update", sources{kev: &feed.KEV{RequiredAction: "Apply updates per vendor instructions."}}, PatchAvailable},
		{"KEV says discontinue", sources{kev: &feed.KEV{RequiredAction: "Apply updates or discontinue use of the product."}}, NoPatchKnown},
		{"patch tag", sources{cve5: &feed.CVE{ID: "x", Source: feed.CVE5, References: []feed.Reference{{URL: "u", Tags: []string{"patch"}}}}}, PatchAvailable},
	} {
		if v, _ := buildView("x", tc.s); v.PatchStatus != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, v.PatchStatus, tc.want)
		}
	}
}

func TestDiff(t *testing.T) {
	before, _ := buildView("x", sources{nvd: &feed.CVE{ID: "x", Source: feed.NVD,
		Metrics: []feed.Metric{{Version: "3.1", Vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N", BaseScore: 7.5, Source: "nvd@nist.gov"}}}})
	after, _ := buildView("x", sources{nvd: &feed.CVE{ID: "x", Source: feed.NVD,
		Metrics:    []feed.Metric{{Version: "3.1", Vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", BaseScore: 9.8, Source: "nvd@nist.gov"}},
		References: []feed.Reference{{URL: "p", Tags: []string{"Exploit"}}}}})
	got := map[string]string{}
	for _, c := range diff(&before, &after) {
		got[c.Field] = *c.Before + " → " + *c.After
	}
	want := map[string]string{"cvss_score": "7.5 (CVSS 3.1) → 9.8 (CVSS 3.1)", "severity": "high → critical", "exploit_references": "0 → 1"}
	if len(got) != len(want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: %q, want %q", k, got[k], v)
		}
	}
	if d := diff(&after, &after); len(d) != 0 {
		t.Fatalf("no change: %v", d)
	}
	if d := diff(nil, &after); len(d) != 1 || d[0].Field != "record" || d[0].Before != nil {
		t.Fatalf("arrival: %v", d)
	}
}
