package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// sharedIntel is the real NVD and KEV data of ../shared/data (public
// domain and CC0), read at run time.
const sharedIntel = "../../shared/data/"

func readShared(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(sharedIntel + name)
	if err != nil {
		t.Skipf("SKIP: the real NVD and KEV samples are read from %s at run time, and %s is not there: %v", sharedIntel, name, err)
	}
	return b
}

// findingsOf lists an organization's findings for a query, by CVE id.
func findingsOf(t *testing.T, e *env, cred, query string) map[string]apitest.JSON {
	t.Helper()
	out := map[string]apitest.JSON{}
	for _, f := range e.Do("GET", "/api/findings?limit=200&"+query, cred, nil).Must(t, http.StatusOK).Get("data").List() {
		out[f.Get("cve_id").Str()] = f
	}
	return out
}

func sortedKeys(m map[string]apitest.JSON) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Every asset's software is matched against the whole store, whichever
// comes first: FortiOS 6.0.4 finds exactly the six CVEs of the 982 of the
// real NVD sample whose ranges include it (not CVE-2018-13374, fixed in
// 6.0.3), KEV-listed as CISA lists them. An upgrade fixes the three fixed
// in 6.0.5 by itself, saying why.
func TestFindingsFromTheWholeStore(t *testing.T) {
	nvd, kev := readShared(t, "nvd_cves_sample.json"), readShared(t, "cisa_kev.json")
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.importIntel(admin.Token, nvd).Must(t, http.StatusOK)
	e.importIntel(admin.Token, kev).Must(t, http.StatusOK)

	fw := e.Do("POST", "/api/assets", admin.Token, map[string]any{"hostname": "fw-604", "ip": "10.0.0.1",
		"software": []map[string]any{{"vendor": "Fortinet", "product": "FortiOS", "version": "6.0.4"}}}).Must(t, http.StatusCreated).Get("data")
	fwID := fw.Get("id").Str()
	want := []string{"CVE-2018-13379", "CVE-2018-13382", "CVE-2018-13383", "CVE-2019-5591", "CVE-2021-44168", "CVE-2023-28002"}
	found := findingsOf(t, e, admin.Token, "asset="+fwID)
	if got := sortedKeys(found); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("FortiOS 6.0.4 finds %v, want %v", got, want)
	}
	for id, f := range found {
		kevListed, ransomware := id != "CVE-2023-28002", strings.HasPrefix(id, "CVE-2018-")
		if f.Get("status").Str() != "open" || f.Get("kev").Bool() != kevListed || f.Get("ransomware").Bool() != ransomware ||
			f.Get("match").Str() != "cpe" || !f.Get("version_known").Bool() || f.Get("asset_hostname").Str() != "fw-604" ||
			f.Get("software", "version").Str() != "6.0.4" || f.Get("cvss_score").IsNull() {
			t.Errorf("%s: %v", id, f)
		}
	}
	detail := e.Do("GET", "/api/assets/"+fwID, admin.Token, nil).Must(t, http.StatusOK).Get("data")
	if detail.Get("findings_total").Int() != 6 || detail.Get("findings").Len() != 6 || detail.Get("findings").List()[0].Get("kev").Bool() != true {
		t.Fatalf("the asset's detail: %v", detail)
	}

	// The five KEV-listed ones are notified once, most urgent first.
	var notices []apitest.JSON
	for _, n := range e.Do("GET", "/api/notifications", admin.Token, nil).Must(t, http.StatusOK).Get("data").List() {
		if n.Get("kind").Str() == "finding" {
			notices = append(notices, n)
		}
	}
	if len(notices) != 1 || notices[0].Get("title").Str() != "5 new findings, KEV-listed or critical" ||
		!strings.HasPrefix(notices[0].Get("body").Str(), "CVE-2018-13379 (KEV, ransomware, CVSS 9.8) on fw-604: Fortinet FortiOS 6.0.4\n") {
		t.Fatalf("notifications: %v", notices)
	}

	// The score weighs the open findings, watched or not: five KEV-listed
	// CVEs affecting an asset cost the most the rule takes (60).
	vuln := e.Do("GET", "/api/dashboard/security-score", admin.Token, nil).Must(t, http.StatusOK).Get("data", "sub_scores", "vulnerabilities")
	if !vuln.Get("assessed").Bool() || vuln.Get("score").Float() != 40 {
		t.Fatalf("vulnerabilities sub-score: %v", vuln)
	}

	// The upgrade to 6.0.5 fixes what 6.0.5 fixed, by itself.
	e.Do("PATCH", "/api/assets/"+fwID, admin.Token, map[string]any{"software": []map[string]any{
		{"vendor": "Fortinet", "product": "FortiOS", "version": "6.0.5"}}}).Must(t, http.StatusOK)
	found = findingsOf(t, e, admin.Token, "asset="+fwID)
	for id, f := range found {
		fixed := strings.HasPrefix(id, "CVE-2018-")
		if fixed != (f.Get("status").Str() == "fixed") || fixed == f.Get("fixed_at").IsNull() {
			t.Errorf("after the upgrade %s is %s", id, f)
		}
		if fixed && f.Get("status_reason").Str() != "Fortinet FortiOS is now at version 6.0.5, outside the vulnerable versions" {
			t.Errorf("%s fixed because %q", id, f.Get("status_reason").Str())
		}
	}
	history := e.Do("GET", "/api/findings/"+found["CVE-2018-13379"].Get("id").Str(), admin.Token, nil).Must(t, http.StatusOK).Get("data", "history")
	if history.Len() != 2 || history.List()[0].Get("status").Str() != "open" || history.List()[1].Get("status").Str() != "fixed" ||
		history.List()[1].Get("actor").Str() != "garrison" {
		t.Fatalf("history: %v", history)
	}
	// Filters.
	for query, n := range map[string]int{"status=fixed": 3, "status=open": 3, "kev=true": 5, "kev=false": 1, "min_cvss=9.8": 1, "min_cvss=7": 3,
		"cve_id=cve-2019-5591": 1, "vendor=fortinet&product=fortios": 6, "product=http_server": 0, "min_epss=0": 0} {
		r := e.Do("GET", "/api/findings?"+query, admin.Token, nil).Must(t, http.StatusOK)
		if got := r.Get("pagination", "total").Int(); got != n {
			t.Errorf("%s: %d findings, want %d", query, got, n)
		}
	}
	for _, query := range []string{"kev=yes", "min_cvss=11", "min_epss=2", "cve_id=nope", "status=closed", "colour=red", "limit=-1"} {
		e.Do("GET", "/api/findings?"+query, admin.Token, nil).Must(t, http.StatusBadRequest)
	}
	// Another organization sees none of it.
	other := e.Register("bob@other.test", "Other")
	if n := e.Do("GET", "/api/findings", other.Token, nil).Must(t, http.StatusOK).Get("pagination", "total").Int(); n != 0 {
		t.Fatalf("another organization sees %d findings", n)
	}
	e.Do("GET", "/api/findings/"+found["CVE-2019-5591"].Get("id").Str(), other.Token, nil).Must(t, http.StatusNotFound)

	// Its inventory written before the intelligence arrives finds the same.
	e2 := newEnv(t)
	carol := e2.Register("carol@msp.test", "MSP")
	e2.Do("POST", "/api/assets", carol.Token, map[string]any{"hostname": "fw-604",
		"software": []map[string]any{{"vendor": "fortinet", "product": "fortios", "version": "6.0.4"}}}).Must(t, http.StatusCreated)
	e2.importIntel(carol.Token, nvd).Must(t, http.StatusOK)
	if got := sortedKeys(findingsOf(t, e2, carol.Token, "")); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("matched by the import: %v, want %v", got, want)
	}
}

