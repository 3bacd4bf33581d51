package handlers_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// nvdRecord is one NVD CVE API 2.0 record: a CVSS 3.1 score and the CPE
// ranges of a product.
type nvdRecord struct {
	ID, Vector, Severity string
	Score                float64
	Ranges               []map[string]any
	Refs                 []map[string]any
	CWE                  string
}

func nvdFile(records ...nvdRecord) []byte {
	var vulns []map[string]any
	for _, r := range records {
		var matches []map[string]any
		for _, rg := range r.Ranges {
			m := map[string]any{"vulnerable": true, "matchCriteriaId": "00000000-0000-0000-0000-000000000000"}
			for k, v := range rg {
				m[k] = v
			}
			matches = append(matches, m)
		}
		cve := map[string]any{"id": r.ID, "sourceIdentifier": "cve@mitre.org", "published": "2024-03-01T10:00:00.000",
			"lastModified": "2024-06-01T10:00:00.000", "vulnStatus": "Analyzed",
			"descriptions": []map[string]any{{"lang": "en", "value": "A flaw in the product lets a remote attacker run code."}},
			"metrics": map[string]any{"cvssMetricV31": []map[string]any{{"source": "nvd@nist.gov", "type": "Primary",
				"cvssData": map[string]any{"version": "3.1", "vectorString": r.Vector, "baseScore": r.Score, "baseSeverity": r.Severity}}}},
			"references": r.Refs}
		if r.CWE != "" {
			cve["weaknesses"] = []map[string]any{{"source": "nvd@nist.gov", "type": "Primary", "description": []map[string]any{{"lang": "en", "value": r.CWE}}}}
		}
		if len(matches) > 0 {
			cve["configurations"] = []map[string]any{{"nodes": []map[string]any{{"operator": "OR", "negate": false, "cpeMatch": matches}}}}
		}
		vulns = append(vulns, map[string]any{"cve": cve})
	}
	b, _ := json.Marshal(map[string]any{"resultsPerPage": len(vulns), "startIndex": 0, "totalResults": len(vulns), "format": "NVD_CVE",
		"version": "2.0", "timestamp": "2024-06-02T00:00:00.000", "vulnerabilities": vulns})
	return b
}

// The product of the range tests: vulnerable from 2.4.0 (included) to
// 2.4.50 (excluded).
var httpdRange = map[string]any{"criteria": "cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*",
	"versionStartIncluding": "2.4.0", "versionEndExcluding": "2.4.50"}

const critical = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"
const high = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N"

func (e *env) importIntel(cred string, body []byte) apitest.Response {
	e.T.Helper()
	return e.Do("POST", "/api/intel/import", cred, body)
}

