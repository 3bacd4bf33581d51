package feed

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// withinCaps checks every record passed on against the caps.
func (c *collected) withinCaps() error {
	text := func(what, s string, max int) error {
		if len(s) > max {
			return fmt.Errorf("%s: %d bytes, over %d", what, len(s), max)
		}
		return nil
	}
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	count := func(what string, n, max int) {
		if n > max {
			add(fmt.Errorf("%s: %d, over %d", what, n, max))
		}
	}
	for _, v := range c.cves {
		add(text("description", v.Description, MaxDescription))
		add(text("state", v.State, MaxWord))
		add(text("KEV date", v.KEVDateAdded, MaxWord))
		count("metrics", len(v.Metrics), MaxMetrics)
		for _, m := range v.Metrics {
			add(text("vector", m.Vector, MaxVector))
			add(text("version", m.Version, MaxWord))
			add(text("severity", m.Severity, MaxWord))
			add(text("source", m.Source, MaxName))
			add(text("type", m.Type, MaxWord))
		}
		count("CWEs", len(v.CWEs), MaxCWEs)
		count("references", len(v.References), MaxReferences)
		for _, r := range v.References {
			add(text("URL", r.URL, MaxURL))
			count("tags", len(r.Tags), MaxTags)
			for _, tag := range r.Tags {
				add(text("tag", tag, MaxWord))
			}
		}
		count("CPE ranges", len(v.CPEMatches), MaxCPEMatches)
		for _, m := range v.CPEMatches {
			add(text("criteria", m.Criteria, MaxCPE))
			add(text("version bound", longest(m.StartIncluding, m.StartExcluding, m.EndIncluding, m.EndExcluding), MaxVersion))
		}
		count("affected", len(v.Affected), MaxAffected)
		for _, a := range v.Affected {
			add(text("vendor", a.Vendor, MaxName))
			add(text("product", a.Product, MaxName))
			add(text("default status", a.DefaultStatus, MaxWord))
			count("versions", len(a.Versions), MaxVersions)
			for _, ver := range a.Versions {
				add(text("version", longest(ver.Version, ver.LessThan, ver.LessThanOrEqual), MaxVersion))
				add(text("status", ver.Status, MaxWord))
				add(text("version type", ver.VersionType, MaxWord))
			}
			count("CPEs", len(a.CPEs), MaxAffectedCPEs)
			for _, name := range a.CPEs {
				add(text("CPE", name, MaxCPE))
			}
		}
		if s := v.SSVC; s != nil {
			add(text("SSVC", longest(s.Exploitation, s.Automatable, s.TechnicalImpact, s.Timestamp), MaxWord))
		}
	}
	for _, k := range c.kevs {
		add(text("vendor", k.VendorProject, MaxName))
		add(text("product", k.Product, MaxName))
		add(text("name", k.Name, MaxName))
		add(text("short description", k.ShortDescription, MaxDescription))
		add(text("required action", k.RequiredAction, MaxText))
		add(text("notes", k.Notes, MaxDescription))
		add(text("dates", longest(k.DateAdded, k.DueDate, k.KnownRansomware), MaxWord))
		count("CWEs", len(k.CWEs), MaxCWEs)
	}
	for _, e := range c.epss {
		add(text("EPSS model", longest(e.ModelVersion, e.ScoreDate), MaxWord))
	}
	for _, tq := range c.techs {
		add(text("technique name", tq.Name, MaxName))
		count("tactics", len(tq.Tactics), MaxTactics)
		for _, ph := range tq.Tactics {
			add(text("tactic", ph, MaxWord))
		}
	}
	for _, ta := range c.tactics {
		add(text("tactic name", ta.Name, MaxName))
		add(text("short name", ta.ShortName, MaxWord))
	}
	if len(errs) > 0 {
		return fmt.Errorf("a record over the caps: %v", errs)
	}
	return nil
}

const marker15MiB = "… [truncated from 15.0 MiB]"