// A finding's lifecycle: a risk accepted until a date reopens by itself
// after it; not_affected takes a VEX justification; bad decisions change
// nothing.
func TestFindingDecisions(t *testing.T) {
	nvd := readShared(t, "nvd_cves_sample.json")
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.importIntel(admin.Token, nvd).Must(t, http.StatusOK)
	e.Do("POST", "/api/assets", admin.Token, map[string]any{"hostname": "fw-604",
		"software": []map[string]any{{"vendor": "fortinet", "product": "fortios", "version": "6.0.4"}}}).Must(t, http.StatusCreated)
	found := findingsOf(t, e, admin.Token, "")
	risk, vex := found["CVE-2021-44168"].Get("id").Str(), found["CVE-2023-28002"].Get("id").Str()
	until := e.Clock.Now().Add(30 * 24 * time.Hour).UTC().Format(time.RFC3339)

	for _, c := range []struct {
		name string
		body map[string]any
		code string
	}{
		{"fixed is matching's", map[string]any{"status": "fixed", "reason": "x"}, "validation_error"},
		{"no reason", map[string]any{"status": "accepted_risk", "expires_at": until}, "validation_error"},
		{"no expiry", map[string]any{"status": "accepted_risk", "reason": "x"}, "validation_error"},
		{"expiry past", map[string]any{"status": "accepted_risk", "reason": "x", "expires_at": "2020-01-01T00:00:00Z"}, "validation_error"},
		{"expiry too far", map[string]any{"status": "accepted_risk", "reason": "x",
			"expires_at": e.Clock.Now().Add(400 * 24 * time.Hour).Format(time.RFC3339)}, "validation_error"},
		{"bad justification", map[string]any{"status": "not_affected", "reason": "x", "justification": "trust me"}, "validation_error"},
		{"justification on a risk", map[string]any{"status": "accepted_risk", "reason": "x", "expires_at": until,
			"justification": "component_not_present"}, "validation_error"},
		{"unknown field", map[string]any{"status": "open", "why": 1}, "validation_error"},
	} {
		r := e.Do("PATCH", "/api/findings/"+risk, admin.Token, c.body)
		if r.Status != http.StatusBadRequest || r.Get("code").Str() != c.code {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
		}
	}
	if s := e.Do("GET", "/api/findings/"+risk, admin.Token, nil).Must(t, http.StatusOK).Get("data", "status").Str(); s != "open" {
		t.Fatalf("a refused decision changed the finding: %s", s)
	}

	accepted := e.Do("PATCH", "/api/findings/"+risk, admin.Token, map[string]any{"status": "accepted_risk",
		"reason": "Replacement firewall arrives next month", "expires_at": until}).Must(t, http.StatusOK).Get("data")
	if accepted.Get("status").Str() != "accepted_risk" || accepted.Get("expires_at").Str() != until || accepted.Get("history").Len() != 2 {
		t.Fatalf("accepted: %v", accepted)
	}
	notAffected := e.Do("PATCH", "/api/findings/"+vex, admin.Token, map[string]any{"status": "not_affected",
		"justification": "vulnerable_code_not_in_execute_path", "reason": "The SSL-VPN web portal is disabled"}).Must(t, http.StatusOK).Get("data")
	if notAffected.Get("justification").Str() != "vulnerable_code_not_in_execute_path" {
		t.Fatalf("not affected: %v", notAffected)
	}
	// The day after the expiry, the matcher reopens it (the session has
	// expired by then: a key reads on).
	key := e.APIKey(admin, "admin")
	e.Clock.Advance(31 * 24 * time.Hour)
	admin.Token = key
	if err := e.App.Intel.Match(context.Background()); err != nil {
		t.Fatal(err)
	}
	reopened := e.Do("GET", "/api/findings/"+risk, admin.Token, nil).Must(t, http.StatusOK).Get("data")
	last := reopened.Get("history").List()[reopened.Get("history").Len()-1]
	if reopened.Get("status").Str() != "open" || !reopened.Get("expires_at").IsNull() || last.Get("reason").Str() != "The risk acceptance expired" {
		t.Fatalf("after the expiry: %v", reopened)
	}
	if s := e.Do("GET", "/api/findings/"+vex, admin.Token, nil).Must(t, http.StatusOK).Get("data", "status").Str(); s != "not_affected" {
		t.Fatalf("not_affected became %s", s)
	}
	// A fixed finding is matching's; a read key decides nothing; another
	// organization's finding is not found.
	e.Do("PATCH", "/api/assets/"+found["CVE-2018-13379"].Get("asset_id").Str(), admin.Token, map[string]any{
		"software": []map[string]any{{"vendor": "fortinet", "product": "fortios", "version": "7.4.0"}}}).Must(t, http.StatusOK)
	r := e.Do("PATCH", "/api/findings/"+found["CVE-2018-13379"].Get("id").Str(), admin.Token, map[string]any{"status": "open"})
	if r.Status != http.StatusConflict {
		t.Fatalf("deciding on a fixed finding: %d %s", r.Status, r.Raw)
	}
	readKey := e.APIKey(admin, "read")
	e.Do("PATCH", "/api/findings/"+risk, readKey, map[string]any{"status": "open"}).Must(t, http.StatusForbidden)
	other := e.Register("bob@other.test", "Other")
	e.Do("PATCH", "/api/findings/"+risk, other.Token, map[string]any{"status": "open"}).Must(t, http.StatusNotFound)
}