func TestCVEWatchlistRefusals(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	read, write := e.APIKey(admin, "read"), e.APIKey(admin, "write")
	other := e.Register("zoe@other.test", "Other")
	entry := e.Do("POST", "/api/cve-watchlist", write, map[string]any{"cve_id": "cve-2021-44228"}).Must(t, http.StatusCreated).Get("data")
	id := entry.Get("id").MustStr(t)
	if entry.Get("cve_id").Str() != "CVE-2021-44228" || entry.Get("status").Str() != "pending" || !strings.HasPrefix(id, "cvw_") {
		t.Fatalf("entry: %v", entry)
	}
	cases := []struct {
		name, method, path, cred string
		body                     any
		status                   int
		code                     string
		fields                   []string
	}{
		{"no cve_id", "POST", "/api/cve-watchlist", write, map[string]any{}, 400, "validation_error", []string{"cve_id"}},
		{"cve_id a number", "POST", "/api/cve-watchlist", write, map[string]any{"cve_id": 44228}, 400, "validation_error", []string{"cve_id"}},
		{"malformed cve_id", "POST", "/api/cve-watchlist", write, map[string]any{"cve_id": "CVE-21-44228"}, 400, "validation_error", []string{"cve_id"}},
		{"short sequence", "POST", "/api/cve-watchlist", write, map[string]any{"cve_id": "CVE-2021-442"}, 400, "validation_error", []string{"cve_id"}},
		{"unknown field", "POST", "/api/cve-watchlist", write, map[string]any{"cve_id": "CVE-2021-1234", "note": "x"}, 400, "validation_error", []string{"note"}},
		{"read key adds", "POST", "/api/cve-watchlist", read, map[string]any{"cve_id": "CVE-2021-1234"}, 403, "forbidden", nil},
		{"read key deletes", "DELETE", "/api/cve-watchlist/" + id, read, nil, 403, "forbidden", nil},
		{"another organization's entry", "GET", "/api/cve-watchlist/" + id, other.Token, nil, 404, "not_found", nil},
		{"another organization deletes", "DELETE", "/api/cve-watchlist/" + id, other.Token, nil, 404, "not_found", nil},
		{"unknown entry", "GET", "/api/cve-watchlist/cvw_nothing", admin.Token, nil, 404, "not_found", nil},
		{"bad min_score", "GET", "/api/cve-watchlist?min_score=11", read, nil, 400, "validation_error", []string{"min_score"}},
		{"bad kev", "GET", "/api/cve-watchlist?kev=yes", read, nil, 400, "validation_error", []string{"kev"}},
		{"bad patch_status", "GET", "/api/cve-watchlist?patch_status=fixed", read, nil, 400, "validation_error", []string{"patch_status"}},
		{"bad sort", "GET", "/api/cve-watchlist?sort=name", read, nil, 400, "validation_error", []string{"sort"}},
		{"bad affected", "GET", "/api/cve-watchlist?affected=1", read, nil, 400, "validation_error", []string{"affected"}},
		{"import by a write key", "POST", "/api/intel/import", write, nvdFile(), 403, "forbidden", nil},
		{"import by another organization", "POST", "/api/intel/import", other.Token, nvdFile(), 403, "forbidden", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do(c.method, c.path, c.cred, c.body)
			if c.fields != nil {
				r.WantFields(t, c.fields...)
				return
			}
			r.WantError(t, c.status, c.code, "")
		})
	}
	// A duplicate names the entry it duplicates.
	dup := e.Do("POST", "/api/cve-watchlist", admin.Token, map[string]any{"cve_id": "CVE-2021-44228"})
	dup.WantError(t, http.StatusConflict, "conflict", "")
	if dup.Body["existing_id"] != id {
		t.Fatalf("duplicate: %s", dup.Raw)
	}
	// Another organization watches the same CVE on its own.
	e.Do("POST", "/api/cve-watchlist", other.Token, map[string]any{"cve_id": "CVE-2021-44228"}).Must(t, http.StatusCreated)
	if n := len(e.Do("GET", "/api/cve-watchlist", read, nil).Must(t, http.StatusOK).List()); n != 1 {
		t.Fatalf("%d entries", n)
	}
	e.Do("DELETE", "/api/cve-watchlist/"+id, write, nil).Must(t, http.StatusOK)
	e.Do("GET", "/api/cve-watchlist/"+id, admin.Token, nil).WantError(t, http.StatusNotFound, "not_found", "")
}