// nvdWith is an NVD page of one record, changed by edit.
func nvdWith(edit func(cve map[string]any)) []byte {
	cve := map[string]any{"id": "CVE-2024-0001", "published": "2024-03-01T10:00:00.000", "lastModified": "2024-06-01T10:00:00.000",
		"vulnStatus": "Analyzed", "descriptions": []any{map[string]any{"lang": "en", "value": "A flaw."}},
		"metrics": map[string]any{"cvssMetricV31": []any{map[string]any{"source": "nvd@nist.gov", "type": "Primary",
			"cvssData": map[string]any{"version": "3.1", "vectorString": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "baseScore": 9.8,
				"baseSeverity": "CRITICAL"}}}},
		"references": []any{map[string]any{"url": "https://example.com/advisory", "tags": []any{"Patch"}}},
		"configurations": []any{map[string]any{"nodes": []any{map[string]any{"cpeMatch": []any{map[string]any{"vulnerable": true,
			"criteria": "cpe:2.3:a:example:product:*:*:*:*:*:*:*:*", "versionEndExcluding": "2.0"}}}}}},
	}
	edit(cve)
	b, err := json.Marshal(map[string]any{"format": "NVD_CVE", "version": "2.0", "vulnerabilities": []any{map[string]any{"cve": cve}}})
	if err != nil {
		panic(err)
	}
	return b
}

// cve5With is a CVE 5 record changed by edit (its CNA container).
func cve5With(edit func(cna map[string]any)) []byte {
	cna := map[string]any{"descriptions": []any{map[string]any{"lang": "en", "value": "A flaw."}},
		"affected": []any{map[string]any{"vendor": "Example", "product": "Product", "defaultStatus": "unaffected",
			"versions": []any{map[string]any{"version": "1.0", "lessThan": "2.0", "status": "affected", "versionType": "semver"}}}},
		"references": []any{map[string]any{"url": "https://example.com/advisory"}}}
	edit(cna)
	b, err := json.Marshal(map[string]any{"dataType": "CVE_RECORD", "dataVersion": "5.1",
		"cveMetadata": map[string]any{"cveId": "CVE-2024-0002", "state": "PUBLISHED"}, "containers": map[string]any{"cna": cna}})
	if err != nil {
		panic(err)
	}
	return b
}

func repeat(n int, item func(i int) any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = item(i)
	}
	return out
}