// Fix first: the open findings grouped by the one upgrade that closes the
// most. FortiOS 6.0.4's six CVEs: 6.2.10 closes five (6.0.5 only three,
// 6.0.14 four: CVE-2019-5591 is fixed after 6.2.0 and CVE-2021-44168's
// 6.2 range ends before 6.2.10), leaving CVE-2023-28002, whose ranges end
// included, naming no fixed version. It ranks above a critical Jira on an
// internet-facing host, KEV-listed and ransomware-used CVEs coming first,
// and that Jira above the same one on an internal host.
func TestFindingPriorities(t *testing.T) {
	nvd, kev := readShared(t, "nvd_cves_sample.json"), readShared(t, "cisa_kev.json")
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.importIntel(admin.Token, nvd).Must(t, http.StatusOK)
	e.importIntel(admin.Token, kev).Must(t, http.StatusOK)
	e.Do("POST", "/api/assets", admin.Token, []map[string]any{
		{"hostname": "fw-604", "software": []map[string]any{{"vendor": "fortinet", "product": "fortios", "version": "6.0.4"}}},
		{"hostname": "intranet", "software": []map[string]any{{"vendor": "atlassian", "product": "jira_data_center", "version": "8.5.0"}}},
		{"hostname": "www", "internet_facing": true, "software": []map[string]any{{"vendor": "atlassian", "product": "jira_data_center", "version": "8.5.0"}}},
	}).Must(t, http.StatusCreated)
	r := e.Do("GET", "/api/findings/priorities", admin.Token, nil).Must(t, http.StatusOK)
	list := r.Get("data").List()
	if len(list) == 0 {
		t.Fatalf("no priorities: %s", r.Raw)
	}
	top := list[0]
	if top.Get("asset_hostname").Str() != "fw-604" || top.Get("to_version").Str() != "6.2.10" || top.Get("closes").Len() != 5 ||
		top.Get("remaining").Len() != 1 || top.Get("kev").Int() != 5 || top.Get("ransomware").Int() != 3 ||
		top.Get("summary").Str() != "Upgrade fortinet fortios on fw-604 to 6.2.10: closes 5, 5 of them KEV; 1 stays open" {
		t.Fatalf("first: %v", top)
	}
	var closed []string
	for _, f := range top.Get("closes").List() {
		closed = append(closed, f.Get("cve_id").Str())
	}
	slices.Sort(closed)
	if strings.Join(closed, " ") != "CVE-2018-13379 CVE-2018-13382 CVE-2018-13383 CVE-2019-5591 CVE-2021-44168" {
		t.Fatalf("6.2.10 closes %v", closed)
	}
	// Of equal findings, the internet-facing host's come first.
	if len(list) != 3 || list[1].Get("asset_hostname").Str() != "www" || list[2].Get("asset_hostname").Str() != "intranet" ||
		!list[1].Get("internet_facing").Bool() || list[1].Get("to_version").Str() != list[2].Get("to_version").Str() {
		t.Fatalf("the rest: %s", r.Raw)
	}
	for _, q := range []string{"limit=0x", "offset=-1", "colour=red"} {
		e.Do("GET", "/api/findings/priorities?"+q, admin.Token, nil).Must(t, http.StatusBadRequest)
	}
}

