package handlers_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// audit starts an audit (of framework, or all four when "") and waits for
// it to complete, returning the audit's detail.
func (e *env) audit(cred, framework string) map[string]any {
	e.T.Helper()
	body := map[string]any{}
	if framework != "" {
		body["framework"] = framework
	}
	acc := e.Do("POST", "/api/compliance/audit", cred, body).Must(e.T, http.StatusAccepted).Data()
	return e.awaitAudit(cred, acc["report_id"].(string))
}

// awaitAudit polls an audit until it has ended.
func (e *env) awaitAudit(cred, id string) map[string]any {
	e.T.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		a := e.Do("GET", "/api/compliance/audits/"+id, cred, nil).Must(e.T, http.StatusOK).Data()
		switch a["status"] {
		case "completed":
			return a
		case "failed":
			e.T.Fatalf("audit %s failed: %v", id, a["error"])
		}
		if time.Now().After(deadline) {
			e.T.Fatalf("audit %s still %v", id, a["status"])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// gapOf finds the gap an audit found for a control ("" if none).
func gapOf(audit map[string]any, framework, control string) map[string]any {
	for _, g := range audit["gaps"].([]any) {
		m := g.(map[string]any)
		if m["framework"] == framework && m["control_id"] == control {
			return m
		}
	}
	return nil
}

// controlOf finds a control's result in an audit.
func controlOf(audit map[string]any, framework, control string) map[string]any {
	for _, fr := range audit["results"].([]any) {
		f := fr.(map[string]any)
		if f["framework"] != framework {
			continue
		}
		for _, c := range f["controls"].([]any) {
			if m := c.(map[string]any); m["control_id"] == control {
				return m
			}
		}
	}
	return nil
}

// failedChecks lists the check ids a gap failed on.
func failedChecks(gap map[string]any) []string {
	var ids []string
	for _, f := range gap["failed"].([]any) {
		ids = append(ids, f.(map[string]any)["check_id"].(string))
	}
	return ids
}

func TestComplianceOverviewBeforeAnyAudit(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	fws := e.Do("GET", "/api/compliance", admin.Token, nil).Must(t, http.StatusOK).Data()["frameworks"].([]any)
	want := map[string]float64{"soc2": 61, "hipaa": 70, "nist": 106, "cis": 153}
	if len(fws) != 4 {
		t.Fatalf("%d frameworks, want 4", len(fws))
	}
	for i, id := range []string{"soc2", "hipaa", "nist", "cis"} {
		f := fws[i].(map[string]any)
		if f["id"] != id || f["controls_total"] != want[id] || f["enabled"] != true || f["completion_percentage"] != 0.0 ||
			f["open_gaps"] != 0.0 || f["last_audit_at"] != nil || f["last_report_id"] != nil || f["name"] == "" {
			t.Errorf("framework %d before any audit: %v", i, f)
		}
	}
	stats := e.Do("GET", "/api/dashboard/stats", admin.Token, nil).Must(t, http.StatusOK).Data()
	if stats["compliance_gaps"] != 0.0 || stats["compliance_audited"] != false {
		t.Fatalf("stats before any audit: %v", stats)
	}
}

// TestComplianceRefusals: every bad request is refused with a clear error
// and changes nothing.
func TestComplianceRefusals(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	member := e.Member(admin, "bob@acme.test", "member")
	read, write := e.APIKey(admin, "read"), e.APIKey(admin, "write")
	other := e.Register("zoe@other.test", "Other")
	audit := e.audit(admin.Token, "soc2")
	id := audit["report_id"].(string)
	keyGap := gapOf(audit, "soc2", "CC6.1")
	if keyGap == nil {
		t.Fatal("no gap for soc2 CC6.1 (an API key without expiry)")
	}
	gapID := keyGap["gap_id"].(string)
	otherAudit := e.audit(other.Token, "")

	cases := []struct {
		name   string
		method string
		path   string
		cred   string
		body   any
		status int
		code   string
		fields []string
		msg    string
	}{
		{"unknown framework", "POST", "/api/compliance/audit", admin.Token, map[string]any{"framework": "iso27001"}, 400, "validation_error", []string{"framework"}, ""},
		{"framework of the wrong type", "POST", "/api/compliance/audit", admin.Token, map[string]any{"framework": 5}, 400, "validation_error", []string{"framework"}, ""},
		{"unknown audit field", "POST", "/api/compliance/audit", admin.Token, map[string]any{"frameworks": []string{"soc2"}}, 400, "validation_error", []string{"frameworks"}, ""},
		{"read key audits", "POST", "/api/compliance/audit", read, map[string]any{}, 403, "forbidden", nil, "Insufficient permissions. Required scope: write"},
		{"another organization's audit", "GET", "/api/compliance/audits/" + otherAudit["report_id"].(string), admin.Token, nil, 404, "not_found", nil, ""},
		{"another organization's report", "GET", "/api/compliance/audits/" + otherAudit["report_id"].(string) + "/download", admin.Token, nil, 404, "not_found", nil, ""},
		{"unknown audit", "GET", "/api/compliance/audits/rpt_nothing", admin.Token, nil, 404, "not_found", nil, ""},
		{"unknown report format", "GET", "/api/compliance/audits/" + id + "/download?format=pdf", admin.Token, nil, 400, "validation_error", []string{"format"}, ""},
		{"unknown template", "GET", "/api/compliance/templates/nope/download", admin.Token, nil, 404, "not_found", nil, ""},
		{"unknown template format", "GET", "/api/compliance/templates/password/download?format=docx", admin.Token, nil, 400, "validation_error", []string{"format"}, ""},
		{"adopt unknown template", "POST", "/api/compliance/templates/nope/adopt", admin.Token, nil, 404, "not_found", nil, ""},
		{"read key adopts", "POST", "/api/compliance/templates/password/adopt", read, nil, 403, "forbidden", nil, "Insufficient permissions. Required scope: write"},
		{"attest unknown framework", "PATCH", "/api/compliance/controls/iso27001/A.5.1", admin.Token, map[string]any{"status": "pass"}, 404, "not_found", nil, ""},
		{"attest unknown control", "PATCH", "/api/compliance/controls/soc2/CC99.9", admin.Token, map[string]any{"status": "pass"}, 404, "not_found", nil, ""},
		{"attest an automated control", "PATCH", "/api/compliance/controls/soc2/CC6.1", admin.Token, map[string]any{"status": "pass"}, 409, "conflict", nil, ""},
		{"attest without status", "PATCH", "/api/compliance/controls/soc2/CC1.2", admin.Token, map[string]any{"note": "x"}, 400, "validation_error", []string{"status"}, ""},
		{"attest bad values", "PATCH", "/api/compliance/controls/soc2/CC1.2", admin.Token,
			map[string]any{"status": "passed", "evidence_url": "javascript:alert(1)", "expires_at": "2020-01-01T00:00:00Z"}, 400, "validation_error",
			[]string{"status", "evidence_url", "expires_at"}, ""},
		{"attest with an unreadable expiry", "PATCH", "/api/compliance/controls/soc2/CC1.2", admin.Token,
			map[string]any{"status": "pass", "expires_at": "next week"}, 400, "validation_error", []string{"expires_at"}, ""},
		{"attest with a control character in the note", "PATCH", "/api/compliance/controls/soc2/CC1.2", admin.Token,
			map[string]any{"status": "pass", "note": "ok\x00"}, 400, "validation_error", []string{"note"}, ""},
		{"write key attests", "PATCH", "/api/compliance/controls/soc2/CC1.2", write, map[string]any{"status": "pass"}, 403, "forbidden", nil, "Insufficient permissions. Required scope: admin"},
		{"member attests", "PATCH", "/api/compliance/controls/soc2/CC1.2", member.Token, map[string]any{"status": "pass"}, 403, "forbidden", nil, "Insufficient permissions. Required role: admin"},
		{"remediate without fields", "POST", "/api/compliance/remediate", admin.Token, map[string]any{}, 400, "validation_error", []string{"gap_id", "auto_apply"}, ""},
		{"remediate with auto_apply null", "POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": gapID, "auto_apply": nil}, 400, "validation_error", []string{"auto_apply"}, ""},
		{"remediate with auto_apply a string", "POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": gapID, "auto_apply": "yes"}, 400, "validation_error", []string{"auto_apply"}, ""},
		{"remediate with gap_id a number", "POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": 7, "auto_apply": true}, 400, "validation_error", []string{"gap_id"}, ""},
		{"remediate an unknown gap", "POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": "gap_nothing", "auto_apply": true}, 404, "not_found", nil, ""},
		{"remediate another organization's gap", "POST", "/api/compliance/remediate", other.Token, map[string]any{"gap_id": gapID, "auto_apply": true}, 404, "not_found", nil, ""},
		{"read key remediates", "POST", "/api/compliance/remediate", read, map[string]any{"gap_id": gapID, "auto_apply": false}, 403, "forbidden", nil, "Insufficient permissions. Required scope: write"},
		{"write key changes API keys", "POST", "/api/compliance/remediate", write, map[string]any{"gap_id": gapID, "auto_apply": true}, 403, "forbidden", nil, "Insufficient permissions. Required scope: admin"},
		{"member changes API keys", "POST", "/api/compliance/remediate", member.Token, map[string]any{"gap_id": gapID, "auto_apply": true}, 403, "forbidden", nil, "Insufficient permissions. Required role: admin"},
		{"no credential", "GET", "/api/compliance", "", nil, 401, "unauthorized", nil, "No authorization token provided"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do(c.method, c.path, c.cred, c.body)
			if c.fields != nil {
				r.WantFields(t, c.fields...)
				return
			}
			r.WantError(t, c.status, c.code, c.msg)
		})
	}
	// Another organization's attestation of the same control is its own.
	e.Do("PATCH", "/api/compliance/controls/soc2/CC1.2", other.Token, map[string]any{"status": "pass"}).Must(t, http.StatusOK)
	// Nothing the refusals touched changed: no attestation, no adoption, no
	// remediation, and the key still never expires.
	again := e.audit(admin.Token, "soc2")
	if g := gapOf(again, "soc2", "CC6.1"); g == nil || g["gap_id"] != gapID {
		t.Fatalf("the refused remediations changed the gap: %v", g)
	}
	if c := controlOf(again, "soc2", "CC1.2"); c["result"] != "manual" || c["attestation"] != nil {
		t.Fatalf("a refused attestation was recorded: %v", c)
	}
	for _, tpl := range e.Do("GET", "/api/compliance/templates", admin.Token, nil).Must(t, http.StatusOK).List() {
		if tpl.(map[string]any)["adopted"] != false {
			t.Fatalf("a refused adoption was recorded: %v", tpl)
		}
	}
	if n := len(e.Do("GET", "/api/compliance/audits", admin.Token, nil).Must(t, http.StatusOK).List()); n != 2 {
		t.Fatalf("%d audits, want the 2 accepted", n)
	}
}