// Each cap of a CVE record, NVD's or CVE 5's: a text over it is cut with
// the marker, an entry whose value would be wrong cut is left out, a list
// keeps its first entries, and the record's cut says what it lost. At the
// cap exactly nothing is cut.
func TestCVECaps(t *testing.T) {
	mib15 := strings.Repeat("d", 15<<20)
	cases := []struct {
		name   string
		format Format
		data   []byte
		check  func(t *testing.T, c CVE)
		cut    string // the cut's message; "" for none
	}{
		{"a description at its cap", NVD, nvdWith(func(c map[string]any) {
			c["descriptions"] = []any{map[string]any{"lang": "en", "value": strings.Repeat("d", MaxDescription)}}
		}), func(t *testing.T, c CVE) {
			if len(c.Description) != MaxDescription {
				t.Errorf("description %d bytes", len(c.Description))
			}
		}, ""},
		{"a 15 MiB description", NVD, nvdWith(func(c map[string]any) {
			c["descriptions"] = []any{map[string]any{"lang": "en", "value": mib15}}
		}), func(t *testing.T, c CVE) {
			if len(c.Description) > MaxDescription || !strings.HasSuffix(c.Description, marker15MiB) || !strings.HasPrefix(c.Description, "ddd") {
				t.Errorf("description %d bytes, ending %q", len(c.Description), c.Description[max(0, len(c.Description)-40):])
			}
		}, "description cut from 15.0 MiB to 8.0 KiB"},
		{"a CVE 5 description", CVE5, cve5With(func(c map[string]any) {
			c["descriptions"] = []any{map[string]any{"lang": "en", "value": mib15}}
		}), func(t *testing.T, c CVE) {
			if !strings.HasSuffix(c.Description, marker15MiB) {
				t.Errorf("description ends %q", c.Description[len(c.Description)-40:])
			}
		}, "description cut from 15.0 MiB to 8.0 KiB"},
		{"a state", NVD, nvdWith(func(c map[string]any) { c["vulnStatus"] = strings.Repeat("s", 100) }), nil,
			"state cut from 100 bytes to 64 bytes"},
		{"a reference's URL over its cap leaves the reference out", NVD, nvdWith(func(c map[string]any) {
			c["references"] = []any{map[string]any{"url": "https://example.com/" + strings.Repeat("u", MaxURL)},
				map[string]any{"url": "https://example.com/" + strings.Repeat("u", MaxURL-len("https://example.com/")), "tags": []any{"Patch"}}}
		}), func(t *testing.T, c CVE) {
			if len(c.References) != 1 || len(c.References[0].URL) != MaxURL {
				t.Errorf("references %d", len(c.References))
			}
		}, "1 reference left out: a URL over 2.0 KiB"},
		{"references over their count", NVD, nvdWith(func(c map[string]any) {
			c["references"] = repeat(MaxReferences+100, func(i int) any { return map[string]any{"url": fmt.Sprintf("https://example.com/%d", i)} })
		}), func(t *testing.T, c CVE) {
			if len(c.References) != MaxReferences || c.References[0].URL != "https://example.com/0" {
				t.Errorf("%d references, first %q", len(c.References), c.References[0].URL)
			}
		}, "100 of 600 references left out (at most 500 are kept)"},
		{"tags", NVD, nvdWith(func(c map[string]any) {
			c["references"] = []any{map[string]any{"url": "https://example.com/a", "tags": repeat(20, func(i int) any { return fmt.Sprint("tag", i) })},
				map[string]any{"url": "https://example.com/b", "tags": []any{strings.Repeat("t", 70), strings.Repeat("t", 80), "Patch"}}}
		}), func(t *testing.T, c CVE) {
			if len(c.References[0].Tags) != MaxTags || c.References[1].Tags[2] != "Patch" || len(c.References[1].Tags[1]) > MaxWord {
				t.Errorf("tags %q", c.References)
			}
		}, "4 of 20 reference tags left out (at most 16 are kept); 2 reference tags cut to 64 bytes (the longest was 80 bytes)"},
		{"a CPE name over its cap leaves the range out", NVD, nvdWith(func(c map[string]any) {
			c["configurations"] = []any{map[string]any{"nodes": []any{map[string]any{"cpeMatch": []any{
				map[string]any{"vulnerable": true, "criteria": "cpe:2.3:a:example:" + strings.Repeat("p", MaxCPE) + ":*:*:*:*:*:*:*:*"},
				map[string]any{"vulnerable": true, "criteria": "cpe:2.3:a:example:other:*:*:*:*:*:*:*:*", "versionEndExcluding": strings.Repeat("9", MaxVersion+1)},
				map[string]any{"vulnerable": true, "criteria": "cpe:2.3:a:example:kept:*:*:*:*:*:*:*:*", "versionEndExcluding": strings.Repeat("9", MaxVersion)},
			}}}}}
		}), func(t *testing.T, c CVE) {
			if len(c.CPEMatches) != 1 || !strings.Contains(c.CPEMatches[0].Criteria, ":kept:") {
				t.Errorf("ranges %+v", c.CPEMatches)
			}
		}, "1 CPE range left out: a CPE name over 1.0 KiB; 1 CPE range left out: a version bound over 256 bytes"},
		{"CPE ranges over their count", NVD, nvdWith(func(c map[string]any) {
			c["configurations"] = []any{map[string]any{"nodes": []any{map[string]any{"cpeMatch": repeat(MaxCPEMatches+1, func(i int) any {
				return map[string]any{"vulnerable": true, "criteria": fmt.Sprintf("cpe:2.3:a:example:p%d:*:*:*:*:*:*:*:*", i)}
			})}}}}
		}), func(t *testing.T, c CVE) {
			if len(c.CPEMatches) != MaxCPEMatches {
				t.Errorf("%d ranges", len(c.CPEMatches))
			}
		}, "1 of 10,001 CPE ranges left out (at most 10,000 are kept)"},
		{"a vector over its cap leaves the score out", NVD, nvdWith(func(c map[string]any) {
			c["metrics"] = map[string]any{"cvssMetricV31": []any{map[string]any{"source": strings.Repeat("s", MaxName+1),
				"cvssData": map[string]any{"version": "3.1", "vectorString": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "baseScore": 9.8}}},
				"cvssMetricV2": []any{map[string]any{"cvssData": map[string]any{"version": "2.0", "vectorString": strings.Repeat("v", MaxVector+1), "baseScore": 5.0}}}}
		}), func(t *testing.T, c CVE) {
			if len(c.Metrics) != 1 || c.Metrics[0].Version != "3.1" || len(c.Metrics[0].Source) > MaxName {
				t.Errorf("metrics %+v", c.Metrics)
			}
		}, "CVSS source cut from 501 bytes to 500 bytes; 1 CVSS score left out: a vector over 256 bytes"},
		{"CWEs over their count", NVD, nvdWith(func(c map[string]any) {
			c["weaknesses"] = []any{map[string]any{"description": repeat(MaxCWEs+5, func(i int) any { return map[string]any{"lang": "en", "value": fmt.Sprint("CWE-", i+1)} })}}
		}), func(t *testing.T, c CVE) {
			if len(c.CWEs) != MaxCWEs {
				t.Errorf("%d CWEs", len(c.CWEs))
			}
		}, "5 of 105 CWEs left out (at most 100 are kept)"},
		{"affected products", CVE5, cve5With(func(c map[string]any) {
			c["affected"] = []any{map[string]any{"vendor": strings.Repeat("v", 600), "product": "p", "cpes": []any{"cpe:2.3:a:" + strings.Repeat("x", MaxCPE)},
				"versions": append(repeat(MaxVersions, func(i int) any { return map[string]any{"version": fmt.Sprint("1.", i), "status": "affected"} }),
					map[string]any{"version": "2.0", "lessThan": strings.Repeat("9", MaxVersion+1), "status": "affected"})}}
		}), func(t *testing.T, c CVE) {
			a := c.Affected[0]
			if len(a.Vendor) > MaxName || len(a.Versions) != MaxVersions || a.CPEs != nil {
				t.Errorf("affected %d versions, %d CPEs, vendor %d bytes", len(a.Versions), len(a.CPEs), len(a.Vendor))
			}
		}, "affected vendor cut from 600 bytes to 500 bytes; 1 affected version left out: a version over 256 bytes; 1 affected CPE name left out: a name over 1.0 KiB"},
		{"affected versions over their count", CVE5, cve5With(func(c map[string]any) {
			c["affected"] = []any{map[string]any{"vendor": "v", "product": "p",
				"versions": repeat(MaxVersions+2, func(i int) any { return map[string]any{"version": fmt.Sprint("1.", i), "status": "affected"} })}}
		}), func(t *testing.T, c CVE) {
			if len(c.Affected[0].Versions) != MaxVersions {
				t.Errorf("%d versions", len(c.Affected[0].Versions))
			}
		}, "2 of 2,002 affected versions left out (at most 2,000 are kept)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, sum := mustParse(t, tc.format, tc.data)
			if len(c.cves) != 1 || sum.Skipped != 0 {
				t.Fatalf("%d records, %d problems %v", len(c.cves), sum.Skipped, c.problems)
			}
			if err := c.withinCaps(); err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, c.cves[0])
			}
			got := ""
			if len(c.cuts) == 1 {
				got = c.cuts[0].Message
				if c.cuts[0].ID != c.cves[0].ID || sum.Cut != 1 {
					t.Errorf("cut %+v, summary %d", c.cuts[0], sum.Cut)
				}
			}
			if got != tc.cut || len(c.cuts) > 1 {
				t.Errorf("cut %q, want %q", got, tc.cut)
			}
		})
	}
}