// On a provider, which clients and assets a CVE affects, within the
// clients each staff member reaches; the fleet view counts each client's
// KEV-listed CVEs from its findings.
func TestClientExposure(t *testing.T) {
	nvd, kev := readShared(t, "nvd_cves_sample.json"), readShared(t, "cisa_kev.json")
	f := newFleet(t)
	e := f.e
	e.importIntel(f.ann.Token, nvd).Must(t, http.StatusOK)
	e.importIntel(f.ann.Token, kev).Must(t, http.StatusOK)
	fortios := func(version string) map[string]any {
		return map[string]any{"hostname": "fw", "software": []map[string]any{{"vendor": "fortinet", "product": "fortios", "version": version}}}
	}
	inOrg(e, "POST", "/api/assets", f.providerKey, f.dental, fortios("6.0.4")).Must(t, http.StatusCreated)
	inOrg(e, "POST", "/api/assets", f.providerKey, f.law, fortios("6.0.5")).Must(t, http.StatusCreated)
	inOrg(e, "POST", "/api/assets", e.APIKey(f.quinn, "admin"), f.otherClient, fortios("6.0.4")).Must(t, http.StatusCreated)

	clients := func(cred, cve string) []string {
		r := e.Do("GET", "/api/clients/exposure?cve_id="+cve, cred, nil).Must(t, http.StatusOK).Get("data")
		var names []string
		for _, c := range r.Get("clients").List() {
			names = append(names, fmt.Sprintf("%s:%d", c.Get("name").Str(), c.Get("findings").Len()))
		}
		if r.Get("clients_affected").Int() != len(names) {
			t.Fatalf("exposure: %v", r)
		}
		return names
	}
	for _, c := range []struct {
		who, cve, want string
	}{
		{f.ann.Token, "CVE-2021-44168", "Dental One:1 Law Two:1"},
		{f.ann.Token, "cve-2018-13379", "Dental One:1"},
		{f.tom.Token, "CVE-2021-44168", "Dental One:1"},
		{f.ann.Token, "CVE-2018-13374", ""},
	} {
		if got := strings.Join(clients(c.who, c.cve), " "); got != c.want {
			t.Errorf("%s: %q, want %q", c.cve, got, c.want)
		}
	}
	e.Do("GET", "/api/clients/exposure", f.ann.Token, nil).WantFields(t, "cve_id")
	e.Do("GET", "/api/clients/exposure?cve_id=nope", f.ann.Token, nil).WantFields(t, "cve_id")
	e.Do("GET", "/api/clients/exposure?cve_id=CVE-2021-44168", f.cal.Token, nil).WantError(t, http.StatusForbidden, "forbidden", "")

	kevByClient := map[string]int{}
	for _, c := range e.Do("GET", "/api/clients", f.ann.Token, nil).Must(t, http.StatusOK).Get("data").List() {
		kevByClient[c.Get("name").Str()] = c.Get("kev_cves").Int()
	}
	if kevByClient["Dental One"] != 5 || kevByClient["Law Two"] != 2 {
		t.Fatalf("KEV CVEs by client: %v", kevByClient)
	}
}

