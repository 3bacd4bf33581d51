package feed

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ---- helpers ----

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// collected gathers everything a parse passes on.
type collected struct {
	cves     []CVE
	kevs     []KEV
	epss     []EPSSScore
	techs    []Technique
	tactics  []Tactic
	problems []Problem
	cuts     []Problem
}

func (c *collected) handler() Handler {
	return Handler{
		CVE:       func(v CVE) error { c.cves = append(c.cves, v); return nil },
		KEV:       func(v KEV) error { c.kevs = append(c.kevs, v); return nil },
		EPSS:      func(v EPSSScore) error { c.epss = append(c.epss, v); return nil },
		Technique: func(v Technique) error { c.techs = append(c.techs, v); return nil },
		Tactic:    func(v Tactic) error { c.tactics = append(c.tactics, v); return nil },
		Problem:   func(p Problem) { c.problems = append(c.problems, p) },
		Cut:       func(p Problem) { c.cuts = append(c.cuts, p) },
	}
}

func (c *collected) records() int {
	return len(c.cves) + len(c.kevs) + len(c.epss) + len(c.techs) + len(c.tactics)
}

func parseBytes(format Format, data []byte) (*collected, Summary, error) {
	c := &collected{}
	sum, err := Parse(format, bytes.NewReader(data), c.handler())
	return c, sum, err
}

func mustParse(t *testing.T, format Format, data []byte) (*collected, Summary) {
	t.Helper()
	c, sum, err := parseBytes(format, data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", format, err)
	}
	return c, sum
}

