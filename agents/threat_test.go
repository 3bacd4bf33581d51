package agents

import (
	"context"
	"strings"
	"testing"

	"garrison/store"
)

// fakeCVEs is a CVE intelligence store with one record.
type fakeCVEs struct{ rec CVERecord }

func (f fakeCVEs) LookupCVE(_ context.Context, id string) (CVERecord, bool, error) {
	return f.rec, id == f.rec.ID, nil
}

func (f fakeCVEs) SearchCVEs(_ context.Context, query string, limit int) ([]CVERecord, error) {
	for _, v := range f.rec.Vendors {
		if strings.EqualFold(v, query) {
			return []CVERecord{f.rec}, nil
		}
	}
	return nil, nil
}

// TestCVESeam: the researcher finds CVEs through the CVEIntel seam by id and
// by vendor, and a known-exploited one raises the risk.
func TestCVESeam(t *testing.T) {
	intel := fakeCVEs{CVERecord{ID: "CVE-2021-44228", CVSS: 10, Severity: "critical", Vendors: []string{"apache"}, KnownExploited: true}}
	cases := []struct {
		target, kind string
		found        int
	}{
		{"cve-2021-44228", "cve", 1}, {"CVE-2020-0001", "cve", 0}, {"Apache", "vendor", 1}, {"10.0.0.1", "ip", 0},
	}
	for _, c := range cases {
		got, err := lookupCVEs(context.Background(), intel, c.target, targetKind(c.target))
		if err != nil || len(got) != c.found || targetKind(c.target) != c.kind {
			t.Errorf("%s: %d CVEs (%v), kind %s", c.target, len(got), err, targetKind(c.target))
		}
	}
	none := eventSummary{BySeverity: map[string]int{}}
	score, rating, why := riskRating(none, 0, nil, []CVERecord{intel.rec}, 0)
	if score != 20 || rating != "low" || len(why) != 1 || !strings.Contains(why[0], "known to be exploited") {
		t.Fatalf("risk with a known-exploited CVE: %d %s %v", score, rating, why)
	}
	if score, rating, _ := riskRating(none, 0, &store.DomainQueries{Count: 3, Category: "malware"}, nil, 0); score != 30 || rating != "medium" {
		t.Fatalf("risk of a queried malware domain: %d %s", score, rating)
	}
}

// TestVendorNames: a letter or digit first, then up to 99 letters, digits,
// spaces and ._&+- in any script.
func TestVendorNames(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"Apache", true}, {"Johnson & Johnson", true}, {"ﾄﾖﾀ", true}, {"Müller-Lüdenscheidt", true}, {"7-Zip", true},
		{strings.Repeat("a", 100), true}, {strings.Repeat("a", 101), false},
		{"", false}, {"-vendor", false}, {" leading space", false}, {"semi;colon", false}, {"bad\xffutf8", false}, {"a\ufffd", false},
	} {
		if got := isVendorName(c.name); got != c.ok {
			t.Errorf("isVendorName(%q) = %v, want %v", c.name, got, c.ok)
		}
	}
}