// patch_status says what it rests on, on named CVEs of the real samples:
// Zimbra's CVE-2024-45519, whose references are the release notes of the
// fixed versions; a CVE whose only sign is a fixed version in its NVD
// ranges; one whose only sign is KEV's required action; one with none.
func TestPatchStatusBasis(t *testing.T) {
	nvd, kev := readShared(t, "nvd_cves_sample.json"), readShared(t, "cisa_kev.json")
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.importIntel(admin.Token, nvd).Must(t, http.StatusOK)
	e.importIntel(admin.Token, kev).Must(t, http.StatusOK)
	for _, c := range []struct{ cve, status, basis string }{
		{"CVE-2024-45519", "patch_available", "reference"},
		{"CVE-2014-6287", "patch_available", "fixed_version"},
		{"CVE-2010-5326", "patch_available", "kev_required_action"},
		{"CVE-1999-0396", "no_patch_known", ""},
	} {
		w := e.Do("POST", "/api/cve-watchlist", admin.Token, map[string]any{"cve_id": c.cve}).Must(t, http.StatusCreated).Get("data")
		basis := ""
		if !w.Get("patch_basis").IsNull() {
			basis = w.Get("patch_basis").Str()
		}
		if w.Get("patch_status").Str() != c.status || basis != c.basis {
			t.Errorf("%s: %s (%q), want %s (%q)", c.cve, w.Get("patch_status").Str(), basis, c.status, c.basis)
		}
	}
}