func TestCVEWatchlistEnrichmentAndAffectedAssets(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	// Assets at each side of each bound of the range, and one matched by name.
	e.Do("POST", "/api/assets", admin.Token, []map[string]any{
		{"hostname": "web-below", "software": []map[string]any{{"vendor": "Apache", "product": "http_server", "version": "2.3.9"}}},
		{"hostname": "web-start", "software": []map[string]any{{"vendor": "apache", "product": "http_server", "version": "2.4.0"}}},
		{"hostname": "web-inside", "ip": "10.0.0.5", "owner": "Dental", "software": []map[string]any{{"vendor": "apache", "product": "http_server", "version": "2.4.49"}}},
		{"hostname": "web-end", "software": []map[string]any{{"vendor": "apache", "product": "http_server", "version": "2.4.50"}}},
		{"hostname": "web-unknown", "software": []map[string]any{{"vendor": "apache", "product": "http_server"}}},
		{"hostname": "nas-01", "software": []map[string]any{{"vendor": "Acme Storage", "product": "NAS OS", "version": "5.1"}}},
	}).Must(t, http.StatusCreated)

	watch := e.Do("POST", "/api/cve-watchlist", admin.Token, map[string]any{"cve_id": "CVE-2021-41773"}).Must(t, http.StatusCreated).Get("data")
	if watch.Get("status").Str() != "pending" || !watch.Get("cvss_score").IsNull() || watch.Get("patch_status").Str() != "unknown" {
		t.Fatalf("pending entry: %v", watch)
	}
	// The import brings it: enriched, with the assets inside the range.
	imp := e.importIntel(admin.Token, nvdFile(nvdRecord{ID: "CVE-2021-41773", Vector: high, Score: 7.5, Severity: "HIGH", CWE: "CWE-22",
		Ranges: []map[string]any{httpdRange}, Refs: []map[string]any{{"url": "https://httpd.apache.org/security/vulnerabilities_24.html", "tags": []string{"Vendor Advisory"}},
			{"url": "https://www.exploit-db.com/exploits/50383", "tags": []string{"Exploit"}}}})).Must(t, http.StatusOK).Data()
	if imp["format"] != "nvd" || imp["records"] != 1.0 || imp["added"] != 1.0 || imp["status"] != "completed" {
		t.Fatalf("import: %v", imp)
	}
	got := e.Do("GET", "/api/cve-watchlist/"+watch.Get("id").MustStr(t), admin.Token, nil).Must(t, http.StatusOK).Get("data")
	if got.Get("status").Str() != "enriched" || got.Get("cvss_score").Float() != 7.5 || got.Get("cvss_version").Str() != "3.1" || got.Get("severity").Str() != "high" ||
		got.Get("vendor").Str() != "apache" || got.Get("product").Str() != "http_server" || got.Get("patch_status").Str() != "patch_available" ||
		len(got.Get("exploit_references").List()) != 1 || got.Get("last_intel_update").IsNull() {
		t.Fatalf("enriched entry: %v", got)
	}
	v31 := got.Get("cvss", "v3.1")
	if v31.Get("computed_score").Float() != 7.5 || !v31.Get("matches_published").Bool() {
		t.Fatalf("recomputed score: %v", v31)
	}
	hosts := map[string]bool{}
	for _, m := range got.Get("affected_assets").MustList(t) {
		hosts[m.Get("hostname").MustStr(t)] = true
		if m.Get("match").Str() != "cpe" {
			t.Fatalf("affected asset: %v", m)
		}
	}
	want := map[string]bool{"web-start": true, "web-inside": true, "web-unknown": true}
	if fmt.Sprint(hosts) != fmt.Sprint(want) {
		t.Fatalf("affected hosts %v, want %v", hosts, want)
	}

	// A CVE without CPE data matches by name, said so.
	e.Do("POST", "/api/cve-watchlist", admin.Token, map[string]any{"cve_id": "CVE-2024-0001"}).Must(t, http.StatusCreated)
	cve5 := map[string]any{"dataType": "CVE_RECORD", "dataVersion": "5.1",
		"cveMetadata": map[string]any{"cveId": "CVE-2024-0001", "state": "PUBLISHED", "datePublished": "2024-01-02T00:00:00Z", "dateUpdated": "2024-01-03T00:00:00Z"},
		"containers": map[string]any{"cna": map[string]any{"providerMetadata": map[string]any{"orgId": "x", "shortName": "acme"},
			"descriptions": []map[string]any{{"lang": "en", "value": "NAS OS before 5.2 allows remote code execution."}},
			"affected":     []map[string]any{{"vendor": "Acme Storage", "product": "NAS OS", "versions": []map[string]any{{"version": "0", "lessThan": "5.2", "status": "affected", "versionType": "semver"}}}},
			"metrics":      []map[string]any{{"cvssV3_1": map[string]any{"version": "3.1", "vectorString": critical, "baseScore": 9.8, "baseSeverity": "CRITICAL"}}},
			"references":   []map[string]any{{"url": "https://acme.example/advisory"}}}}}
	body, _ := json.Marshal(cve5)
	e.importIntel(admin.Token, body).Must(t, http.StatusOK)
	list := e.Do("GET", "/api/cve-watchlist?sort=score", admin.Token, nil).Must(t, http.StatusOK).Get("data").List()
	first := list[0]
	if first.Get("cve_id").Str() != "CVE-2024-0001" || first.Get("cvss_score").Float() != 9.8 {
		t.Fatalf("sorted by score: %v", first)
	}
	aff := first.Get("affected_assets").List()
	if len(aff) != 1 || aff[0].Get("hostname").Str() != "nas-01" || aff[0].Get("match").Str() != "name" {
		t.Fatalf("name match: %v", aff)
	}
	if n := len(e.Do("GET", "/api/cve-watchlist?min_score=9", admin.Token, nil).Must(t, http.StatusOK).List()); n != 1 {
		t.Fatalf("min_score=9: %d", n)
	}
	// Both are patchable: the first by its advisory, NAS OS's by the fixed
	// version its affected data names (lessThan 5.2).
	if n := len(e.Do("GET", "/api/cve-watchlist?affected=true&patch_status=patch_available", admin.Token, nil).Must(t, http.StatusOK).List()); n != 2 {
		t.Fatalf("affected patchable: %d", n)
	}

	// The score weighs them: one critical and one high CVE on assets.
	score := e.Do("GET", "/api/dashboard/security-score", admin.Token, nil).Must(t, http.StatusOK).Get("data")
	vuln := score.Get("sub_scores", "vulnerabilities")
	if !vuln.Get("assessed").Bool() || vuln.Get("score").Float() != 80 {
		t.Fatalf("vulnerabilities sub-score: %v", vuln)
	}
	// 16 days after it was watched, the critical CVE on an asset is past its
	// 15-day patching deadline, the high one (30 days) not yet: CIS 7.2
	// fails with the critical one named.
	e.Clock.Advance(16 * 24 * time.Hour)
	admin.Token = e.Login("ann@acme.test", apitest.Password).Str("token")
	audit := e.audit(admin.Token, "cis")
	g := gapOf(t, audit, "cis", "7.2")
	if g.IsNull() || !slices.Contains(failedChecks(t, g), "vulnerability_sla") {
		t.Fatalf("cis 7.2 after 31 days: %v", g)
	}
	observed := g.Get("failed", "0", "observed")
	if observed.Get("overdue").Float() != 1 || observed.Get("affecting_assets").Float() != 2 || observed.Get("cve_ids").Strings()[0] != "CVE-2024-0001" {
		t.Fatalf("overdue evidence: %v", observed)
	}
}