func findCVE(t *testing.T, cves []CVE, id string) CVE {
	t.Helper()
	for _, c := range cves {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("%s not found", id)
	return CVE{}
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// ndjson turns a JSON array file into one record per line.
func ndjson(t testing.TB, arr []byte) []byte {
	t.Helper()
	var recs []json.RawMessage
	if err := json.Unmarshal(arr, &recs); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, r := range recs {
		var c bytes.Buffer
		json.Compact(&c, r)
		b.Write(c.Bytes())
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// ---- detection ----

func TestDetect(t *testing.T) {
	nvd := readTestdata(t, "nvd_sample.json")
	cve5 := readTestdata(t, "cve5_sample.json")
	kev := readTestdata(t, "kev_sample.json")
	kevCSV := readTestdata(t, "kev_sample.csv")
	epss := readTestdata(t, "epss_sample.csv")
	attack := readTestdata(t, "attack_sample.json")
	nd := ndjson(t, cve5)
	single := nd[:bytes.IndexByte(nd, '\n')+1]
	var pretty bytes.Buffer
	json.Indent(&pretty, single, "", "  ")

	files := []struct {
		name string
		data []byte
		want Format
	}{
		{"nvd", nvd, NVD},
		{"nvd vulnerabilities first", []byte(`{"vulnerabilities":[{"cve":{"id":"CVE-2020-0001"}}],"format":"NVD_CVE"}`), NVD},
		{"nvd paging only", []byte(`{"resultsPerPage":0,"startIndex":0,"totalResults":0,"vulnerabilities":[]}`), NVD},
		{"cve5 array", cve5, CVE5},
		{"cve5 ndjson", nd, CVE5},
		{"cve5 single", single, CVE5},
		{"cve5 pretty", pretty.Bytes(), CVE5},
		{"cve5 containers first", []byte(`{"containers":{"cna":{}},"cveMetadata":{"cveId":"CVE-2020-0001"}}`), CVE5},
		{"kev", kev, KEVJSON},
		{"kev vulnerabilities first", []byte(`{"vulnerabilities":[{"cveID":"CVE-2020-0001"}],"count":1}`), KEVJSON},
		{"kev csv", kevCSV, KEVCSV},
		{"kev csv quoted header", []byte("\"cveID\",\"vendorProject\"\r\nCVE-2020-0001,x\r\n"), KEVCSV},
		{"epss", epss, EPSS},
		{"epss no comment", epss[bytes.IndexByte(epss, '\n')+1:], EPSS},
		{"attack", attack, ATTACK},
		{"attack objects first", []byte(`{"objects":[],"type":"bundle"}`), ATTACK},
	}
	variants := []struct {
		name string
		f    func([]byte) []byte
	}{
		{"plain", func(b []byte) []byte { return b }},
		{"gzip", gz},
		{"bom", func(b []byte) []byte { return append([]byte("\ufeff"), b...) }},
		{"whitespace", func(b []byte) []byte { return append([]byte(" \r\n\t\n  "), b...) }},
		{"bom+whitespace+gzip", func(b []byte) []byte { return gz(append([]byte("\ufeff\n\n  "), b...)) }},
	}
	for _, f := range files {
		for _, v := range variants {
			t.Run(f.name+"/"+v.name, func(t *testing.T) {
				in := v.f(f.data)
				got, r, err := Detect(bytes.NewReader(in))
				if err != nil {
					t.Fatalf("Detect: %v", err)
				}
				if got != f.want {
					t.Fatalf("Detect = %q, want %q", got, f.want)
				}
				// Nothing consumed: the reader yields the whole (decompressed) stream.
				all, err := io.ReadAll(r)
				if err != nil {
					t.Fatal(err)
				}
				want := in
				if v.name == "gzip" || strings.HasSuffix(v.name, "gzip") {
					zr, _ := gzip.NewReader(bytes.NewReader(in))
					want, _ = io.ReadAll(zr)
				}
				if !bytes.Equal(all, want) {
					t.Fatalf("Detect's reader gave %d bytes, want %d", len(all), len(want))
				}
			})
		}
	}
}

func TestDetectThenParse(t *testing.T) {
	for _, tc := range []struct {
		file string
		n    int
	}{{"nvd_sample.json", 20}, {"cve5_sample.json", 12}, {"kev_sample.json", 30}, {"kev_sample.csv", 30}, {"epss_sample.csv", 20}, {"attack_sample.json", 9}} {
		for _, zip := range []bool{false, true} {
			t.Run(fmt.Sprint(tc.file, zip), func(t *testing.T) {
				data := readTestdata(t, tc.file)
				if zip {
					data = gz(append([]byte("\ufeff"), data...))
				}
				f, r, err := Detect(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				c := &collected{}
				sum, err := Parse(f, r, c.handler())
				if err != nil {
					t.Fatal(err)
				}
				if sum.Records != tc.n || c.records() != tc.n || sum.Skipped != 0 {
					t.Fatalf("records %d (handlers %d), skipped %d, want %d, 0 (problems %v)", sum.Records, c.records(), sum.Skipped, tc.n, c.problems)
				}
				if zip != (sum.Meta["compression"] == "gzip") {
					t.Fatalf("compression meta %q", sum.Meta["compression"])
				}
			})
		}
	}
}

func TestDetectUnknown(t *testing.T) {
	for _, tc := range []struct {
		name, data, mention string
	}{
		{"empty", "", "empty"},
		{"blank", " \n\t ", "empty"},
		{"garbage", "hello world", `"hello world"`},
		{"zip", "PK\x03\x04\x14\x00", `PK\x03\x04`},
		{"nvd 1.1", `{"CVE_data_type":"CVE","CVE_data_format":"MITRE","CVE_Items":[]}`, "1.1"},
		{"nvd cpe api", `{"resultsPerPage":1,"startIndex":0,"totalResults":1,"format":"NVD_CPE","version":"2.0","products":[]}`, "NVD_CPE"},
		{"other object", `{"foo":1,"bar":[1,2,{"x":"y"}]}`, "foo, bar"},
		{"other dataType", `{"dataType":"CVE_SOMETHING"}`, "CVE_SOMETHING"},
		{"bad json", `{"foo" 1}`, "invalid JSON"},
		{"plain csv", "a,b,c\n1,2,3\n", `"a,b,c`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, data := range [][]byte{[]byte(tc.data), gz([]byte(tc.data))} {
				f, _, err := Detect(bytes.NewReader(data))
				if !errors.Is(err, ErrUnknownFormat) {
					t.Fatalf("Detect = %q, %v; want ErrUnknownFormat", f, err)
				}
				if !strings.Contains(err.Error(), tc.mention) {
					t.Fatalf("error %q does not mention %q", err, tc.mention)
				}
			}
		})
	}
	// A corrupt gzip header is a FileError.
	_, _, err := Detect(bytes.NewReader([]byte{0x1f, 0x8b, 0, 0, 0}))
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("bad gzip header: %v, want *FileError", err)
	}
}

// ---- normalized output ----

func TestNVDGolden(t *testing.T) {
	c, sum := mustParse(t, NVD, readTestdata(t, "nvd_sample.json"))
	if len(c.cves) != 20 || sum.Skipped != 0 {
		t.Fatalf("%d records, %d skipped", len(c.cves), sum.Skipped)
	}
	wantMeta := map[string]string{"resultsPerPage": "20", "startIndex": "0", "totalResults": "20", "format": "NVD_CVE", "version": "2.0", "timestamp": "2024-10-25T01:15:13.497"}
	if !reflect.DeepEqual(sum.Meta, wantMeta) {
		t.Errorf("meta %v", sum.Meta)
	}

	got := findCVE(t, c.cves, "CVE-2024-9054")
	want := CVE{
		ID:          "CVE-2024-9054",
		Source:      NVD,
		State:       "Analyzed",
		Published:   utc("2024-10-04T20:15:07.587Z"),
		Modified:    utc("2024-10-17T15:19:32.803Z"),
		Description: "Improper Neutralization of Special Elements used in an OS Command ('OS Command Injection'), Exposure of Sensitive Information to an Unauthorized Actor vulnerability in Microchip TimeProvider 4100 (Configuration modules) allows Command Injection.This issue affects TimeProvider 4100: from 1.0 before 2.4.7.",
		Metrics: []Metric{
			{Version: "4.0", Vector: "CVSS:4.0/AV:N/AC:L/AT:N/PR:L/UI:A/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/E:X/CR:X/IR:X/AR:X/MAV:X/MAC:X/MAT:X/MPR:X/MUI:X/MVC:X/MVI:X/MVA:X/MSC:X/MSI:X/MSA:X/S:X/AU:Y/R:U/V:C/RE:M/U:Amber", BaseScore: 8.5, Severity: "high", Source: "dc3f6da9-85b5-4a73-84a2-2ec90b40fca5", Type: "Secondary"},
			{Version: "3.1", Vector: "CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", BaseScore: 8.8, Severity: "high", Source: "nvd@nist.gov", Type: "Primary"},
		},
		CWEs: []string{"CWE-78", "CWE-200"},
		References: []Reference{
			{URL: "https://www.gruppotim.it/it/footer/red-team.html", Tags: []string{"Exploit", "Third Party Advisory"}},
			{URL: "https://www.microchip.com/en-us/solutions/technologies/embedded-security/how-to-report-potential-product-security-vulnerabilities/timeprovider-4100-grandmaster-rce-through-configuration-file", Tags: []string{"Vendor Advisory"}},
		},
		// The vulnerable=false hardware node is dropped.
		CPEMatches: []CPEMatch{{Criteria: "cpe:2.3:o:microchip:timeprovider_4100_firmware:*:*:*:*:*:*:*:*", Vulnerable: true, StartIncluding: "1.0", EndExcluding: "2.4.7",
			RunningOn: "cpe:2.3:h:microchip:timeprovider_4100:-:*:*:*:*:*:*:*"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CVE-2024-9054:\n got %+v\nwant %+v", got, want)
	}

	// v3.1 + v2 (v2 severity sits outside cvssData), KEV date, references with Patch/Exploit/Vendor Advisory.
	got = findCVE(t, c.cves, "CVE-2002-0367")
	wantMetrics := []Metric{
		{Version: "3.1", Vector: "CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", BaseScore: 7.8, Severity: "high", Source: "nvd@nist.gov", Type: "Primary"},
		{Version: "2.0", Vector: "AV:L/AC:L/Au:N/C:C/I:C/A:C", BaseScore: 7.2, Severity: "high", Source: "nvd@nist.gov", Type: "Primary"},
	}
	if !reflect.DeepEqual(got.Metrics, wantMetrics) {
		t.Errorf("CVE-2002-0367 metrics %+v", got.Metrics)
	}
	if got.KEVDateAdded != "2022-03-03" || got.CWEs != nil { // NVD-CWE-Other only
		t.Errorf("CVE-2002-0367 KEV %q CWEs %v", got.KEVDateAdded, got.CWEs)
	}
	ref := got.References[2]
	if ref.URL != "http://www.securityfocus.com/archive/1/262074" || !reflect.DeepEqual(ref.Tags, []string{"Broken Link", "Exploit", "Patch", "Third Party Advisory", "VDB Entry", "Vendor Advisory"}) {
		t.Errorf("CVE-2002-0367 reference %+v", ref)
	}
	if len(got.CPEMatches) != 3 || got.CPEMatches[2].Criteria != "cpe:2.3:o:microsoft:windows_nt:4.0:-:*:*:terminal_server:*:*:*" {
		t.Errorf("CVE-2002-0367 CPEs %+v", got.CPEMatches)
	}

	got = findCVE(t, c.cves, "CVE-2024-9465")
	if len(got.Metrics) != 2 || got.Metrics[0].Version != "4.0" || got.Metrics[0].BaseScore != 9.2 || got.Metrics[0].Severity != "critical" ||
		!reflect.DeepEqual(got.CWEs, []string{"CWE-89"}) ||
		!reflect.DeepEqual(got.CPEMatches, []CPEMatch{{Criteria: "cpe:2.3:a:paloaltonetworks:expedition:*:*:*:*:*:*:*:*", Vulnerable: true, StartIncluding: "1.2.0", EndExcluding: "1.2.96"}}) ||
		!reflect.DeepEqual(got.References[0], Reference{URL: "https://security.paloaltonetworks.com/PAN-SA-2024-0010", Tags: []string{"Mitigation", "Vendor Advisory"}}) ||
		got.References[1].Tags != nil {
		t.Errorf("CVE-2024-9465 %+v", got)
	}

	// v2 only, Spanish description skipped, NVD-CWE-Other dropped.
	got = findCVE(t, c.cves, "CVE-2008-4553")
	if len(got.Metrics) != 1 || got.Metrics[0].Version != "2.0" || got.Metrics[0].Severity != "high" ||
		!strings.HasPrefix(got.Description, "qemu-make-debian-root in qemu") || !reflect.DeepEqual(got.CWEs, []string{"CWE-59"}) ||
		len(got.CPEMatches) != 1 || got.CPEMatches[0].Criteria != "cpe:2.3:a:qemu:qemu:0.9.1-5:*:*:*:*:*:*:*" {
		t.Errorf("CVE-2008-4553 %+v", got)
	}

	got = findCVE(t, c.cves, "CVE-2012-5189")
	if got.State != "Rejected" || got.Metrics != nil || !strings.HasPrefix(got.Description, "Rejected reason:") {
		t.Errorf("CVE-2012-5189 %+v", got)
	}
	for _, cv := range c.cves {
		if cv.Source != NVD || cv.Affected != nil || cv.SSVC != nil || cv.Published.IsZero() || cv.Modified.IsZero() || cv.Description == "" {
			t.Errorf("%s: %+v", cv.ID, cv)
		}
		for _, cwe := range cv.CWEs {
			if strings.HasPrefix(cwe, "NVD-") {
				t.Errorf("%s: %s kept", cv.ID, cwe)
			}
		}
	}
}

func TestCVE5Golden(t *testing.T) {
	c, _ := mustParse(t, CVE5, readTestdata(t, "cve5_sample.json"))
	if len(c.cves) != 12 {
		t.Fatalf("%d records", len(c.cves))
	}
	got := findCVE(t, c.cves, "CVE-2011-0611")
	if got.Source != CVE5 || got.State != "PUBLISHED" ||
		!got.Published.Equal(utc("2011-04-13T14:00:00Z")) || !got.Modified.Equal(utc("2024-08-06T21:58:26Z")) ||
		!strings.HasPrefix(got.Description, "Adobe Flash Player before 10.2.154.27") {
		t.Errorf("CVE-2011-0611 header %+v", got)
	}
	if want := (SSVC{Exploitation: "active", Automatable: "no", TechnicalImpact: "total", Timestamp: "2024-02-02T14:05:34.031031Z"}); got.SSVC == nil || *got.SSVC != want {
		t.Errorf("SSVC %+v", got.SSVC)
	}
	if got.KEVDateAdded != "2022-03-03" {
		t.Errorf("KEV %q", got.KEVDateAdded)
	}
	if want := []Metric{{Version: "3.1", Vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H", BaseScore: 8.8, Severity: "high", Source: "CISA-ADP", Type: "adp"}}; !reflect.DeepEqual(got.Metrics, want) {
		t.Errorf("metrics %+v", got.Metrics)
	}
	if !reflect.DeepEqual(got.CWEs, []string{"CWE-843"}) {
		t.Errorf("CWEs %v", got.CWEs)
	}
	// cna affected first ("n/a"), then the ADP ones with CPEs.
	if len(got.Affected) < 3 || got.Affected[0].Vendor != "n/a" ||
		!reflect.DeepEqual(got.Affected[1], Affected{Vendor: "adobe", Product: "flash_player", DefaultStatus: "unknown",
			CPEs:     []string{"cpe:2.3:a:adobe:flash_player:-:*:*:*:*:*:*:*"},
			Versions: []AffectedVersion{{Version: "0", LessThan: "10.2.154.27", Status: "affected", VersionType: "custom"}}}) {
		t.Errorf("affected %+v", got.Affected)
	}
	// The CVE Program container repeats the CNA's references: merged by URL.
	seen := map[string]bool{}
	for _, r := range got.References {
		if seen[r.URL] {
			t.Errorf("duplicate reference %s", r.URL)
		}
		seen[r.URL] = true
	}
	var exploit bool
	for _, r := range got.References {
		if r.URL == "http://www.exploit-db.com/exploits/17175" {
			exploit = reflect.DeepEqual(r.Tags, []string{"exploit", "x_refsource_EXPLOIT-DB", "x_transferred"})
		}
	}
	if !exploit {
		t.Errorf("exploit-db reference tags wrong")
	}

	// CNA metrics in all four versions; v2 has no severity in CVE 5; English picked over German.
	got = findCVE(t, c.cves, "CVE-2024-10157")
	wantM := []Metric{
		{Version: "4.0", Vector: "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:L/VI:L/VA:L/SC:N/SI:N/SA:N", BaseScore: 6.9, Severity: "medium", Source: "VulDB", Type: "cna"},
		{Version: "3.1", Vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:L", BaseScore: 7.3, Severity: "high", Source: "VulDB", Type: "cna"},
		{Version: "3.0", Vector: "CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:L", BaseScore: 7.3, Severity: "high", Source: "VulDB", Type: "cna"},
		{Version: "2.0", Vector: "AV:N/AC:L/Au:N/C:P/I:P/A:P", BaseScore: 7.5, Severity: "", Source: "VulDB", Type: "cna"},
	}
	if !reflect.DeepEqual(got.Metrics, wantM) || !strings.HasPrefix(got.Description, "A vulnerability was found in PHPGurukul") ||
		!reflect.DeepEqual(got.CWEs, []string{"CWE-89"}) || got.KEVDateAdded != "" || got.SSVC == nil || got.SSVC.Exploitation != "poc" {
		t.Errorf("CVE-2024-10157 %+v (ssvc %+v)", got, got.SSVC)
	}

	got = findCVE(t, c.cves, "CVE-2024-47722")
	if got.State != "REJECTED" || got.Description != "This CVE ID has been rejected or withdrawn by its CVE Numbering Authority." || got.Metrics != nil || got.SSVC != nil {
		t.Errorf("CVE-2024-47722 %+v", got)
	}

	// CNA v3.1 + v4.0; ADP CWE is "CWE-noinfo": dropped.
	got = findCVE(t, c.cves, "CVE-2024-9537")
	if len(got.Metrics) != 2 || got.Metrics[1].Version != "4.0" || got.Metrics[1].Source != "cisa-cg" || got.CWEs != nil || got.KEVDateAdded != "2024-10-21" {
		t.Errorf("CVE-2024-9537 %+v", got)
	}
	for _, cv := range c.cves {
		if cv.ID != "CVE-2024-10157" && cv.ID != "CVE-2024-47722" && (cv.SSVC == nil || cv.KEVDateAdded == "") {
			t.Errorf("%s: SSVC %v KEV %q", cv.ID, cv.SSVC, cv.KEVDateAdded)
		}
		if cv.CPEMatches != nil {
			t.Errorf("%s has CPE matches", cv.ID)
		}
	}
}

// The same records as an array, NDJSON (LF and CRLF), pretty-printed objects
// one after another, and one by one.
func TestCVE5Layouts(t *testing.T) {
	arr := readTestdata(t, "cve5_sample.json")
	want, _ := mustParse(t, CVE5, arr)
	nd := ndjson(t, arr)
	var pretty bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(nd), []byte("\n")) {
		json.Indent(&pretty, line, "", "  ")
		pretty.WriteString("\n")
	}
	for name, data := range map[string][]byte{
		"ndjson":        nd,
		"ndjson crlf":   bytes.ReplaceAll(nd, []byte("\n"), []byte("\r\n\r\n")),
		"ndjson no eol": bytes.TrimSpace(nd),
		"pretty":        pretty.Bytes(),
		"gzip ndjson":   gz(nd),
	} {
		t.Run(name, func(t *testing.T) {
			got, sum := mustParse(t, CVE5, data)
			if sum.Skipped != 0 || !reflect.DeepEqual(got.cves, want.cves) {
				t.Fatalf("%d records %d skipped; differ from the array's", len(got.cves), sum.Skipped)
			}
		})
	}
	lines := bytes.SplitAfter(nd, []byte("\n"))
	for i, line := range lines[:len(lines)-1] {
		got, _ := mustParse(t, CVE5, line)
		if len(got.cves) != 1 || !reflect.DeepEqual(got.cves[0], want.cves[i]) {
			t.Fatalf("single record %d differs", i)
		}
	}
}

func TestKEVGolden(t *testing.T) {
	c, sum := mustParse(t, KEVJSON, readTestdata(t, "kev_sample.json"))
	if len(c.kevs) != 30 {
		t.Fatalf("%d records", len(c.kevs))
	}
	wantMeta := map[string]string{"title": "CISA Catalog of Known Exploited Vulnerabilities", "catalogVersion": "2025.08.25", "dateReleased": "2025-08-25T17:04:19.9796Z", "count": "30"}
	if !reflect.DeepEqual(sum.Meta, wantMeta) {
		t.Errorf("meta %v", sum.Meta)
	}
	var log4j KEV
	for _, k := range c.kevs {
		if k.CVEID == "CVE-2021-44228" {
			log4j = k
		}
	}
	want := KEV{
		CVEID:            "CVE-2021-44228",
		VendorProject:    "Apache",
		Product:          "Log4j2",
		Name:             "Apache Log4j2 Remote Code Execution Vulnerability",
		DateAdded:        "2021-12-10",
		ShortDescription: "Apache Log4j2 contains a vulnerability where JNDI features do not protect against attacker-controlled JNDI-related endpoints, allowing for remote code execution.",
		RequiredAction:   "For all affected software assets for which updates exist, the only acceptable remediation actions are: 1) Apply updates; OR 2) remove affected assets from agency networks. Temporary mitigations using one of the measures provided at https://www.cisa.gov/uscert/ed-22-02-apache-log4j-recommended-mitigation-measures are only acceptable until updates are available.",
		DueDate:          "2021-12-24",
		KnownRansomware:  "Known",
		Notes:            "https://nvd.nist.gov/vuln/detail/CVE-2021-44228",
		CWEs:             []string{"CWE-20", "CWE-400", "CWE-502"},
	}
	if !reflect.DeepEqual(log4j, want) {
		t.Errorf("log4j:\n got %+v\nwant %+v", log4j, want)
	}
	for _, k := range c.kevs {
		switch k.CVEID {
		case "CVE-2025-54309": // published with a leading blank
			if k.Name != "CrushFTP Unprotected Alternate Channel Vulnerability" {
				t.Errorf("not trimmed: %q", k.Name)
			}
		case "CVE-2024-57727": // "SimpleHelp "
			if k.VendorProject != "SimpleHelp" {
				t.Errorf("not trimmed: %q", k.VendorProject)
			}
		}
	}

	// The CSV of the same entries gives the same records.
	csvc, csum := mustParse(t, KEVCSV, readTestdata(t, "kev_sample.csv"))
	if !reflect.DeepEqual(csvc.kevs, c.kevs) {
		for i := range c.kevs {
			if !reflect.DeepEqual(csvc.kevs[i], c.kevs[i]) {
				t.Fatalf("CSV entry %d:\n got %+v\nwant %+v", i, csvc.kevs[i], c.kevs[i])
			}
		}
		t.Fatalf("CSV: %d entries", len(csvc.kevs))
	}
	if len(csum.Meta) != 0 {
		t.Errorf("CSV meta %v", csum.Meta)
	}
	// CRLF line ends and a BOM, as CISA's own CSV may come.
	crlf := append([]byte("\ufeff"), bytes.ReplaceAll(readTestdata(t, "kev_sample.csv"), []byte("\n"), []byte("\r\n"))...)
	crc, _ := mustParse(t, KEVCSV, crlf)
	if !reflect.DeepEqual(crc.kevs, c.kevs) {
		t.Errorf("CRLF CSV differs")
	}
}

func TestEPSSGolden(t *testing.T) {
	c, sum := mustParse(t, EPSS, readTestdata(t, "epss_sample.csv"))
	if len(c.epss) != 20 {
		t.Fatalf("%d records", len(c.epss))
	}
	want := EPSSScore{CVEID: "CVE-2010-0188", Score: 0.97227, Percentile: 0.99857, ScoreDate: "2024-10-25", ModelVersion: "v2023.03.01"}
	if c.epss[3] != want {
		t.Errorf("row 3 %+v", c.epss[3])
	}
	if sum.Meta["model_version"] != "v2023.03.01" || sum.Meta["score_date"] != "2024-10-25T00:00:00+0000" {
		t.Errorf("meta %v", sum.Meta)
	}
	// Old layout: no comment line, no percentile column, upper-case header.
	c, _ = mustParse(t, EPSS, []byte("CVE,EPSS\ncve-2020-0001,0.5\n"))
	if len(c.epss) != 1 || c.epss[0] != (EPSSScore{CVEID: "CVE-2020-0001", Score: 0.5}) {
		t.Errorf("old layout %+v", c.epss)
	}
}

func TestATTACKGolden(t *testing.T) {
	c, sum := mustParse(t, ATTACK, readTestdata(t, "attack_sample.json"))
	wantTactics := []Tactic{{"TA0001", "Initial Access", "initial-access"}, {"TA0002", "Execution", "execution"}, {"TA0003", "Persistence", "persistence"}}
	wantTechs := []Technique{
		{ID: "T1190", Name: "Exploit Public-Facing Application", Tactics: []string{"initial-access"}},
		{ID: "T1059", Name: "Command and Scripting Interpreter", Tactics: []string{"execution"}},
		{ID: "T1059.001", Name: "PowerShell", Tactics: []string{"execution"}},
		{ID: "T1133", Name: "External Remote Services", Tactics: []string{"persistence", "initial-access"}},
		{ID: "T1086", Name: "PowerShell", Tactics: []string{"execution"}, Deprecated: true},
		{ID: "T1064", Name: "Scripting", Tactics: []string{"defense-evasion", "execution"}, Deprecated: true},
	}
	if !reflect.DeepEqual(c.tactics, wantTactics) {
		t.Errorf("tactics %+v", c.tactics)
	}
	if !reflect.DeepEqual(c.techs, wantTechs) {
		t.Errorf("techniques %+v", c.techs)
	}
	wantMeta := map[string]string{"id": "bundle--6b1c3e2a-0f0e-4c55-9d3a-2a7d2f0f6e01", "spec_version": "2.1", "collection": "Enterprise ATT&CK", "attack_version": "18.1"}
	if !reflect.DeepEqual(sum.Meta, wantMeta) || sum.Records != 9 || sum.Skipped != 0 {
		t.Errorf("summary %+v", sum)
	}
}

// ---- malformed records ----

func TestMalformedRecords(t *testing.T) {
	nvdRec := func(id string) string {
		return `{"cve":{"id":"` + id + `","vulnStatus":"Analyzed","descriptions":[{"lang":"en","value":"x"}]}}`
	}
	type prob struct {
		index int
		at    string // the record text: its offset is where it starts in the file
		id    string
		msg   string
	}
	cases := []struct {
		name   string
		format Format
		parts  []string // joined; records are located by text
		good   []string // ids delivered
		probs  []prob
	}{
		{
			name:   "nvd",
			format: NVD,
			parts: []string{`{"format":"NVD_CVE","vulnerabilities":[`, nvdRec("CVE-2020-0001"), ",\n ",
				nvdRec("CVE-123"), ",\n",
				`{"cve":{"id":"cve-2020-0003","metrics":{"cvssMetricV31":[{"cvssData":{"baseScore":"high"}}]}}}`, ",",
				`{"nocve":1}`, ", ", `null`, ",", `"string"`, ",",
				nvdRec(" cve-2020-0002 "), "]}"},
			good: []string{"CVE-2020-0001", "CVE-2020-0002"},
			probs: []prob{
				{1, nvdRec("CVE-123"), "CVE-123", "invalid CVE id"},
				{2, `{"cve":{"id":"cve-2020-0003"`, "CVE-2020-0003", "baseScore"},
				{3, `{"nocve":1}`, "", `no "cve"`},
				{4, `null`, "", `no "cve"`},
				{5, `"string"`, "", "cannot decode"},
			},
		},
		{
			name:   "cve5 array",
			format: CVE5,
			parts: []string{"[", `{"dataType":"CVE_RECORD","cveMetadata":{"cveId":"CVE-2020-0001"}}`, ",",
				`{"dataType":"CVE_RECORD","cveMetadata":{"cveId":""}}`, ",",
				`{"dataType":"OTHER","cveMetadata":{"cveId":"CVE-2020-0009"}}`, ",",
				`{"cveMetadata":{"cveId":"CVE-2020-0002"},"containers":{"cna":{"metrics":[{"cvssV3_1":{"baseScore":"9"}}]}}}`, ",",
				`{"cveMetadata":{"cveId":"CVE-2020-0003"}}`, "]"},
			good: []string{"CVE-2020-0001", "CVE-2020-0003"},
			probs: []prob{
				{1, `{"dataType":"CVE_RECORD","cveMetadata":{"cveId":""}}`, "", "cveId"},
				{2, `{"dataType":"OTHER"`, "CVE-2020-0009", "dataType"},
				{3, `{"cveMetadata":{"cveId":"CVE-2020-0002"},"containers"`, "CVE-2020-0002", "baseScore"},
			},
		},
		{
			name:   "cve5 ndjson",
			format: CVE5,
			parts: []string{`{"cveMetadata":{"cveId":"CVE-2020-0001"}}`, "\n",
				`{"cveMetadata":{"cveId":"CVE-2020-0002"`, "\n\n",
				"  ", `{"cveMetadata":{"cveId":"CVE-20-1"}}`, "\n",
				`{"cveMetadata":{"cveId":"CVE-2020-0003"}}`, "\n"},
			good: []string{"CVE-2020-0001", "CVE-2020-0003"},
			probs: []prob{
				{1, `{"cveMetadata":{"cveId":"CVE-2020-0002"`, "", "invalid JSON"},
				{2, `{"cveMetadata":{"cveId":"CVE-20-1"}}`, "CVE-20-1", "cveId"},
			},
		},
		{
			name:   "kev json",
			format: KEVJSON,
			parts: []string{`{"title":"t","vulnerabilities":[`, `{"cveID":"CVE-2020-0001","cwes":["CWE-79"]}`, ",",
				`{"vendorProject":"x"}`, ",", `{"cveID":"CVE-2020-0002","cwes":"CWE-79"}`, ",", `{"cveID":"CVE-2020-0003"}`, "]}"},
			good: []string{"CVE-2020-0001", "CVE-2020-0003"},
			probs: []prob{
				{1, `{"vendorProject":"x"}`, "", "missing cveID"},
				{2, `{"cveID":"CVE-2020-0002","cwes":"CWE-79"}`, "CVE-2020-0002", "cwes"},
			},
		},
		{
			name:   "kev csv",
			format: KEVCSV,
			parts: []string{"cveID,vendorProject,product,cwes\n", "CVE-2020-0001,a,b,\"CWE-79, CWE-89\"\n",
				"CVE-2020-0002,a,b\n", "notacve,a,b,c\n", "CVE-2020-0004,a\"b,c,d\n", "CVE-2020-0003,a,\"b\nc\",\n"},
			good: []string{"CVE-2020-0001", "CVE-2020-0003"},
			probs: []prob{
				{1, "CVE-2020-0002,a,b\n", "CVE-2020-0002", "3 fields"},
				{2, "notacve", "NOTACVE", "invalid cveID"},
				{3, "CVE-2020-0004", "", "bare"},
			},
		},
		{
			name:   "epss",
			format: EPSS,
			parts: []string{"#model_version:v1,score_date:2024-01-02T00:00:00+0000\n", "cve,epss,percentile\n", "CVE-2020-0001,0.1,0.2\n",
				"CVE-2020-0002,1.5,0.2\n", "CVE-2020-0005,abc,0.2\n", "CVE-2020-0006,NaN,0.2\n", "CVE-2020-0007,0.1,-0.1\n", "bogus,0.1,0.1\n", "CVE-2020-0008,0.1\n", "CVE-2020-0003,1,1\n"},
			good: []string{"CVE-2020-0001", "CVE-2020-0003"},
			probs: []prob{
				{1, "CVE-2020-0002", "CVE-2020-0002", "[0,1]"},
				{2, "CVE-2020-0005", "CVE-2020-0005", "[0,1]"},
				{3, "CVE-2020-0006", "CVE-2020-0006", "[0,1]"},
				{4, "CVE-2020-0007", "CVE-2020-0007", "percentile"},
				{5, "bogus", "BOGUS", "invalid CVE id"},
				{6, "CVE-2020-0008", "CVE-2020-0008", "2 fields"},
			},
		},
		{
			name:   "attack",
			format: ATTACK,
			parts: []string{`{"type":"bundle","objects":[`,
				`{"type":"attack-pattern","name":"A","external_references":[{"source_name":"mitre-attack","external_id":"T1001"}]}`, ",",
				`{"type":"attack-pattern","id":"attack-pattern--x","name":"B","external_references":[{"source_name":"capec","external_id":"CAPEC-1"}]}`, ",",
				`{"type":"attack-pattern","name":"C","external_references":[{"source_name":"mitre-attack","external_id":"T12"}]}`, ",",
				`{"type":"x-mitre-tactic","name":"D","revoked":"yes","external_references":[{"source_name":"mitre-attack","external_id":"TA0009"}]}`, ",",
				`{"type":"relationship"}`, ",",
				`{"type":"x-mitre-tactic","name":"E","external_references":[{"source_name":"mitre-attack","external_id":"TA0010"}]}`, "]}"},
			good: []string{"T1001", "TA0010"},
			probs: []prob{
				{1, `{"type":"attack-pattern","id":"attack-pattern--x"`, "attack-pattern--x", "ATT&CK technique id"},
				{2, `{"type":"attack-pattern","name":"C"`, "T12", "ATT&CK technique id"},
				{3, `{"type":"x-mitre-tactic","name":"D"`, "TA0009", "revoked"},
			},
		},
	}
	for _, tc := range cases {
		for _, prefix := range []string{"", "\ufeff"} {
			t.Run(fmt.Sprintf("%s bom=%v", tc.name, prefix != ""), func(t *testing.T) {
				file := prefix + strings.Join(tc.parts, "")
				c, sum, err := parseBytes(tc.format, []byte(file))
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				var ids []string
				for _, v := range c.cves {
					ids = append(ids, v.ID)
				}
				for _, v := range c.kevs {
					ids = append(ids, v.CVEID)
				}
				for _, v := range c.epss {
					ids = append(ids, v.CVEID)
				}
				for _, v := range c.techs {
					ids = append(ids, v.ID)
				}
				for _, v := range c.tactics {
					ids = append(ids, v.ID)
				}
				if !reflect.DeepEqual(ids, tc.good) {
					t.Errorf("delivered %v, want %v", ids, tc.good)
				}
				if sum.Records != len(tc.good) || sum.Skipped != len(tc.probs) {
					t.Errorf("summary %d records %d skipped", sum.Records, sum.Skipped)
				}
				if len(c.problems) != len(tc.probs) {
					t.Fatalf("problems %+v", c.problems)
				}
				for i, want := range tc.probs {
					got := c.problems[i]
					off := int64(strings.Index(file, want.at))
					if got.Index != want.index || got.Offset != off || got.ID != want.id || !strings.Contains(got.Message, want.msg) {
						t.Errorf("problem %d = %+v, want index %d offset %d id %q message ~%q", i, got, want.index, off, want.id, want.msg)
					}
				}
				// Validate agrees.
				vsum, err := Validate(tc.format, strings.NewReader(file))
				if err != nil || !reflect.DeepEqual(vsum, sum) {
					t.Errorf("Validate = %+v, %v; Parse gave %+v", vsum, err, sum)
				}
			})
		}
	}
}

// ---- malformed files ----

func TestMalformedFiles(t *testing.T) {
	nvd := readTestdata(t, "nvd_sample.json")
	cve5 := readTestdata(t, "cve5_sample.json")
	kevCSV := readTestdata(t, "kev_sample.csv")
	epss := readTestdata(t, "epss_sample.csv")
	// cut the NVD sample in the middle of its 11th record
	recStart := func(data []byte, n int, sep string) int {
		i := 0
		for k := 0; k < n; k++ {
			i += bytes.Index(data[i:], []byte(sep)) + 1
		}
		return i
	}
	cut := recStart(nvd, 11, "\n{\"cve\"") + 100
	gzNVD := gz(nvd)

	cases := []struct {
		name    string
		format  Format
		data    []byte
		before  int    // records delivered to Parse's handler before the break
		mention string // in the message
		offset  int64  // -1: don't check
		cause   error  // errors.Is, when set
	}{
		{"truncated json", NVD, nvd[:cut], 10, "end of input", -1, io.ErrUnexpectedEOF},
		{"truncated after array", NVD, nvd[:len(nvd)-3], 20, "end of input", -1, nil},
		{"truncated gzip", NVD, gzNVD[:len(gzNVD)/2], -1, "end of input", -1, io.ErrUnexpectedEOF},
		{"gzip bad checksum", NVD, append(append([]byte{}, gzNVD[:len(gzNVD)-8]...), 0, 0, 0, 0, 0, 0, 0, 0), 20, "checksum", -1, gzip.ErrChecksum},
		{"garbage", NVD, []byte("garbage"), 0, "invalid JSON", 0, nil},
		{"empty", NVD, nil, 0, "empty", 0, nil},
		{"vulnerabilities not an array", NVD, []byte(`{"vulnerabilities": 5}`), 0, "expected an array, found number 5", -1, nil},
		{"no vulnerabilities", NVD, []byte(`{"format":"NVD_CVE","version":"2.0"}`), 0, `no "vulnerabilities"`, -1, nil},
		{"wrong nvd format", NVD, []byte(`{"format":"NVD_CPE","products":[]}`), 0, "NVD_CPE", -1, nil},
		{"top-level array", NVD, []byte(`[{"cve":{}}]`), 0, "expected a JSON object", 0, nil},
		{"missing comma", NVD, []byte(`{"vulnerabilities":[{"cve":{"id":"CVE-2020-0001"}} {"cve":{"id":"CVE-2020-0002"}}]}`), 1, "invalid JSON", -1, nil},
		{"trailing data", NVD, []byte(`{"vulnerabilities":[]} {"x":1}`), 0, "after the end", -1, nil},
		{"trailing garbage", NVD, []byte(`{"vulnerabilities":[]} x`), 0, "invalid JSON", -1, nil},
		{"kev wrong shape", KEVJSON, []byte(`{"vulnerabilities":{"cveID":"CVE-2020-0001"}}`), 0, "expected an array", -1, nil},
		{"stix not a bundle", ATTACK, []byte(`{"type":"indicator","objects":[]}`), 0, `"indicator"`, -1, nil},
		{"cve5 truncated array", CVE5, cve5[:len(cve5)/2], -1, "end of input", -1, nil},
		{"cve5 truncated ndjson", CVE5, func() []byte { nd := ndjson(t, cve5); return nd[:len(nd)-50] }(), 11, "truncated", -1, nil},
		{"cve5 number", CVE5, []byte(`42`), 0, "expected a record", 0, nil},
		{"cve5 pretty broken", CVE5, []byte("{\n\"cveMetadata\":{\"cveId\":\"CVE-2020-0001\"}\n}\n{\n\"x\" 1}"), 1, "invalid JSON", -1, nil},
		{"kev csv without header", KEVCSV, kevCSV[bytes.IndexByte(kevCSV, '\n')+1:], 0, "missing header", 0, nil},
		{"kev csv empty", KEVCSV, []byte("\n\n"), 0, "no header", -1, nil},
		{"kev csv unterminated quote", KEVCSV, []byte("cveID,notes\nCVE-2020-0001,a\nCVE-2020-0002,\"abc"), 1, "unterminated", -1, nil},
		{"epss without header", EPSS, []byte("CVE-2020-0001,0.1,0.2\n"), 0, "missing header", 0, nil},
		{"epss comment only", EPSS, []byte("#model_version:v1\n"), 0, "no header", -1, nil},
		{"epss truncated gzip", EPSS, func() []byte { g := gz(epss); return g[:len(g)-20] }(), -1, "end of input", -1, io.ErrUnexpectedEOF},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, sum, err := parseBytes(tc.format, tc.data)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse error %v (%T), want *FileError", err, err)
			}
			if !strings.Contains(fe.Message, tc.mention) {
				t.Errorf("message %q does not mention %q", fe.Message, tc.mention)
			}
			if tc.offset >= 0 && fe.Offset != tc.offset {
				t.Errorf("offset %d, want %d", fe.Offset, tc.offset)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(tc.data))*20 {
				t.Errorf("offset %d out of range", fe.Offset)
			}
			if tc.cause != nil && !errors.Is(err, tc.cause) {
				t.Errorf("error %v does not wrap %v", err, tc.cause)
			}
			if tc.before >= 0 && c.records() != tc.before {
				t.Errorf("%d records before the break, want %d", c.records(), tc.before)
			}
			if sum.Records != c.records() {
				t.Errorf("summary %d records, handlers saw %d", sum.Records, c.records())
			}
			// Validate reports the same error and summary.
			vsum, verr := Validate(tc.format, bytes.NewReader(tc.data))
			if verr == nil || verr.Error() != err.Error() || !reflect.DeepEqual(vsum, sum) {
				t.Errorf("Validate = %+v, %v; Parse = %+v, %v", vsum, verr, sum, err)
			}
		})
	}
}

func TestRecordSizeLimit(t *testing.T) {
	defer func(r, l int64) { maxRecordSize, maxLineSize = r, l }(maxRecordSize, maxLineSize)
	maxRecordSize, maxLineSize = 64<<10, 1<<10
	big := strings.Repeat("x", 100<<10)
	small := `{"cve":{"id":"CVE-2020-0001"}}`
	for _, tc := range []struct {
		name    string
		format  Format
		data    string
		before  int
		mention string
	}{
		{"nvd record", NVD, `{"vulnerabilities":[` + small + `,{"cve":{"id":"CVE-2020-0002","descriptions":[{"lang":"en","value":"` + big + `"}]}}]}`, 1, "NVD record larger than 65536"},
		{"nvd record just over", NVD, `{"vulnerabilities":[` + small + `,{"cve":{"id":"CVE-2020-0002","descriptions":[{"lang":"en","value":"` + big[:64<<10] + `"}]}}]}`, 1, "larger than 65536"},
		{"nvd meta value", NVD, `{"timestamp":"` + big + `","vulnerabilities":[]}`, 0, "larger than"},
		{"nvd skipped value", NVD, `{"other":["` + big + `"],"vulnerabilities":[]}`, 0, "larger than"},
		{"cve5 ndjson line", CVE5, `{"cveMetadata":{"cveId":"CVE-2020-0001"}}` + "\n" + `{"x":"` + big + `"}` + "\n", 1, "longer than 65536"},
		{"kev csv row", KEVCSV, "cveID,notes\nCVE-2020-0001,a\nCVE-2020-0002," + big[:2000] + "\n", 1, "longer than 1024"},
		{"kev csv quoted row", KEVCSV, "cveID,notes\nCVE-2020-0001,\"" + big + "\"\n", 0, "longer than 1024"},
		{"epss comment", EPSS, "#" + big + "\ncve,epss\n", 0, "longer than 1024"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := parseBytes(tc.format, []byte(tc.data))
			var fe *FileError
			if !errors.As(err, &fe) || !strings.Contains(fe.Message, tc.mention) {
				t.Fatalf("error %v, want a *FileError mentioning %q", err, tc.mention)
			}
			if c.records() != tc.before {
				t.Errorf("%d records before, want %d", c.records(), tc.before)
			}
		})
	}
	// Within the limits all is well.
	c, _, err := parseBytes(NVD, []byte(`{"vulnerabilities":[{"cve":{"id":"CVE-2020-0002","descriptions":[{"lang":"en","value":"`+big[:60<<10]+`"}]}}]}`))
	if err != nil || len(c.cves) != 1 {
		t.Fatalf("record under the limit: %v", err)
	}
}

// A record over the real 16 MiB limit is refused without reading the rest.
func TestRecordOver16MiB(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	head := `{"vulnerabilities":[{"cve":{"id":"CVE-2020-0001"}},{"cve":{"id":"CVE-2020-0002","descriptions":[{"lang":"en","value":"`
	endless := io.MultiReader(strings.NewReader(head), &repeatReader{b: 'a', n: 1 << 40})
	c := &collected{}
	_, err := Parse(NVD, endless, c.handler())
	var fe *FileError
	if !errors.As(err, &fe) || !strings.Contains(fe.Message, "larger than 16777216") {
		t.Fatalf("error %v", err)
	}
	if len(c.cves) != 1 || fe.Offset != int64(strings.LastIndex(head, `{"cve"`)) {
		t.Fatalf("%d records, offset %d", len(c.cves), fe.Offset)
	}
}

// repeatReader yields n copies of b.
type repeatReader struct {
	b byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	for i := range p {
		p[i] = r.b
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// ---- handler errors ----

func TestHandlerErrorStops(t *testing.T) {
	stop := errors.New("stop here")
	for _, tc := range []struct {
		file   string
		format Format
		set    func(h *Handler, f func() error)
	}{
		{"nvd_sample.json", NVD, func(h *Handler, f func() error) { h.CVE = func(CVE) error { return f() } }},
		{"cve5_sample.json", CVE5, func(h *Handler, f func() error) { h.CVE = func(CVE) error { return f() } }},
		{"kev_sample.json", KEVJSON, func(h *Handler, f func() error) { h.KEV = func(KEV) error { return f() } }},
		{"kev_sample.csv", KEVCSV, func(h *Handler, f func() error) { h.KEV = func(KEV) error { return f() } }},
		{"epss_sample.csv", EPSS, func(h *Handler, f func() error) { h.EPSS = func(EPSSScore) error { return f() } }},
		{"attack_sample.json", ATTACK, func(h *Handler, f func() error) { h.Technique = func(Technique) error { return f() } }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			calls := 0
			var h Handler
			tc.set(&h, func() error {
				calls++
				if calls == 3 {
					return stop
				}
				return nil
			})
			sum, err := Parse(tc.format, bytes.NewReader(readTestdata(t, tc.file)), h)
			if err != stop {
				t.Fatalf("error %v, want the handler's", err)
			}
			if calls != 3 {
				t.Fatalf("%d calls after the error", calls)
			}
			if tc.format != ATTACK && sum.Records != 2 {
				t.Fatalf("summary records %d", sum.Records)
			}
		})
	}
}

// Passing Detect's reader or the raw file gives the same result; a reader
// that returns one byte at a time too.
func TestReaderShapes(t *testing.T) {
	data := gz(readTestdata(t, "nvd_sample.json"))
	want, _ := mustParse(t, NVD, data)
	c := &collected{}
	if _, err := Parse(NVD, &oneByteReader{data}, c.handler()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.cves, want.cves) {
		t.Fatal("one-byte reader differs")
	}
	pr, pw := io.Pipe()
	go func() {
		for b := data; len(b) > 0; {
			n := min(len(b), 777)
			pw.Write(b[:n])
			b = b[n:]
		}
		pw.Close()
	}()
	f, r, err := Detect(pr)
	if err != nil || f != NVD {
		t.Fatal(f, err)
	}
	c = &collected{}
	if _, err := Parse(f, r, c.handler()); err != nil || !reflect.DeepEqual(c.cves, want.cves) {
		t.Fatal("pipe differs", err)
	}
}

type oneByteReader struct{ b []byte }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.b[0]
	r.b = r.b[1:]
	return 1, nil
}

func TestUnknownFormat(t *testing.T) {
	if _, err := Parse("xml", strings.NewReader("<x/>"), Handler{}); err == nil || !strings.Contains(err.Error(), `"xml"`) {
		t.Fatal(err)
	}
}

func TestNormalizers(t *testing.T) {
	for s, want := range map[string]bool{"CVE-2021-44228": true, "CVE-1999-0001": true, "CVE-2024-1234567": true, "CVE-2021-123": false, "CVE-21-12345": false, "CVE-2021-44228x": false, "CAN-2021-1234": false, "": false, "CVE-2021-": false} {
		if validCVEID(s) != want {
			t.Errorf("validCVEID(%q) != %v", s, want)
		}
	}
	for s, want := range map[string]string{"CWE-79": "CWE-79", " cwe-79 ": "CWE-79", "NVD-CWE-Other": "", "NVD-CWE-noinfo": "", "CWE-noinfo": "", "CWE-": ""} {
		if got, _ := normCWE(s); got != want {
			t.Errorf("normCWE(%q) = %q", s, got)
		}
	}
	for s, want := range map[string]string{"CWE-352 Cross-Site Request Forgery (CSRF)": "CWE-352", "CWE-94": "CWE-94", "CWE-noinfo Not enough information": "", "escalation of privilege": "", "CWE-79x": ""} {
		if got, _ := leadingCWE(s); got != want {
			t.Errorf("leadingCWE(%q) = %q", s, got)
		}
	}
	for s, want := range map[string]bool{"T1059": true, "T1059.001": true, "T105": false, "T1059.01": false, "TA0001": false} {
		if validAttackID(s, "T") != want {
			t.Errorf("validAttackID(%q, T) != %v", s, want)
		}
	}
	for s, want := range map[string]string{
		"2024-10-04T20:15:07.587":     "2024-10-04T20:15:07.587Z",
		"2024-08-06T21:58:26.000Z":    "2024-08-06T21:58:26Z",
		"2011-04-13T14:00:00":         "2011-04-13T14:00:00Z",
		"2024-02-02T14:05:34.031031Z": "2024-02-02T14:05:34.031031Z",
		"2024-10-25T00:00:00+0000":    "2024-10-25T00:00:00Z",
		"2024-10-25T02:00:00+02:00":   "2024-10-25T00:00:00Z",
		"2021-12-10":                  "2021-12-10T00:00:00Z",
	} {
		if got := parseTime(s); !got.Equal(utc(want)) || got.Location() != time.UTC {
			t.Errorf("parseTime(%q) = %v", s, got)
		}
	}
	if !parseTime("yesterday").IsZero() {
		t.Error("bad time parsed")
	}
}

// References are merged by URL and CPE matches deduplicated, also past the
// size where a set takes over from a linear scan.
func TestDedup(t *testing.T) {
	var refs, cpes []string
	for i := 0; i < 80; i++ {
		refs = append(refs, fmt.Sprintf(`{"url":"https://example.com/%d","tags":["t%d"]}`, i%50, i%3))
		cpes = append(cpes, fmt.Sprintf(`{"vulnerable":true,"criteria":"cpe:2.3:a:x:y:%d:*:*:*:*:*:*:*"}`, i%40))
	}
	cpes = append(cpes, `{"vulnerable":false,"criteria":"cpe:2.3:o:x:os:-:*:*:*:*:*:*:*"}`, `{"vulnerable":true,"criteria":" "}`)
	data := `{"vulnerabilities":[{"cve":{"id":"CVE-2020-0001","references":[` + strings.Join(refs, ",") +
		`],"configurations":[{"nodes":[{"cpeMatch":[` + strings.Join(cpes, ",") + `]}]},{"nodes":[{"cpeMatch":[` + strings.Join(cpes[:10], ",") + `]}]}]}}]}`
	c, _ := mustParse(t, NVD, []byte(data))
	got := c.cves[0]
	if len(got.References) != 50 || len(got.CPEMatches) != 40 {
		t.Fatalf("%d references, %d CPE matches", len(got.References), len(got.CPEMatches))
	}
	for i, r := range got.References {
		want := []string{fmt.Sprintf("t%d", i%3)}
		if i < 30 { // seen again as i+50
			want = append(want, fmt.Sprintf("t%d", (i+50)%3))
		}
		if r.URL != fmt.Sprintf("https://example.com/%d", i) || !reflect.DeepEqual(r.Tags, want) {
			t.Fatalf("reference %d: %+v, want tags %v", i, r, want)
		}
	}
	for i, m := range got.CPEMatches {
		if m.Criteria != fmt.Sprintf("cpe:2.3:a:x:y:%d:*:*:*:*:*:*:*", i) {
			t.Fatalf("CPE match %d: %+v", i, m)
		}
	}
}

// Descriptions: English first whatever its position or spelling; else the
// first one.
func TestEnglish(t *testing.T) {
	for _, tc := range []struct {
		in   []langValue
		want string
	}{
		{[]langValue{{"es", "hola"}, {"en-US", " hello "}}, "hello"},
		{[]langValue{{"de", "hallo"}, {"EN", ""}, {"en_GB", "hi"}}, "hi"},
		{[]langValue{{"de", " "}, {"fr", "salut"}}, "salut"},
		{nil, ""},
	} {
		if got := english(tc.in); got != tc.want {
			t.Errorf("english(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