// The ATT&CK fallback from a CVE's weakness shows only how the CVE is
// reached: Zimbra's network-reachable code execution (CWE-284, which CAPEC
// maps to rootkits and bootkits) is Exploit Public-Facing Application.
func TestCWEFallbackFitsTheVector(t *testing.T) {
	nvd := readShared(t, "nvd_cves_sample.json")
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.importIntel(admin.Token, nvd).Must(t, http.StatusOK)
	w := e.Do("POST", "/api/cve-watchlist", admin.Token, map[string]any{"cve_id": "CVE-2024-45519"}).Must(t, http.StatusCreated).Get("data")
	techs := w.Get("attack_techniques").List()
	if len(techs) != 1 || techs[0].Get("id").Str() != "T1190" || techs[0].Get("source").Str() != "cvss-vector" {
		t.Fatalf("techniques: %v", w.Get("attack_techniques"))
	}
}

// NVD AND configurations are honoured: CVE-2010-2883 names Adobe Reader
// only running on Windows or macOS, so Reader 9.3 on Ubuntu is not
// affected, on Windows and macOS it is, and where the OS is not given it
// may be (the reason says so).
func TestRunningOnPlatforms(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.importIntel(admin.Token, readTestdata(t, "../intel/testdata/nvd_sample.json")).Must(t, http.StatusOK)
	reader := []map[string]any{{"vendor": "adobe", "product": "acrobat_reader", "version": "9.3"}}
	e.Do("POST", "/api/assets", admin.Token, []map[string]any{
		{"hostname": "win", "os": "Windows 10 Pro", "software": reader},
		{"hostname": "mac", "os": "macOS 14 Sonoma", "software": reader},
		{"hostname": "ubuntu", "os": "Ubuntu 22.04 LTS", "software": reader},
		{"hostname": "unknown", "software": reader},
		{"hostname": "listed", "software": append([]map[string]any{{"vendor": "microsoft", "product": "windows", "version": "10"}}, reader...)},
	}).Must(t, http.StatusCreated)
	got := map[string]string{}
	for _, f := range e.Do("GET", "/api/findings?cve_id=CVE-2010-2883", admin.Token, nil).Must(t, http.StatusOK).Get("data").List() {
		got[f.Get("asset_hostname").Str()] = f.Get("reason").Str()
	}
	want := map[string]string{
		"win":     "9.3 is within [9.0, 9.4); running on Windows 10 Pro",
		"mac":     "9.3 is within [9.0, 9.4); running on macOS 14 Sonoma",
		"unknown": "9.3 is within [9.0, 9.4); only running on macos or windows, which the asset's OS (not given) may be",
		"listed":  "9.3 is within [9.0, 9.4); running on microsoft windows",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("CVE-2010-2883 found on\n%v\nwant\n%v", got, want)
	}
}