func TestIntelImportChangesAndNotifications(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.Verify(admin)
	watcher := e.Register("wes@watcher.test", "Watcher")
	e.Verify(watcher)
	bystander := e.Register("bo@bystander.test", "Bystander")
	for _, who := range []apitest.Account{admin, watcher} {
		e.Do("POST", "/api/cve-watchlist", who.Token, map[string]any{"cve_id": "CVE-2023-1000"}).Must(t, http.StatusCreated)
	}
	e.Do("POST", "/api/cve-watchlist", bystander.Token, map[string]any{"cve_id": "CVE-2023-2000"}).Must(t, http.StatusCreated)
	file := nvdFile(nvdRecord{ID: "CVE-2023-1000", Vector: high, Score: 7.5, Severity: "HIGH"}, nvdRecord{ID: "CVE-2023-2000", Vector: high, Score: 7.5, Severity: "HIGH"})

	// A malformed file is refused and nothing is written.
	bad := append([]byte(nil), file[:len(file)/2]...)
	e.importIntel(admin.Token, bad).WantFields(t, "body")
	if st := e.Do("GET", "/api/intel/status", admin.Token, nil).Must(t, http.StatusOK).Get("data"); !st.Get("counts", "cves").Is(0) {
		t.Fatalf("a refused file wrote: %v", st)
	}

	e.importIntel(admin.Token, file).Must(t, http.StatusOK)
	e.drainRuns()
	before := map[string]int{}
	for _, who := range []apitest.Account{admin, watcher, bystander} {
		before[who.Email] = len(e.Do("GET", "/api/notifications", who.Token, nil).Must(t, http.StatusOK).List())
	}

	// The same file again (gzipped) changes nothing and notifies nobody.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(file)
	zw.Close()
	again := e.importIntel(admin.Token, gz.Bytes()).Must(t, http.StatusOK).Data()
	if again["unchanged"] != 2.0 || again["changed"] != 0.0 || again["organizations_notified"] != 0.0 {
		t.Fatalf("idempotent re-import: %v", again)
	}

	// A higher score for CVE-2023-1000: one notice per watching organization.
	changed := nvdFile(nvdRecord{ID: "CVE-2023-1000", Vector: critical, Score: 9.8, Severity: "CRITICAL"}, nvdRecord{ID: "CVE-2023-2000", Vector: high, Score: 7.5, Severity: "HIGH"})
	res := e.importIntel(admin.Token, changed).Must(t, http.StatusOK).Get("data")
	if res.Get("changed").Float() != 1 || res.Get("unchanged").Float() != 1 || res.Get("organizations_notified").Float() != 2 {
		t.Fatalf("changed import: %v", res)
	}
	e.drainRuns()
	for _, who := range []apitest.Account{admin, watcher} {
		list := e.Do("GET", "/api/notifications?unread=true", who.Token, nil).Must(t, http.StatusOK).Get("data").List()
		var cve []apitest.JSON
		for _, n := range list {
			if m := n.MustObject(t); m.Get("kind").Str() == "cve_update" && strings.HasPrefix(m.Get("title").MustStr(t), "CVE-2023-1000: CVSS score") {
				cve = append(cve, m)
			}
		}
		if len(cve) != 1 || !strings.Contains(cve[0].Get("body").Str(), "7.5 (CVSS 3.1) → 9.8 (CVSS 3.1)") {
			t.Fatalf("%s: notices %v", who.Email, list)
		}
		mails := 0
		for _, m := range e.Mails(who.Email) {
			if strings.Contains(m.Subject, "CVE-2023-1000 changed") && strings.Contains(m.Body, "7.5 (CVSS 3.1) → 9.8 (CVSS 3.1)") {
				mails++
			}
		}
		if mails != 1 {
			t.Fatalf("%s: %d digests", who.Email, mails)
		}
		// Read once, then it leaves the unread list.
		e.Do("POST", "/api/notifications/"+cve[0].Get("id").MustStr(t)+"/read", who.Token, nil).Must(t, http.StatusOK)
		for _, n := range e.Do("GET", "/api/notifications?unread=true", who.Token, nil).Must(t, http.StatusOK).Get("data").List() {
			if n.MustObject(t).Get("id").Equal(cve[0].Get("id")) {
				t.Fatal("a read notification is still unread")
			}
		}
		e.Do("POST", "/api/notifications/"+cve[0].Get("id").MustStr(t)+"/read", bystander.Token, nil).WantError(t, http.StatusNotFound, "not_found", "")
	}
	if n := len(e.Do("GET", "/api/notifications", bystander.Token, nil).Must(t, http.StatusOK).List()); n != before[bystander.Email] {
		t.Fatalf("the bystander got %d new notifications", n-before[bystander.Email])
	}
	// The entry's history says what changed, from which import.
	entries := e.Do("GET", "/api/cve-watchlist", watcher.Token, nil).Must(t, http.StatusOK).Get("data").List()
	got := e.Do("GET", "/api/cve-watchlist/"+entries[0].Get("id").MustStr(t), watcher.Token, nil).Must(t, http.StatusOK).Get("data")
	found := false
	for _, h := range got.Get("history").MustList(t) {
		m := h.MustObject(t)
		found = found || m.Get("field").Str() == "cvss_score" && m.Get("from").Str() == "7.5 (CVSS 3.1)" && m.Get("to").Str() == "9.8 (CVSS 3.1)" && m.Get("import_id").Equal(res.Get("import_id"))
	}
	if !found || got.Get("severity").Str() != "critical" {
		t.Fatalf("history: %v", got.Get("history"))
	}
}