// TestComplianceDownloadBeforeCompletion: a queued audit has no report yet.
func TestComplianceDownloadBeforeCompletion(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.StopRunner()
	acc := e.Do("POST", "/api/compliance/audit", admin.Token, nil).Must(t, http.StatusAccepted).Data()
	if acc["status"] != "queued" || len(acc["frameworks"].([]any)) != 4 || !strings.HasPrefix(acc["report_id"].(string), "rpt_") ||
		!strings.HasPrefix(acc["agent_run_id"].(string), "run_") || acc["estimated_completion_seconds"].(float64) < 1 {
		t.Fatalf("accepted audit: %v", acc)
	}
	id := acc["report_id"].(string)
	for _, format := range []string{"", "?format=csv", "?format=html"} {
		e.Do("GET", "/api/compliance/audits/"+id+"/download"+format, admin.Token, nil).WantError(t, http.StatusConflict, "conflict",
			"Audit "+id+" is queued; its report can be downloaded once it has completed")
	}
	a := e.Do("GET", "/api/compliance/audits/"+id, admin.Token, nil).Must(t, http.StatusOK).Data()
	if a["status"] != "queued" || a["results"] != nil || a["summary"] != nil || len(a["gaps"].([]any)) != 0 {
		t.Fatalf("queued audit: %v", a)
	}
}