// A record whose id is over its cap is refused, and the problem quotes it
// in a few bytes.
func TestOverlongIDRefused(t *testing.T) {
	id := "CVE-2024-" + strings.Repeat("1", 1<<20)
	c, sum := mustParse(t, NVD, nvdWith(func(c map[string]any) { c["id"] = id }))
	if len(c.cves) != 0 || sum.Skipped != 1 || len(c.problems) != 1 {
		t.Fatalf("%d records, %d problems", len(c.cves), sum.Skipped)
	}
	p := c.problems[0]
	if len(p.ID) > MaxWord || len(p.Message) > 300 || !strings.Contains(p.Message, "invalid CVE id") || !strings.Contains(p.Message, "[truncated from 1.0 MiB]") {
		t.Errorf("problem: id %d bytes, message %q", len(p.ID), p.Message)
	}
}

// KEV entries, ATT&CK objects and EPSS files have their caps too, and so
// have a file's own values (Summary.Meta).
func TestOtherRecordCaps(t *testing.T) {
	t.Run("KEV", func(t *testing.T) {
		entry := map[string]any{"cveID": "CVE-2024-0003", "vendorProject": "Example", "product": "Product",
			"vulnerabilityName": strings.Repeat("n", 700), "dateAdded": "2024-01-01", "shortDescription": strings.Repeat("d", 20<<10),
			"requiredAction": "Apply updates.", "dueDate": "2024-01-22", "knownRansomwareCampaignUse": "Unknown", "notes": strings.Repeat("x", MaxDescription),
			"cwes": repeat(MaxCWEs+1, func(i int) any { return fmt.Sprint("CWE-", i+1) })}
		b, _ := json.Marshal(map[string]any{"title": "CISA Catalog of Known Exploited Vulnerabilities", "catalogVersion": strings.Repeat("9", 1000),
			"vulnerabilities": []any{entry}})
		c, sum := mustParse(t, KEVJSON, b)
		if err := c.withinCaps(); err != nil || len(c.kevs) != 1 {
			t.Fatalf("%v (%d entries)", err, len(c.kevs))
		}
		k := c.kevs[0]
		if !strings.HasSuffix(k.ShortDescription, "… [truncated from 20.0 KiB]") || len(k.Notes) != MaxDescription || len(k.CWEs) != MaxCWEs {
			t.Errorf("entry %d/%d bytes, %d CWEs", len(k.ShortDescription), len(k.Notes), len(k.CWEs))
		}
		want := "vulnerability name cut from 700 bytes to 500 bytes; short description cut from 20.0 KiB to 8.0 KiB; 1 of 101 CWEs left out (at most 100 are kept)"
		if len(c.cuts) != 1 || c.cuts[0].Message != want || c.cuts[0].ID != "CVE-2024-0003" {
			t.Errorf("cuts %+v, want %q", c.cuts, want)
		}
		if v := sum.Meta["catalogVersion"]; len(v) > MaxMetaValue || !strings.HasSuffix(v, "… [truncated from 1000 bytes]") {
			t.Errorf("catalogVersion %q", v)
		}
	})
	t.Run("ATT&CK", func(t *testing.T) {
		ref := []any{map[string]any{"source_name": "mitre-attack", "external_id": "T1059"}}
		objs := []any{
			map[string]any{"type": "attack-pattern", "id": "attack-pattern--1", "name": strings.Repeat("n", 600), "external_references": ref,
				"kill_chain_phases": repeat(MaxTactics+3, func(i int) any {
					return map[string]any{"kill_chain_name": "mitre-attack", "phase_name": fmt.Sprint("phase-", i)}
				})},
			map[string]any{"type": "x-mitre-tactic", "id": "x-mitre-tactic--1", "name": "Execution", "x_mitre_shortname": strings.Repeat("s", 65),
				"external_references": []any{map[string]any{"source_name": "mitre-attack", "external_id": "TA0002"}}},
		}
		b, _ := json.Marshal(map[string]any{"type": "bundle", "id": "bundle--1", "objects": objs})
		c, sum := mustParse(t, ATTACK, b)
		if err := c.withinCaps(); err != nil || len(c.techs) != 1 || len(c.tactics) != 1 || sum.Cut != 2 {
			t.Fatalf("%v (%d techniques, %d tactics, %d cut)", err, len(c.techs), len(c.tactics), sum.Cut)
		}
		if got := c.cuts[0].Message; got != "name cut from 600 bytes to 500 bytes; 3 of 35 tactics left out (at most 32 are kept)" {
			t.Errorf("technique's cut %q", got)
		}
		if got := c.cuts[1].Message; got != "short name cut from 65 bytes to 64 bytes" {
			t.Errorf("tactic's cut %q", got)
		}
	})
	t.Run("EPSS", func(t *testing.T) {
		var comment strings.Builder
		comment.WriteString("#model_version:" + strings.Repeat("v", 300) + ",score_date:2024-10-25T00:00:00+0000")
		for i := range MaxMetaKeys + 10 {
			fmt.Fprintf(&comment, ",k%d:%d", i, i)
		}
		c, sum := mustParse(t, EPSS, []byte(comment.String()+"\ncve,epss,percentile\nCVE-2024-0001,0.5,0.9\n"))
		if err := c.withinCaps(); err != nil || len(c.epss) != 1 {
			t.Fatalf("%v (%d rows)", err, len(c.epss))
		}
		if len(sum.Meta) != MaxMetaKeys || len(sum.Meta["model_version"]) > MaxMetaValue || sum.Meta["score_date"] == "" {
			t.Errorf("meta: %d keys, model_version %d bytes", len(sum.Meta), len(sum.Meta["model_version"]))
		}
	})
	t.Run("a file-level value", func(t *testing.T) {
		b := nvdWith(func(map[string]any) {})
		b = append([]byte(`{"timestamp":"`+strings.Repeat("t", 1<<20)+`",`), b[1:]...)
		c, sum := mustParse(t, NVD, b)
		if len(c.cves) != 1 || !strings.HasSuffix(sum.Meta["timestamp"], "… [truncated from 1.0 MiB]") || len(sum.Meta["timestamp"]) > MaxMetaValue {
			t.Errorf("timestamp %d bytes", len(sum.Meta["timestamp"]))
		}
	})
	t.Run("a file error quoting a long value", func(t *testing.T) {
		_, _, err := parseBytes(NVD, []byte(`{"format":"`+strings.Repeat("f", 1<<20)+`","vulnerabilities":[]}`))
		if err == nil || len(err.Error()) > 400 {
			t.Errorf("error %d bytes", len(errString(err)))
		}
	})
}