// drainRuns wakes the agent workers and waits until no run is queued or
// running.
func (e *env) drainRuns() {
	e.T.Helper()
	e.Runner.Notify()
	e.awaitIdle()
}

// awaitIdle waits until no agent run is queued or running.
func (e *env) awaitIdle() {
	e.T.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		if err := e.Store.DB().QueryRow(`SELECT COUNT(*) FROM agent_runs WHERE status IN ('queued', 'running')`).Scan(&n); err != nil {
			e.T.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.T.Fatalf("%d agent runs still queued or running", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAssets(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	read, write := e.APIKey(admin, "read"), e.APIKey(admin, "write")
	other := e.Register("zoe@other.test", "Other")
	one := e.Do("POST", "/api/assets", write, map[string]any{"hostname": "WS-01.acme.local.", "ip": "10.0.0.7", "os": "Windows 11",
		"owner": "Front desk", "software": []map[string]any{{"vendor": "Mozilla", "product": "Firefox", "version": "128.0",
			"cpe": "cpe:2.3:a:mozilla:firefox:128.0:*:*:*:*:*:*:*"}}}).Must(t, http.StatusCreated).Get("data")
	id := one.Get("id").MustStr(t)
	if one.Get("hostname").Str() != "ws-01.acme.local" || !one.Get("created").Bool() || !strings.HasPrefix(id, "ast_") {
		t.Fatalf("asset: %v", one)
	}
	sw := func(n int) []map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"vendor": "v", "product": "p", "version": "1"}
		}
		return out
	}
	many := make([]map[string]any, 1001)
	for i := range many {
		many[i] = map[string]any{"hostname": fmt.Sprintf("h%d", i)}
	}
	cases := []struct {
		name, method, path, cred string
		body                     any
		status                   int
		fields                   []string
	}{
		{"no hostname", "POST", "/api/assets", write, map[string]any{"os": "Linux"}, 400, []string{"hostname"}},
		{"bad hostname", "POST", "/api/assets", write, map[string]any{"hostname": "web 01"}, 400, []string{"hostname"}},
		{"bad ip", "POST", "/api/assets", write, map[string]any{"hostname": "a", "ip": "10.0.0.300"}, 400, []string{"ip"}},
		{"two-line os", "POST", "/api/assets", write, map[string]any{"hostname": "a", "os": "a\nb"}, 400, []string{"os"}},
		{"software without vendor", "POST", "/api/assets", write, map[string]any{"hostname": "a", "software": []map[string]any{{"product": "p"}}}, 400, []string{"software.0.vendor"}},
		{"version with a space", "POST", "/api/assets", write, map[string]any{"hostname": "a", "software": []map[string]any{{"vendor": "v", "product": "p", "version": "1 2"}}}, 400, []string{"software.0.version"}},
		{"bad cpe", "POST", "/api/assets", write, map[string]any{"hostname": "a", "software": []map[string]any{{"vendor": "v", "product": "p", "cpe": "cpe:/x"}}}, 400, []string{"software.0.cpe"}},
		{"too much software", "POST", "/api/assets", write, map[string]any{"hostname": "a", "software": sw(5001)}, 400, []string{"software"}},
		{"unknown field", "POST", "/api/assets", write, map[string]any{"hostname": "a", "mac": "x"}, 400, []string{"mac"}},
		{"errors by index", "POST", "/api/assets", write, []map[string]any{{"hostname": "ok"}, {"hostname": ""}, {"hostname": "ok"}}, 400, []string{"1.hostname", "2.hostname"}},
		{"empty array", "POST", "/api/assets", write, []map[string]any{}, 400, []string{"body"}},
		{"too many", "POST", "/api/assets", write, many, 400, []string{"body"}},
		{"read key writes", "POST", "/api/assets", read, map[string]any{"hostname": "a"}, 403, nil},
		{"read key deletes", "DELETE", "/api/assets/" + id, read, nil, 403, nil},
		{"another organization's asset", "GET", "/api/assets/" + id, other.Token, nil, 404, nil},
		{"another organization patches", "PATCH", "/api/assets/" + id, other.Token, map[string]any{"os": "x"}, 404, nil},
		{"another organization deletes", "DELETE", "/api/assets/" + id, other.Token, nil, 404, nil},
		{"patch with a bad ip", "PATCH", "/api/assets/" + id, write, map[string]any{"ip": "nope"}, 400, []string{"ip"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do(c.method, c.path, c.cred, c.body)
			if c.fields != nil {
				r.WantFields(t, c.fields...)
				return
			}
			r.WantError(t, c.status, map[int]string{403: "forbidden", 404: "not_found"}[c.status], "")
		})
	}
	// Nothing refused was stored.
	list := e.Do("GET", "/api/assets", read, nil).Must(t, http.StatusOK)
	if list.Get("pagination", "total").Float() != 1 {
		t.Fatalf("assets after refusals: %s", list.Raw)
	}
	// The same hostname again updates in place; a new one is created.
	both := e.Do("POST", "/api/assets", write, []map[string]any{{"hostname": "ws-01.acme.local", "os": "Windows 11 24H2"}, {"hostname": "ws-02"}}).
		Must(t, http.StatusCreated).Get("data").List()
	if b0 := both[0]; !b0.Get("id").Is(id) || !b0.Get("created").Is(false) || b0.Get("os").Str() != "Windows 11 24H2" || len(b0.Get("software").MustList(t)) != 0 {
		t.Fatalf("upsert: %v", b0)
	}
	e.Do("POST", "/api/assets", write, map[string]any{"hostname": "ws-02"}).Must(t, http.StatusOK)
	// PATCH changes what it names; a hostname taken by another asset is 409.
	p := e.Do("PATCH", "/api/assets/"+id, write, map[string]any{"owner": "Back office"}).Must(t, http.StatusOK).Data()
	if p["owner"] != "Back office" || p["os"] != "Windows 11 24H2" {
		t.Fatalf("patch: %v", p)
	}
	e.Do("PATCH", "/api/assets/"+id, write, map[string]any{"hostname": "ws-02"}).WantError(t, http.StatusConflict, "conflict", "")
	e.Do("DELETE", "/api/assets/"+id, write, nil).Must(t, http.StatusOK)
	e.Do("GET", "/api/assets/"+id, read, nil).WantError(t, http.StatusNotFound, "not_found", "")
}