func TestComplianceAuditAllFrameworks(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	seedAgentData(t, e, admin)
	a := e.audit(admin.Token, "")
	if strings.Join(toStrings(a["frameworks"]), ",") != "soc2,hipaa,nist,cis" || a["organization"] != "Acme" || a["completed_at"] == nil ||
		a["scope"] == "" || a["method"] == "" {
		t.Fatalf("audit: %v", a)
	}
	results := a["results"].([]any)
	totals := map[string]float64{"soc2": 61, "hipaa": 70, "nist": 106, "cis": 153}
	openGaps := 0
	for _, fr := range results {
		f := fr.(map[string]any)
		sum := a["summary"].(map[string]any)[f["framework"].(string)].(map[string]any)
		controls := f["controls"].([]any)
		if float64(len(controls)) != totals[f["framework"].(string)] || sum["controls_total"] != totals[f["framework"].(string)] {
			t.Fatalf("%s: %d controls, summary %v", f["framework"], len(controls), sum)
		}
		counted := map[string]float64{}
		for _, c := range controls {
			m := c.(map[string]any)
			counted[m["result"].(string)]++
			// Every automated result carries its evidence; a failing control
			// names its gap.
			if m["basis"] == "checks" && len(m["findings"].([]any)) == 0 {
				t.Fatalf("automated control without findings: %v", m)
			}
			if (m["result"] == "fail") != (m["gap_id"] != nil) {
				t.Fatalf("control %v: result %v, gap %v", m["control_id"], m["result"], m["gap_id"])
			}
		}
		if counted["pass"] != sum["passed"] || counted["fail"] != sum["failed"] || counted["manual"] != sum["manual"] ||
			counted["not_applicable"] != sum["not_applicable"] {
			t.Fatalf("%s: counted %v, summary %v", f["framework"], counted, sum)
		}
		if want := int(100 * sum["passed"].(float64) / (sum["passed"].(float64) + sum["failed"].(float64))); sum["completion_percentage"] != float64(want) {
			t.Fatalf("%s: completion %v, want %d", f["framework"], sum["completion_percentage"], want)
		}
		openGaps += int(sum["failed"].(float64))
	}
	gaps := a["gaps"].([]any)
	if len(gaps) != openGaps {
		t.Fatalf("%d gaps, %d failing controls", len(gaps), openGaps)
	}
	// Gaps come most severe first, each with evidence and steps.
	last := 5
	for _, g := range gaps {
		m := g.(map[string]any)
		rank := slices.Index([]string{"info", "low", "medium", "high", "critical"}, m["severity"].(string))
		if rank > last || !strings.HasPrefix(m["gap_id"].(string), "gap_") || len(m["remediation_steps"].([]any)) == 0 ||
			len(m["failed"].([]any)) == 0 || m["status"] != "open" {
			t.Fatalf("gap: %v", m)
		}
		last = rank
	}
	// The unconfirmed admin is a high HIPAA gap that only a person can fix.
	verified := gapOf(a, "hipaa", "164.312(d)")
	if verified == nil || verified["severity"] != "high" || verified["auto_remediable"] != false ||
		!slices.Contains(failedChecks(verified), "admins_verified") {
		t.Fatalf("hipaa 164.312(d): %v", verified)
	}
	ev := verified["failed"].([]any)[0].(map[string]any)
	if ev["result"] != "fail" || ev["evidence"] == "" || ev["observed"].(map[string]any)["unverified"] != 1.0 ||
		toStrings(ev["observed"].(map[string]any)["unverified_ids"])[0] != admin.ID {
		t.Fatalf("evidence: %v", ev)
	}
	// The CVE check has nothing to judge while no watched CVE affects an asset: not applicable, with the reason.
	if c := controlOf(a, "nist", "ID.RA-01"); c["result"] != "not_applicable" || !strings.Contains(c["findings"].([]any)[0].(map[string]any)["evidence"].(string), "No watched CVE affects an asset") {
		t.Fatalf("nist ID.RA-01: %v", c)
	}

	// The rest of the product sees it.
	overview := e.Do("GET", "/api/compliance", admin.Token, nil).Must(t, http.StatusOK).Data()["frameworks"].([]any)
	gapsShown := 0
	for _, f := range overview {
		m := f.(map[string]any)
		sum := a["summary"].(map[string]any)[m["id"].(string)].(map[string]any)
		if m["last_report_id"] != a["report_id"] || m["last_audit_at"] != a["completed_at"] || m["completion_percentage"] != sum["completion_percentage"] ||
			m["results"].(map[string]any)["failed"] != sum["failed"] || m["open_gaps"] != sum["failed"] {
			t.Fatalf("overview %v against summary %v", m, sum)
		}
		gapsShown += int(m["open_gaps"].(float64))
	}
	stats := e.Do("GET", "/api/dashboard/stats", admin.Token, nil).Must(t, http.StatusOK).Data()
	if stats["compliance_gaps"] != float64(gapsShown) || stats["compliance_audited"] != true {
		t.Fatalf("stats: %v, want %d gaps", stats, gapsShown)
	}
	score := e.Do("GET", "/api/dashboard/security-score", admin.Token, nil).Must(t, http.StatusOK).Data()
	comp := score["sub_scores"].(map[string]any)["compliance"].(map[string]any)
	if comp["assessed"] != true || len(comp["inputs"].([]any)) != 4 || comp["score"] == nil {
		t.Fatalf("compliance sub-score: %v", comp)
	}
	// The audit is a run of the compliance agent.
	runs := e.Do("GET", "/api/agents/compliance/executions", admin.Token, nil).Must(t, http.StatusOK).List()
	if len(runs) != 1 || runs[0].(map[string]any)["agent_run_id"] != a["agent_run_id"] {
		t.Fatalf("compliance executions: %v", runs)
	}
	list := e.Do("GET", "/api/compliance/audits", admin.Token, nil).Must(t, http.StatusOK)
	if items := list.List(); len(items) != 1 || items[0].(map[string]any)["report_id"] != a["report_id"] ||
		items[0].(map[string]any)["summary"] == nil || items[0].(map[string]any)["status"] != "completed" {
		t.Fatalf("audit list: %s", list.Raw)
	}

	// An audit that finds the same controls failing keeps their gap ids.
	again := e.audit(admin.Token, "")
	for _, g := range gaps {
		m := g.(map[string]any)
		if same := gapOf(again, m["framework"].(string), m["control_id"].(string)); same == nil || same["gap_id"] != m["gap_id"] {
			t.Fatalf("gap %v was not kept: %v", m["gap_id"], same)
		}
	}
	if stats := e.Do("GET", "/api/dashboard/stats", admin.Token, nil).Must(t, http.StatusOK).Data(); stats["compliance_gaps"] != float64(gapsShown) {
		t.Fatalf("a second audit duplicated gaps: %v", stats)
	}
}