func TestThreatResearcherIntelImportRuns(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	// Only an import queues these runs: the API refuses them.
	e.Do("POST", "/api/agents/threat-researcher/execute", admin.Token, map[string]any{"intel_import": "imp_01m82xg681tj13g6p5bnvx8rxj"}).WantFields(t, "intel_import")
	e.Do("POST", "/api/agents/threat-researcher/execute", admin.Token, map[string]any{"intel_import": "imp_nope", "target": "example.com"}).WantFields(t, "intel_import")
	// An import that changed nothing the organization watches queues no run
	// and notifies nobody.
	imp := e.importIntel(admin.Token, nvdFile(nvdRecord{ID: "CVE-2023-3000", Vector: high, Score: 7.5, Severity: "HIGH"})).Must(t, http.StatusOK).Data()
	if imp["organizations_notified"] != 0.0 {
		t.Fatalf("import: %v", imp)
	}
	if n := len(e.Do("GET", "/api/agents/threat-researcher/executions", admin.Token, nil).Must(t, http.StatusOK).List()); n != 0 {
		t.Fatalf("%d researcher runs", n)
	}
}

// The researcher reads the store: a CVE target is found, and without a
// CTID mapping its weakness is mapped to ATT&CK through CAPEC, where the
// technique is how a network-reachable flaw is reached (initial access).
func TestThreatResearcherReadsTheStore(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.importIntel(admin.Token, nvdFile(nvdRecord{ID: "CVE-2023-4000", Vector: high, Score: 7.5, Severity: "HIGH", CWE: "CWE-307"})).Must(t, http.StatusOK)
	run := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "cve-2023-4000"})
	out := run.Get("output")
	matches := out.Get("cves", "matches").List()
	if len(matches) != 1 || matches[0].Get("id").Str() != "CVE-2023-4000" || matches[0].Get("cvss").Float() != 7.5 {
		t.Fatalf("cves: %v", out.Get("cves"))
	}
	found := false
	for _, tq := range out.Get("mitre_attack", "techniques").List() {
		m := tq.MustObject(t)
		found = found || m.Get("id").Str() == "T1078" && strings.Contains(fmt.Sprint(m.Get("evidence").Any()), "CWE-307 → CAPEC-560")
	}
	if !found {
		t.Fatalf("techniques: %v", out.Get("mitre_attack"))
	}
}