func TestComplianceAuditOneFramework(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	a := e.audit(e.APIKey(admin, "write"), "cis")
	if results := a["results"].([]any); len(results) != 1 || results[0].(map[string]any)["framework"] != "cis" || len(a["summary"].(map[string]any)) != 1 {
		t.Fatalf("one framework: %v", a["summary"])
	}
	for _, g := range a["gaps"].([]any) {
		if g.(map[string]any)["framework"] != "cis" {
			t.Fatalf("gap outside the framework: %v", g)
		}
	}
	for _, f := range e.Do("GET", "/api/compliance", admin.Token, nil).Must(t, http.StatusOK).Data()["frameworks"].([]any) {
		m := f.(map[string]any)
		if (m["last_report_id"] != nil) != (m["id"] == "cis") {
			t.Fatalf("%s after a CIS audit: %v", m["id"], m)
		}
	}
}

func TestComplianceReports(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", `Acme <b>&</b> "Sons"`)
	// An attestation whose note a spreadsheet would run as a formula.
	e.Do("PATCH", "/api/compliance/controls/soc2/CC1.2", admin.Token, map[string]any{"status": "pass",
		"note": "=HYPERLINK(\"http://evil.test\")", "evidence_url": "https://wiki.acme.test/board-minutes"}).Must(t, http.StatusOK)
	a := e.audit(admin.Token, "")
	id := a["report_id"].(string)
	controls := 0
	for _, fr := range a["results"].([]any) {
		controls += len(fr.(map[string]any)["controls"].([]any))
	}

	t.Run("json", func(t *testing.T) {
		for _, q := range []string{"", "?format=json"} {
			r := e.Do("GET", "/api/compliance/audits/"+id+"/download"+q, admin.Token, nil).Must(t, http.StatusOK)
			if r.Header.Get("Content-Type") != "application/json; charset=utf-8" ||
				r.Header.Get("Content-Disposition") != `attachment; filename=garrison-audit-`+id+`.json` ||
				r.Body["report_id"] != id || r.Body["organization"] != `Acme <b>&</b> "Sons"` || len(r.Body["results"].([]any)) != 4 {
				t.Fatalf("json report: %v %s", r.Header, r.Raw[:200])
			}
		}
	})
	t.Run("csv", func(t *testing.T) {
		r := e.Do("GET", "/api/compliance/audits/"+id+"/download?format=csv", admin.Token, nil).Must(t, http.StatusOK)
		if r.Header.Get("Content-Type") != "text/csv; charset=utf-8" || !strings.Contains(r.Header.Get("Content-Disposition"), id+".csv") {
			t.Fatalf("csv headers: %v", r.Header)
		}
		rows, err := csv.NewReader(strings.NewReader(string(r.Raw))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(rows[0], ",") != "framework,control,title,result,evidence,gap_id,severity" || len(rows) != controls+1 {
			t.Fatalf("csv: header %v, %d rows for %d controls", rows[0], len(rows), controls)
		}
		found := false
		for _, row := range rows[1:] {
			if row[0] == "hipaa" && row[1] == "164.312(d)" {
				found = row[3] == "fail" && strings.HasPrefix(row[5], "gap_") && row[6] == "high" && strings.Contains(row[4], "confirmed")
			}
			if row[0] == "soc2" && row[1] == "CC1.2" && (row[3] != "pass" || !strings.Contains(row[4], "Attested pass by "+admin.ID)) {
				t.Fatalf("attested row: %v", row)
			}
			for _, cell := range row {
				if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
					t.Fatalf("a cell a spreadsheet would run: %q", cell)
				}
			}
		}
		if !found {
			t.Fatal("no failing hipaa 164.312(d) row with its gap")
		}
	})
	t.Run("html", func(t *testing.T) {
		r := e.Do("GET", "/api/compliance/audits/"+id+"/download?format=html", admin.Token, nil).Must(t, http.StatusOK)
		page := string(r.Raw)
		if r.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(r.Header.Get("Content-Disposition"), id+".html") ||
			!strings.Contains(r.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Fatalf("html headers: %v", r.Header)
		}
		for _, want := range []string{"<!DOCTYPE html>", "Acme &lt;b&gt;&amp;&lt;/b&gt; &#34;Sons&#34;", id, "Scope and method", "Summary",
			"164.312(d)", "HIPAA Security Rule", "CIS Critical Security Controls", gapOf(a, "hipaa", "164.312(d)")["gap_id"].(string)} {
			if !strings.Contains(page, want) {
				t.Fatalf("html report lacks %q", want)
			}
		}
		for _, banned := range []string{"<script", "<b>&", "src=", "href=\"http", "@import", "url("} {
			if strings.Contains(page, banned) {
				t.Fatalf("html report contains %q", banned)
			}
		}
	})
}

func TestComplianceRemediation(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	write := e.APIKey(admin, "write")
	a := e.audit(admin.Token, "")
	keyGap := gapOf(a, "soc2", "CC6.1")
	if keyGap == nil || keyGap["auto_remediable"] != true || !slices.Contains(failedChecks(keyGap), "key_expiry") {
		t.Fatalf("soc2 CC6.1: %v", keyGap)
	}
	keys := func() []any { return e.Do("GET", "/api/api-keys", admin.Token, nil).Must(t, http.StatusOK).List() }

	// Planned: the steps, nothing changed.
	plan := e.Do("POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": keyGap["gap_id"], "auto_apply": false}).Must(t, http.StatusOK).Data()
	if plan["status"] != "planned" || len(plan["changes"].([]any)) != 0 || len(plan["remediation_steps"].([]any)) == 0 ||
		plan["control_passes"] != nil || plan["framework"] != "soc2" || plan["control_id"] != "CC6.1" || !strings.HasPrefix(plan["remediation_id"].(string), "rem_") {
		t.Fatalf("planned: %v", plan)
	}
	if keys()[0].(map[string]any)["expires_at"] != nil {
		t.Fatal("a planned remediation changed a key")
	}

	// Applied: a 90-day expiry on the key, and the policy the control needs
	// adopted; the control passes at once.
	applied := e.Do("POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": keyGap["gap_id"], "auto_apply": true}).Must(t, http.StatusOK).Data()
	changes := applied["changes"].([]any)
	var keyChange map[string]any
	for _, c := range changes {
		if m := c.(map[string]any); m["object"] == "api_key" {
			keyChange = m
		}
	}
	want := e.Clock.Now().Add(90 * 24 * time.Hour).UTC().Format(time.RFC3339)
	if applied["status"] != "applied" || applied["control_result"] != "pass" || applied["control_passes"] != true || keyChange == nil ||
		keyChange["field"] != "expires_at" || keyChange["before"] != nil || keyChange["after"] != want {
		t.Fatalf("applied: %v", applied)
	}
	if k := keys()[0].(map[string]any); k["expires_at"] != want {
		t.Fatalf("key after remediation: %v", k)
	}
	// The key still works: an expiry, not a revocation.
	e.Do("GET", "/api/org", write, nil).Must(t, http.StatusOK)

	// A gap only a person can fix: manual_required, nothing changed.
	manual := gapOf(a, "hipaa", "164.312(d)")
	m := e.Do("POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": manual["gap_id"], "auto_apply": true}).Must(t, http.StatusOK).Data()
	if m["status"] != "manual_required" || len(m["changes"].([]any)) != 0 || m["control_passes"] != nil || len(m["remediation_steps"].([]any)) == 0 {
		t.Fatalf("manual: %v", m)
	}

	// A policy gap needs no administrator: a write key adopts the template.
	var policyGap map[string]any
	for _, g := range a["gaps"].([]any) {
		gm := g.(map[string]any)
		only := true
		for _, c := range failedChecks(gm) {
			only = only && strings.HasPrefix(c, "policy_")
		}
		if only && gm["framework"] == "nist" {
			policyGap = gm
			break
		}
	}
	if policyGap == nil {
		t.Fatal("no NIST gap that only a policy closes")
	}
	p := e.Do("POST", "/api/compliance/remediate", write, map[string]any{"gap_id": policyGap["gap_id"], "auto_apply": true}).Must(t, http.StatusOK).Data()
	if p["status"] != "applied" || p["control_passes"] != true || len(p["changes"].([]any)) == 0 ||
		p["changes"].([]any)[0].(map[string]any)["object"] != "policy_template" {
		t.Fatalf("policy remediation: %v", p)
	}

	// The next audit closes the fixed gaps and keeps the others; the old
	// audit shows who closed them.
	next := e.audit(admin.Token, "")
	if gapOf(next, "soc2", "CC6.1") != nil || gapOf(next, "nist", policyGap["control_id"].(string)) != nil {
		t.Fatal("fixed controls still have gaps")
	}
	if g := gapOf(next, "hipaa", "164.312(d)"); g == nil || g["gap_id"] != manual["gap_id"] {
		t.Fatalf("the unfixed gap: %v", g)
	}
	old := e.Do("GET", "/api/compliance/audits/"+a["report_id"].(string), admin.Token, nil).Must(t, http.StatusOK).Data()
	if g := gapOf(old, "soc2", "CC6.1"); g["status"] != "closed" || g["closed_by_report_id"] != next["report_id"] || g["closed_at"] == nil {
		t.Fatalf("closed gap in the old audit: %v", g)
	}
	e.Do("POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": keyGap["gap_id"], "auto_apply": true}).WantError(t,
		http.StatusConflict, "conflict", "Gap "+keyGap["gap_id"].(string)+" was closed by audit "+next["report_id"].(string)+"; run a new audit to see the control's state")

	// Keys unused for 90 days are revoked; the key stops working. This one
	// expires in a year, so only its idleness fails.
	idle := e.Do("POST", "/api/api-keys", admin.Token, map[string]string{"name": "idle", "scope": "read",
		"expires_at": e.Clock.Now().Add(365 * 24 * time.Hour).UTC().Format(time.RFC3339)}).Must(t, http.StatusCreated).Str("data", "key")
	e.Clock.Advance(91 * 24 * time.Hour)
	admin.Token = e.Login("ann@acme.test", apitest.Password).Str("token") // the session expired meanwhile
	late := e.audit(admin.Token, "cis")
	dormant := gapOf(late, "cis", "5.3")
	if dormant == nil || !slices.Contains(failedChecks(dormant), "dormant_keys") {
		t.Fatalf("cis 5.3 after 91 idle days: %v", dormant)
	}
	r := e.Do("POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": dormant["gap_id"], "auto_apply": true}).Must(t, http.StatusOK).Data()
	if r["status"] != "applied" || r["control_passes"] != true || r["changes"].([]any)[0].(map[string]any)["after"] != "revoked" {
		t.Fatalf("dormant key remediation: %v", r)
	}
	e.Do("GET", "/api/org", idle, nil).WantError(t, http.StatusUnauthorized, "unauthorized", "")
}