// EPSS scores and an ATT&CK bundle enrich what is watched.
func TestIntelEPSSAndAttackImports(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.importIntel(admin.Token, nvdFile(nvdRecord{ID: "CVE-2023-4000", Vector: high, Score: 7.5, Severity: "HIGH", CWE: "CWE-307"})).Must(t, http.StatusOK)
	id := e.Do("POST", "/api/cve-watchlist", admin.Token, map[string]any{"cve_id": "CVE-2023-4000"}).Must(t, http.StatusCreated).Get("data", "id").MustStr(t)
	epss := "#model_version:v2023.03.01,score_date:2024-10-25T00:00:00+0000\ncve,epss,percentile\nCVE-2023-4000,0.91234,0.99871\nCVE-2023-9999,0.1,0.5\n"
	if r := e.importIntel(admin.Token, []byte(epss)).Must(t, http.StatusOK).Data(); r["format"] != "epss" || r["records"] != 2.0 {
		t.Fatalf("epss import: %v", r)
	}
	bundle := map[string]any{"type": "bundle", "id": "bundle--1", "objects": []map[string]any{{"type": "attack-pattern", "id": "attack-pattern--1",
		"spec_version": "2.1", "name": "Valid Accounts (renamed)", "kill_chain_phases": []map[string]any{{"kill_chain_name": "mitre-attack", "phase_name": "initial-access"}},
		"external_references": []map[string]any{{"source_name": "mitre-attack", "external_id": "T1078", "url": "https://attack.mitre.org/techniques/T1078"}}}}}
	if r := e.importIntel(admin.Token, mustJSON(bundle)).Must(t, http.StatusOK).Data(); r["format"] != "attack" || r["records"] != 1.0 {
		t.Fatalf("attack import: %v", r)
	}
	got := e.Do("GET", "/api/cve-watchlist/"+id, admin.Token, nil).Must(t, http.StatusOK).Get("data")
	if ep := got.Get("epss"); ep.Get("score").Float() != 0.91234 || ep.Get("percentile").Float() != 0.99871 || ep.Get("date").Is("") {
		t.Fatalf("epss: %v", got.Get("epss"))
	}
	techs := got.Get("attack_techniques").List()
	if len(techs) == 0 || techs[0].Get("name").Str() != "Valid Accounts (renamed)" || techs[0].Get("source").Str() != "cwe-capec" ||
		len(techs[0].Get("tactics").List()) == 0 {
		t.Fatalf("techniques: %v", techs)
	}
	counts := e.Do("GET", "/api/intel/status", admin.Token, nil).Must(t, http.StatusOK).Get("data", "counts")
	if counts.Get("epss").Float() != 2 || counts.Get("attack_techniques").Float() != 1 || counts.Get("cves").Float() != 1 {
		t.Fatalf("status counts: %v", counts)
	}
}