func TestComplianceAttestation(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	adminKey := e.APIKey(admin, "admin")
	expires := e.Clock.Now().Add(30 * 24 * time.Hour).UTC().Format(time.RFC3339)
	at := e.Do("PATCH", "/api/compliance/controls/soc2/CC1.2", admin.Token, map[string]any{"status": "pass",
		"note": "Board minutes of 3 March approve the security program.", "evidence_url": "https://wiki.acme.test/minutes", "expires_at": expires}).Must(t, http.StatusOK).Data()
	if at["framework"] != "soc2" || at["control_id"] != "CC1.2" || at["status"] != "pass" || at["attested_by"] != admin.ID ||
		at["expires_at"] != expires || at["evidence_url"] != "https://wiki.acme.test/minutes" || at["title"] == "" {
		t.Fatalf("attestation: %v", at)
	}
	// An admin key attests too; a failing attestation opens a gap.
	e.Do("PATCH", "/api/compliance/controls/hipaa/164.310(a)(2)(ii)", adminKey, map[string]any{"status": "fail", "note": "No facility plan yet."}).Must(t, http.StatusOK)

	a := e.audit(admin.Token, "")
	c := controlOf(a, "soc2", "CC1.2")
	att := c["attestation"].(map[string]any)
	if c["result"] != "pass" || c["basis"] != "attestation" || att["expired"] != false || att["note"] == "" {
		t.Fatalf("attested control: %v", c)
	}
	g := gapOf(a, "hipaa", "164.310(a)(2)(ii)")
	if g == nil || g["severity"] != "medium" || g["auto_remediable"] != false || !strings.Contains(g["remediation_steps"].([]any)[2].(string), "PATCH /api/compliance/controls/hipaa/164.310(a)(2)(ii)") {
		t.Fatalf("attested failure: %v", g)
	}

	// Past its expiry the attestation counts for nothing: manual again.
	e.Clock.Advance(31 * 24 * time.Hour)
	admin.Token = e.Login("ann@acme.test", apitest.Password).Str("token")
	later := e.audit(admin.Token, "soc2")
	c = controlOf(later, "soc2", "CC1.2")
	if c["result"] != "manual" || c["basis"] != "none" || c["attestation"].(map[string]any)["expired"] != true {
		t.Fatalf("expired attestation: %v", c)
	}
	// Attesting again replaces it.
	e.Do("PATCH", "/api/compliance/controls/soc2/CC1.2", admin.Token, map[string]any{"status": "not_applicable", "note": "No board."}).Must(t, http.StatusOK)
	if c := controlOf(e.audit(admin.Token, "soc2"), "soc2", "CC1.2"); c["result"] != "not_applicable" || c["attestation"].(map[string]any)["expires_at"] != nil {
		t.Fatalf("re-attested control: %v", c)
	}
}

func TestCompliancePolicyTemplates(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", `Smith & <Jones> Dental`)
	write := e.APIKey(admin, "write")
	list := e.Do("GET", "/api/compliance/templates", admin.Token, nil).Must(t, http.StatusOK)
	items := list.List()
	ids := []string{"acceptable-use", "incident-response", "data-classification", "access-control", "password", "backup-recovery",
		"vendor-management", "remote-work"}
	if len(items) != len(ids) || list.Body["pagination"].(map[string]any)["total"] != float64(len(ids)) {
		t.Fatalf("templates: %s", list.Raw)
	}
	for i, it := range items {
		m := it.(map[string]any)
		controls := m["controls"].(map[string]any)
		if m["id"] != ids[i] || m["download_url"] != "/api/compliance/templates/"+ids[i]+"/download" || m["adopted"] != false ||
			m["name"] == "" || m["description"] == "" || len(controls) != 4 || len(controls["hipaa"].([]any)) == 0 {
			t.Fatalf("template %d: %v", i, m)
		}
	}
	if page := e.Do("GET", "/api/compliance/templates?limit=3&offset=6", admin.Token, nil).Must(t, http.StatusOK); len(page.List()) != 2 {
		t.Fatalf("last page: %s", page.Raw)
	}

	md := e.Do("GET", "/api/compliance/templates/password/download?format=md", admin.Token, nil).Must(t, http.StatusOK)
	text := string(md.Raw)
	if md.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || !strings.HasPrefix(text, "# Password") ||
		!strings.Contains(text, "Smith & <Jones> Dental") || strings.Contains(text, "{{") {
		t.Fatalf("markdown: %v %.200s", md.Header, text)
	}
	html := e.Do("GET", "/api/compliance/templates/incident-response/download?format=html", admin.Token, nil).Must(t, http.StatusOK)
	page := string(html.Raw)
	if html.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(page, "Smith &amp; &lt;Jones&gt; Dental") ||
		strings.Contains(page, "<Jones>") || strings.Contains(page, "{{") || !strings.Contains(page, "<table>") || !strings.Contains(page, "<h1>") {
		t.Fatalf("html policy: %.300s", page)
	}
	js := e.Do("GET", "/api/compliance/templates/backup-recovery/download", admin.Token, nil).Must(t, http.StatusOK)
	if js.Body["id"] != "backup-recovery" || js.Body["organization"] != "Smith & <Jones> Dental" || js.Body["adopted"] != false ||
		js.Body["effective_date"] != nil || !strings.Contains(js.Body["content"].(string), "Smith & <Jones> Dental") {
		t.Fatalf("json policy: %.300s", js.Raw)
	}

	before := e.audit(admin.Token, "nist")
	adopted := e.Do("POST", "/api/compliance/templates/incident-response/adopt", write, nil).Must(t, http.StatusCreated).Data()
	key := e.Do("GET", "/api/api-keys", admin.Token, nil).Must(t, http.StatusOK).List()[0].(map[string]any)["id"]
	if adopted["adopted"] != true || adopted["adopted_by"] != key || adopted["adopted_at"] == nil {
		t.Fatalf("adopted: %v", adopted)
	}
	again := e.Do("POST", "/api/compliance/templates/incident-response/adopt", admin.Token, nil).Must(t, http.StatusOK).Data()
	if again["adopted_by"] != key || again["adopted_at"] != adopted["adopted_at"] {
		t.Fatalf("adopting again replaced the record: %v", again)
	}
	js = e.Do("GET", "/api/compliance/templates/incident-response/download", admin.Token, nil).Must(t, http.StatusOK)
	if js.Body["adopted"] != true || js.Body["effective_date"] == nil || !strings.Contains(js.Body["content"].(string), js.Body["effective_date"].(string)) {
		t.Fatalf("adopted policy: %.300s", js.Raw)
	}
	// The policy check now passes wherever the template is the only evidence.
	after := e.audit(admin.Token, "nist")
	check := func(audit map[string]any) string {
		for _, fr := range audit["results"].([]any) {
			for _, c := range fr.(map[string]any)["controls"].([]any) {
				for _, f := range c.(map[string]any)["findings"].([]any) {
					if fm := f.(map[string]any); fm["check_id"] == "policy_incident_response" {
						return fm["result"].(string)
					}
				}
			}
		}
		return ""
	}
	if check(before) != "fail" || check(after) != "pass" {
		t.Fatalf("policy check before %q, after %q", check(before), check(after))
	}
}

// TestComplianceAuditsShareTheRunBudget: an audit is an agent run, charged
// to the same 20-a-minute budget; a refused audit leaves nothing behind.
func TestComplianceAuditsShareTheRunBudget(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.UseLimits(strings.Replace(apitest.GenerousLimits, "agent-runs=100000/1m", "agent-runs=20/1m", 1), nil)
	for range 10 {
		e.Do("POST", "/api/agents/onboarding/execute", admin.Token, nil).Must(t, http.StatusAccepted)
	}
	for i := range 10 {
		r := e.Do("POST", "/api/compliance/audit", admin.Token, map[string]any{"framework": "cis"}).Must(t, http.StatusAccepted)
		if got := r.Header.Get("X-RateLimit-Remaining"); got != fmt.Sprint(9-i) {
			t.Fatalf("audit %d: remaining %q", i+1, got)
		}
	}
	// A bad framework is refused as invalid, not as over the budget.
	e.Do("POST", "/api/compliance/audit", admin.Token, map[string]any{"framework": "iso"}).WantFields(t, "framework")
	r := e.Do("POST", "/api/compliance/audit", admin.Token, nil)
	r.WantError(t, http.StatusTooManyRequests, "rate_limited", "")
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("no Retry-After: %v", r.Header)
	}
	e.Do("POST", "/api/agents/compliance/execute", admin.Token, nil).WantError(t, http.StatusTooManyRequests, "rate_limited", "")
	list := e.Do("GET", "/api/compliance/audits", admin.Token, nil).Must(t, http.StatusOK)
	if total := list.Body["pagination"].(map[string]any)["total"]; total != 10.0 {
		t.Fatalf("%v audits stored, want the 10 accepted", total)
	}
}
