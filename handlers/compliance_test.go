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
func (e *env) audit(cred, framework string) apitest.JSON {
	e.T.Helper()
	body := map[string]any{}
	if framework != "" {
		body["framework"] = framework
	}
	acc := e.Do("POST", "/api/compliance/audit", cred, body).Must(e.T, http.StatusAccepted).Get("data")
	return e.awaitAudit(cred, acc.Get("report_id").MustStr(e.T))
}

// awaitAudit polls an audit until it has ended.
func (e *env) awaitAudit(cred, id string) apitest.JSON {
	e.T.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		a := e.Do("GET", "/api/compliance/audits/"+id, cred, nil).Must(e.T, http.StatusOK).Get("data")
		switch a.Get("status").Str() {
		case "completed":
			return a
		case "failed":
			e.T.Fatalf("audit %s failed: %v", id, a.Get("error"))
		}
		if time.Now().After(deadline) {
			e.T.Fatalf("audit %s still %v", id, a.Get("status"))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// gapOf finds the gap an audit found for a control (absent if none).
func gapOf(t testing.TB, audit apitest.JSON, framework, control string) apitest.JSON {
	t.Helper()
	for _, g := range audit.Get("gaps").MustList(t) {
		if m := g.MustObject(t); m.Get("framework").Is(framework) && m.Get("control_id").Is(control) {
			return m
		}
	}
	return apitest.JSON{}
}

// controlOf finds a control's result in an audit (absent if none).
func controlOf(t testing.TB, audit apitest.JSON, framework, control string) apitest.JSON {
	t.Helper()
	for _, f := range audit.Get("results").MustList(t) {
		if !f.MustObject(t).Get("framework").Is(framework) {
			continue
		}
		for _, c := range f.Get("controls").MustList(t) {
			if m := c.MustObject(t); m.Get("control_id").Is(control) {
				return m
			}
		}
	}
	return apitest.JSON{}
}

// failedChecks lists the check ids a gap failed on.
func failedChecks(t testing.TB, gap apitest.JSON) []string {
	t.Helper()
	var ids []string
	for _, f := range gap.Get("failed").MustList(t) {
		ids = append(ids, f.Get("check_id").MustStr(t))
	}
	return ids
}

func TestComplianceOverviewBeforeAnyAudit(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	fws := e.Do("GET", "/api/compliance", admin.Token, nil).Must(t, http.StatusOK).Get("data", "frameworks").List()
	want := map[string]float64{"soc2": 61, "hipaa": 70, "nist": 106, "cis": 153}
	if len(fws) != 4 {
		t.Fatalf("%d frameworks, want 4", len(fws))
	}
	for i, id := range []string{"soc2", "hipaa", "nist", "cis"} {
		f := fws[i]
		if f.Get("id").Str() != id || !f.Get("controls_total").Is(want[id]) || !f.Get("enabled").Bool() || !f.Get("completion_percentage").Is(0) ||
			!f.Get("open_gaps").Is(0) || !f.Get("last_audit_at").IsNull() || !f.Get("last_report_id").IsNull() || f.Get("name").Is("") {
			t.Errorf("framework %d before any audit: %v", i, f)
		}
		// Nothing is assessed yet: every control counts as not assessed.
		if !f.Get("assessed").Is(0) || !f.Get("passing").Is(0) || !f.Get("failing").Is(0) || !f.Get("not_assessed").Is(want[id]) ||
			!f.Get("applicable").Is(want[id]) {
			t.Errorf("framework %d's counts before any audit: %v", i, f)
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
	id := audit.Get("report_id").MustStr(t)
	keyGap := gapOf(t, audit, "soc2", "CC6.1")
	if keyGap.IsNull() {
		t.Fatal("no gap for soc2 CC6.1 (an API key without expiry)")
	}
	gapID := keyGap.Get("gap_id").MustStr(t)
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
		{"another organization's audit", "GET", "/api/compliance/audits/" + otherAudit.Get("report_id").MustStr(t), admin.Token, nil, 404, "not_found", nil, ""},
		{"another organization's report", "GET", "/api/compliance/audits/" + otherAudit.Get("report_id").MustStr(t) + "/download", admin.Token, nil, 404, "not_found", nil, ""},
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
	if g := gapOf(t, again, "soc2", "CC6.1"); g.IsNull() || !g.Get("gap_id").Is(gapID) {
		t.Fatalf("the refused remediations changed the gap: %v", g)
	}
	if c := controlOf(t, again, "soc2", "CC1.2"); c.Get("result").Str() != "manual" || !c.Get("attestation").IsNull() {
		t.Fatalf("a refused attestation was recorded: %v", c)
	}
	for _, tpl := range e.Do("GET", "/api/compliance/templates", admin.Token, nil).Must(t, http.StatusOK).Get("data").List() {
		if !tpl.Get("adopted").Is(false) {
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
	acc := e.Do("POST", "/api/compliance/audit", admin.Token, nil).Must(t, http.StatusAccepted).Get("data")
	if acc.Get("status").Str() != "queued" || len(acc.Get("frameworks").List()) != 4 || !strings.HasPrefix(acc.Get("report_id").Str(), "rpt_") ||
		!strings.HasPrefix(acc.Get("agent_run_id").Str(), "run_") || acc.Get("estimated_completion_seconds").Float() < 1 {
		t.Fatalf("accepted audit: %v", acc)
	}
	id := acc.Get("report_id").Str()
	for _, format := range []string{"", "?format=csv", "?format=html"} {
		e.Do("GET", "/api/compliance/audits/"+id+"/download"+format, admin.Token, nil).WantError(t, http.StatusConflict, "conflict",
			"Audit "+id+" is queued; its report can be downloaded once it has completed")
	}
	a := e.Do("GET", "/api/compliance/audits/"+id, admin.Token, nil).Must(t, http.StatusOK).Get("data")
	if a.Get("status").Str() != "queued" || !a.Get("results").IsNull() || !a.Get("summary").IsNull() || len(a.Get("gaps").MustList(t)) != 0 {
		t.Fatalf("queued audit: %v", a)
	}
}

func TestComplianceAuditAllFrameworks(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	seedAgentData(t, e, admin)
	a := e.audit(admin.Token, "")
	if strings.Join(a.Get("frameworks").Strings(), ",") != "soc2,hipaa,nist,cis" || a.Get("organization").Str() != "Acme" || a.Get("completed_at").IsNull() ||
		a.Get("scope").Is("") || a.Get("method").Is("") {
		t.Fatalf("audit: %v", a)
	}
	results := a.Get("results").MustList(t)
	totals := map[string]float64{"soc2": 61, "hipaa": 70, "nist": 106, "cis": 153}
	openGaps := 0
	for _, f := range results {
		fw := f.Get("framework").MustStr(t)
		sum := a.Get("summary").MustObject(t).Get(fw).MustObject(t)
		controls := f.Get("controls").MustList(t)
		if float64(len(controls)) != totals[fw] || !sum.Get("controls_total").Is(totals[fw]) {
			t.Fatalf("%s: %d controls, summary %v", fw, len(controls), sum)
		}
		counted := map[string]float64{}
		for _, c := range controls {
			m := c.MustObject(t)
			counted[m.Get("result").MustStr(t)]++
			// Every automated result carries its evidence; a failing control
			// names its gap.
			if m.Get("basis").Str() == "checks" && len(m.Get("findings").MustList(t)) == 0 {
				t.Fatalf("automated control without findings: %v", m)
			}
			if (m.Get("result").Str() == "fail") != !m.Get("gap_id").IsNull() {
				t.Fatalf("control %v: result %v, gap %v", m.Get("control_id"), m.Get("result"), m.Get("gap_id"))
			}
		}
		if !sum.Get("passed").Is(counted["pass"]) || !sum.Get("failed").Is(counted["fail"]) || !sum.Get("manual").Is(counted["manual"]) ||
			!sum.Get("not_applicable").Is(counted["not_applicable"]) {
			t.Fatalf("%s: counted %v, summary %v", fw, counted, sum)
		}
		// Completion is over every applicable control, assessed or not.
		applicable := counted["pass"] + counted["fail"] + counted["manual"]
		if want := int(100 * counted["pass"] / applicable); !sum.Get("completion_percentage").Is(want) {
			t.Fatalf("%s: completion %v, want %d", fw, sum.Get("completion_percentage"), want)
		}
		if !sum.Get("applicable").Is(applicable) || !sum.Get("assessed").Is(counted["pass"]+counted["fail"]) || !sum.Get("passing").Is(counted["pass"]) ||
			!sum.Get("failing").Is(counted["fail"]) || !sum.Get("not_assessed").Is(counted["manual"]) {
			t.Fatalf("%s: counted %v, summary %v", fw, counted, sum)
		}
		openGaps += sum.Get("failed").MustInt(t)
	}
	gaps := a.Get("gaps").MustList(t)
	if len(gaps) != openGaps {
		t.Fatalf("%d gaps, %d failing controls", len(gaps), openGaps)
	}
	// Gaps come most severe first, each with evidence and steps.
	last := 5
	for _, m := range gaps {
		rank := slices.Index([]string{"info", "low", "medium", "high", "critical"}, m.Get("severity").MustStr(t))
		if rank > last || !strings.HasPrefix(m.Get("gap_id").Str(), "gap_") || len(m.Get("remediation_steps").List()) == 0 ||
			len(m.Get("failed").List()) == 0 || m.Get("status").Str() != "open" {
			t.Fatalf("gap: %v", m)
		}
		last = rank
	}
	// The unconfirmed admin is a high HIPAA gap that only a person can fix.
	verified := gapOf(t, a, "hipaa", "164.312(d)")
	if verified.IsNull() || verified.Get("severity").Str() != "high" || !verified.Get("auto_remediable").Is(false) ||
		!slices.Contains(failedChecks(t, verified), "admins_verified") {
		t.Fatalf("hipaa 164.312(d): %v", verified)
	}
	ev := verified.Get("failed", "0")
	if ev.Get("result").Str() != "fail" || ev.Get("evidence").Is("") || ev.Get("observed", "unverified").Float() != 1 ||
		ev.Get("observed", "unverified_ids").Strings()[0] != admin.ID {
		t.Fatalf("evidence: %v", ev)
	}
	// The CVE check has nothing to judge while no watched CVE affects an asset: not applicable, with the reason.
	if c := controlOf(t, a, "nist", "ID.RA-01"); c.Get("result").Str() != "not_applicable" || !strings.Contains(c.Get("findings", "0", "evidence").Str(), "No open finding or watched CVE affects an asset") {
		t.Fatalf("nist ID.RA-01: %v", c)
	}

	// The rest of the product sees it.
	overview := e.Do("GET", "/api/compliance", admin.Token, nil).Must(t, http.StatusOK).Get("data", "frameworks").MustList(t)
	gapsShown := 0
	for _, m := range overview {
		sum := a.Get("summary").MustObject(t).Get(m.Get("id").MustStr(t)).MustObject(t)
		if !m.Get("last_report_id").Equal(a.Get("report_id")) || !m.Get("last_audit_at").Equal(a.Get("completed_at")) || !m.Get("completion_percentage").Equal(sum.Get("completion_percentage")) ||
			!m.Get("results").MustObject(t).Get("failed").Equal(sum.Get("failed")) || !m.Get("open_gaps").Equal(sum.Get("failed")) {
			t.Fatalf("overview %v against summary %v", m, sum)
		}
		gapsShown += m.Get("open_gaps").MustInt(t)
	}
	stats := e.Do("GET", "/api/dashboard/stats", admin.Token, nil).Must(t, http.StatusOK).Data()
	if stats["compliance_gaps"] != float64(gapsShown) || stats["compliance_audited"] != true {
		t.Fatalf("stats: %v, want %d gaps", stats, gapsShown)
	}
	score := e.Do("GET", "/api/dashboard/security-score", admin.Token, nil).Must(t, http.StatusOK).Get("data")
	comp := score.Get("sub_scores", "compliance")
	if !comp.Get("assessed").Bool() || len(comp.Get("inputs").List()) != 4 || comp.Get("score").IsNull() {
		t.Fatalf("compliance sub-score: %v", comp)
	}
	// The audit is a run of the compliance agent.
	runs := e.Do("GET", "/api/agents/compliance/executions", admin.Token, nil).Must(t, http.StatusOK).Get("data").List()
	if len(runs) != 1 || !runs[0].MustObject(t).Get("agent_run_id").Equal(a.Get("agent_run_id")) {
		t.Fatalf("compliance executions: %v", runs)
	}
	list := e.Do("GET", "/api/compliance/audits", admin.Token, nil).Must(t, http.StatusOK)
	if items := list.Get("data").List(); len(items) != 1 || !items[0].MustObject(t).Get("report_id").Equal(a.Get("report_id")) ||
		items[0].Get("summary").IsNull() || items[0].Get("status").Str() != "completed" {
		t.Fatalf("audit list: %s", list.Raw)
	}

	// An audit that finds the same controls failing keeps their gap ids.
	again := e.audit(admin.Token, "")
	for _, m := range gaps {
		if same := gapOf(t, again, m.Get("framework").MustStr(t), m.Get("control_id").MustStr(t)); same.IsNull() || !same.Get("gap_id").Equal(m.Get("gap_id")) {
			t.Fatalf("gap %v was not kept: %v", m.Get("gap_id"), same)
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
	if results := a.Get("results").List(); len(results) != 1 || results[0].Get("framework").Str() != "cis" || len(a.Get("summary").Map()) != 1 {
		t.Fatalf("one framework: %v", a.Get("summary"))
	}
	for _, g := range a.Get("gaps").MustList(t) {
		if g.Get("framework").Str() != "cis" {
			t.Fatalf("gap outside the framework: %v", g)
		}
	}
	for _, f := range e.Do("GET", "/api/compliance", admin.Token, nil).Must(t, http.StatusOK).Get("data", "frameworks").MustList(t) {
		m := f.MustObject(t)
		if !m.Get("last_report_id").IsNull() != (m.Get("id").Str() == "cis") {
			t.Fatalf("%s after a CIS audit: %v", m.Get("id"), m)
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
	id := a.Get("report_id").MustStr(t)
	controls := 0
	for _, fr := range a.Get("results").MustList(t) {
		controls += len(fr.Get("controls").MustList(t))
	}

	t.Run("json", func(t *testing.T) {
		for _, q := range []string{"", "?format=json"} {
			r := e.Do("GET", "/api/compliance/audits/"+id+"/download"+q, admin.Token, nil).Must(t, http.StatusOK)
			if r.Header.Get("Content-Type") != "application/json; charset=utf-8" ||
				r.Header.Get("Content-Disposition") != `attachment; filename=garrison-audit-`+id+`.json` ||
				r.Body["report_id"] != id || r.Body["organization"] != `Acme <b>&</b> "Sons"` || len(r.Get("results").List()) != 4 {
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
		// The header, a summary row per framework, a row per control.
		if strings.Join(rows[0], ",") != "framework,control,title,result,evidence,gap_id,severity" || len(rows) != 1+4+controls {
			t.Fatalf("csv: header %v, %d rows for %d controls", rows[0], len(rows), controls)
		}
		for i, fw := range []string{"soc2", "hipaa", "nist", "cis"} {
			sum := a.Get("summary", fw)
			want := fmt.Sprintf("Completion %d%%: %d of %d applicable controls pass.", sum.Get("completion_percentage").MustInt(t),
				sum.Get("passing").MustInt(t), sum.Get("applicable").MustInt(t))
			if row := rows[1+i]; row[0] != fw || row[1] != "" || !strings.HasPrefix(row[4], want) {
				t.Fatalf("csv summary row %d: %q, want %q", i, row, want)
			}
		}
		found := false
		for _, row := range rows[1:] {
			if row[0] == "hipaa" && row[1] == "164.312(d)" {
				found = row[3] == "fail" && strings.HasPrefix(row[5], "gap_") && row[6] == "high" && strings.Contains(row[4], "confirmed")
			}
			if row[0] == "soc2" && row[1] == "CC1.2" && (row[3] != "pass" || !strings.Contains(row[4], "Attested pass by Test User <ann@acme.test> on ")) {
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
			"164.312(d)", "HIPAA Security Rule", "CIS Critical Security Controls", "<dd>Test User &lt;ann@acme.test&gt;</dd>",
			"Attested pass by Test User &lt;ann@acme.test&gt; on "} {
			if !strings.Contains(page, want) {
				t.Fatalf("html report lacks %q", want)
			}
		}
		// People by name, pages by name: no user or gap id, no API path.
		for _, banned := range []string{"<script", "<b>&", "src=", "href=\"http", "@import", "url(", admin.ID, "gap_", "/api/"} {
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
	keyGap := gapOf(t, a, "soc2", "CC6.1")
	if keyGap.IsNull() || !keyGap.Get("auto_remediable").Bool() || !slices.Contains(failedChecks(t, keyGap), "key_expiry") {
		t.Fatalf("soc2 CC6.1: %v", keyGap)
	}
	keys := func() []apitest.JSON {
		return e.Do("GET", "/api/api-keys", admin.Token, nil).Must(t, http.StatusOK).Get("data").List()
	}

	// Planned: the steps, nothing changed.
	plan := e.Do("POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": keyGap.Get("gap_id").Any(), "auto_apply": false}).Must(t, http.StatusOK).Get("data")
	if plan.Get("status").Str() != "planned" || len(plan.Get("changes").MustList(t)) != 0 || len(plan.Get("remediation_steps").List()) == 0 ||
		!plan.Get("control_passes").IsNull() || plan.Get("framework").Str() != "soc2" || plan.Get("control_id").Str() != "CC6.1" || !strings.HasPrefix(plan.Get("remediation_id").Str(), "rem_") {
		t.Fatalf("planned: %v", plan)
	}
	if !keys()[0].MustObject(t).Get("expires_at").IsNull() {
		t.Fatal("a planned remediation changed a key")
	}

	// Applied: a 90-day expiry on the key, and the policy the control needs
	// adopted; the control passes at once.
	applied := e.Do("POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": keyGap.Get("gap_id").Any(), "auto_apply": true}).Must(t, http.StatusOK).Get("data")
	changes := applied.Get("changes").MustList(t)
	var keyChange apitest.JSON
	for _, c := range changes {
		if m := c.MustObject(t); m.Get("object").Str() == "api_key" {
			keyChange = m
		}
	}
	want := e.Clock.Now().Add(90 * 24 * time.Hour).UTC().Format(time.RFC3339)
	if applied.Get("status").Str() != "applied" || applied.Get("control_result").Str() != "pass" || !applied.Get("control_passes").Bool() || keyChange.IsNull() ||
		keyChange.Get("field").Str() != "expires_at" || !keyChange.Get("before").IsNull() || keyChange.Get("after").Str() != want {
		t.Fatalf("applied: %v", applied)
	}
	if k := keys()[0]; k.Get("expires_at").Str() != want {
		t.Fatalf("key after remediation: %v", k)
	}
	if msg := applied.Get("message").Str(); !strings.HasPrefix(msg, "Garrison set an expiry 90 days away on 1 API key and recorded the ") ||
		!strings.Contains(msg, "which a person still has to do.") || strings.Contains(msg, "now passes") {
		t.Fatalf("applied message: %q", msg)
	}
	// The key still works: an expiry, not a revocation.
	e.Do("GET", "/api/org", write, nil).Must(t, http.StatusOK)

	// A gap only a person can fix: manual_required, nothing changed.
	manual := gapOf(t, a, "hipaa", "164.312(d)")
	m := e.Do("POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": manual.Get("gap_id").Any(), "auto_apply": true}).Must(t, http.StatusOK).Get("data")
	if m.Get("status").Str() != "manual_required" || len(m.Get("changes").MustList(t)) != 0 || !m.Get("control_passes").IsNull() || len(m.Get("remediation_steps").List()) == 0 {
		t.Fatalf("manual: %v", m)
	}

	// A policy gap needs no administrator: a write key adopts the template.
	var policyGap apitest.JSON
	for _, gm := range a.Get("gaps").MustList(t) {
		only := true
		for _, c := range failedChecks(t, gm) {
			only = only && strings.HasPrefix(c, "policy_")
		}
		if only && gm.Get("framework").Str() == "nist" {
			policyGap = gm
			break
		}
	}
	if policyGap.IsNull() {
		t.Fatal("no NIST gap that only a policy closes")
	}
	p := e.Do("POST", "/api/compliance/remediate", write, map[string]any{"gap_id": policyGap.Get("gap_id").Any(), "auto_apply": true}).Must(t, http.StatusOK).Get("data")
	if p.Get("status").Str() != "applied" || !p.Get("control_passes").Bool() || len(p.Get("changes").List()) == 0 ||
		p.Get("changes", "0", "object").Str() != "policy_template" {
		t.Fatalf("policy remediation: %v", p)
	}
	// Adopting a policy is a record: the answer says what changed and what
	// a person still has to do, not that the control is done.
	names := map[string]string{}
	for _, tpl := range e.Do("GET", "/api/compliance/templates", admin.Token, nil).Must(t, http.StatusOK).Get("data").MustList(t) {
		names[tpl.Get("id").MustStr(t)] = "the " + tpl.Get("name").MustStr(t)
	}
	var adopted []string
	for _, c := range p.Get("changes").MustList(t) {
		adopted = append(adopted, names[c.Get("id").MustStr(t)])
	}
	policies := strings.Join(adopted, " and ") // one or two
	has := "has"
	if len(adopted) > 1 {
		has = "have"
	}
	if want := "Garrison recorded " + policies + " as adopted; nothing else was changed. Adopting a policy here is a record, not the policy itself: " +
		"the control is evidenced when " + policies + " " + has + " been adapted to the organization, approved by management and shared with staff, " +
		"which a person still has to do. Garrison's checks count the control as passing from now on, and the next audit closes the gap."; len(adopted) > 2 || p.Get("message").Str() != want {
		t.Fatalf("policy remediation message\n got %q\nwant %q", p.Get("message").Str(), want)
	}

	// The next audit closes the fixed gaps and keeps the others; the old
	// audit shows who closed them.
	next := e.audit(admin.Token, "")
	if !gapOf(t, next, "soc2", "CC6.1").IsNull() || !gapOf(t, next, "nist", policyGap.Get("control_id").MustStr(t)).IsNull() {
		t.Fatal("fixed controls still have gaps")
	}
	if g := gapOf(t, next, "hipaa", "164.312(d)"); g.IsNull() || !g.Get("gap_id").Equal(manual.Get("gap_id")) {
		t.Fatalf("the unfixed gap: %v", g)
	}
	old := e.Do("GET", "/api/compliance/audits/"+a.Get("report_id").MustStr(t), admin.Token, nil).Must(t, http.StatusOK).Get("data")
	if g := gapOf(t, old, "soc2", "CC6.1"); g.Get("status").Str() != "closed" || !g.Get("closed_by_report_id").Equal(next.Get("report_id")) || g.Get("closed_at").IsNull() {
		t.Fatalf("closed gap in the old audit: %v", g)
	}
	e.Do("POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": keyGap.Get("gap_id").Any(), "auto_apply": true}).WantError(t,
		http.StatusConflict, "conflict", "Gap "+keyGap.Get("gap_id").MustStr(t)+" was closed by audit "+next.Get("report_id").MustStr(t)+"; run a new audit to see the control's state")

	// Keys unused for 90 days are revoked; the key stops working. This one
	// expires in a year, so only its idleness fails.
	idle := e.Do("POST", "/api/api-keys", admin.Token, map[string]string{"name": "idle", "scope": "read",
		"expires_at": e.Clock.Now().Add(365 * 24 * time.Hour).UTC().Format(time.RFC3339)}).Must(t, http.StatusCreated).Str("data", "key")
	e.Clock.Advance(91 * 24 * time.Hour)
	admin.Token = e.Login("ann@acme.test", apitest.Password).Str("token") // the session expired meanwhile
	late := e.audit(admin.Token, "cis")
	dormant := gapOf(t, late, "cis", "5.3")
	if dormant.IsNull() || !slices.Contains(failedChecks(t, dormant), "dormant_keys") {
		t.Fatalf("cis 5.3 after 91 idle days: %v", dormant)
	}
	r := e.Do("POST", "/api/compliance/remediate", admin.Token, map[string]any{"gap_id": dormant.Get("gap_id").Any(), "auto_apply": true}).Must(t, http.StatusOK).Get("data")
	if r.Get("status").Str() != "applied" || !r.Get("control_passes").Bool() || r.Get("changes", "0", "after").Str() != "revoked" {
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
	c := controlOf(t, a, "soc2", "CC1.2")
	att := c.Get("attestation")
	if c.Get("result").Str() != "pass" || c.Get("basis").Str() != "attestation" || !att.Get("expired").Is(false) || att.Get("note").Is("") {
		t.Fatalf("attested control: %v", c)
	}
	g := gapOf(t, a, "hipaa", "164.310(a)(2)(ii)")
	if g.IsNull() || g.Get("severity").Str() != "medium" || !g.Get("auto_remediable").Is(false) || g.Get("remediation_steps", "2").Str() != "Attest the control again on the Compliance page, as passing, with a link to the evidence." {
		t.Fatalf("attested failure: %v", g)
	}

	// Past its expiry the attestation counts for nothing: manual again.
	e.Clock.Advance(31 * 24 * time.Hour)
	admin.Token = e.Login("ann@acme.test", apitest.Password).Str("token")
	later := e.audit(admin.Token, "soc2")
	c = controlOf(t, later, "soc2", "CC1.2")
	if c.Get("result").Str() != "manual" || c.Get("basis").Str() != "none" || !c.Get("attestation", "expired").Bool() {
		t.Fatalf("expired attestation: %v", c)
	}
	// Attesting again replaces it.
	e.Do("PATCH", "/api/compliance/controls/soc2/CC1.2", admin.Token, map[string]any{"status": "not_applicable", "note": "No board."}).Must(t, http.StatusOK)
	if c := controlOf(t, e.audit(admin.Token, "soc2"), "soc2", "CC1.2"); c.Get("result").Str() != "not_applicable" || !c.Get("attestation").MustObject(t).Get("expires_at").IsNull() {
		t.Fatalf("re-attested control: %v", c)
	}
}

func TestCompliancePolicyTemplates(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", `Smith & <Jones> Dental`)
	write := e.APIKey(admin, "write")
	list := e.Do("GET", "/api/compliance/templates", admin.Token, nil).Must(t, http.StatusOK)
	items := list.Get("data").List()
	ids := []string{"acceptable-use", "incident-response", "data-classification", "access-control", "password", "backup-recovery",
		"vendor-management", "remote-work"}
	if len(items) != len(ids) || !list.Get("pagination", "total").Is(len(ids)) {
		t.Fatalf("templates: %s", list.Raw)
	}
	for i, m := range items {
		controls := m.Get("controls")
		if m.Get("id").Str() != ids[i] || m.Get("download_url").Str() != "/api/compliance/templates/"+ids[i]+"/download" || !m.Get("adopted").Is(false) ||
			m.Get("name").Is("") || m.Get("description").Is("") || len(controls.Map()) != 4 || len(controls.Get("hipaa").List()) == 0 {
			t.Fatalf("template %d: %v", i, m)
		}
	}
	if page := e.Do("GET", "/api/compliance/templates?limit=3&offset=6", admin.Token, nil).Must(t, http.StatusOK); len(page.List()) != 2 {
		t.Fatalf("last page: %s", page.Raw)
	}

	md := e.Do("GET", "/api/compliance/templates/password/download?format=md", admin.Token, nil).Must(t, http.StatusOK)
	text := string(md.Raw)
	if md.Header.Get("Content-Type") != "text/markdown; charset=utf-8" || !strings.HasPrefix(text, "# Password") ||
		!strings.Contains(text, "Smith &amp; &lt;Jones&gt; Dental") || strings.Contains(text, "<Jones>") || strings.Contains(text, "{{") {
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
		js.Body["effective_date"] != nil || !strings.Contains(js.Get("content").Str(), "Smith &amp; &lt;Jones&gt; Dental") {
		t.Fatalf("json policy: %.300s", js.Raw)
	}

	before := e.audit(admin.Token, "nist")
	adopted := e.Do("POST", "/api/compliance/templates/incident-response/adopt", write, nil).Must(t, http.StatusCreated).Get("data")
	key := e.Do("GET", "/api/api-keys", admin.Token, nil).Must(t, http.StatusOK).Get("data").MustList(t)[0].MustObject(t).Get("id")
	if !adopted.Get("adopted").Bool() || !adopted.Get("adopted_by").Equal(key) || adopted.Get("adopted_at").IsNull() {
		t.Fatalf("adopted: %v", adopted)
	}
	again := e.Do("POST", "/api/compliance/templates/incident-response/adopt", admin.Token, nil).Must(t, http.StatusOK).Get("data")
	if !again.Get("adopted_by").Equal(key) || !again.Get("adopted_at").Equal(adopted.Get("adopted_at")) {
		t.Fatalf("adopting again replaced the record: %v", again)
	}
	js = e.Do("GET", "/api/compliance/templates/incident-response/download", admin.Token, nil).Must(t, http.StatusOK)
	if js.Body["adopted"] != true || js.Body["effective_date"] == nil || !strings.Contains(js.Get("content").MustStr(t), js.Get("effective_date").MustStr(t)) {
		t.Fatalf("adopted policy: %.300s", js.Raw)
	}
	// The policy check now passes wherever the template is the only evidence.
	after := e.audit(admin.Token, "nist")
	check := func(audit apitest.JSON) string {
		for _, fr := range audit.Get("results").MustList(t) {
			for _, c := range fr.Get("controls").MustList(t) {
				for _, f := range c.Get("findings").MustList(t) {
					if fm := f.MustObject(t); fm.Get("check_id").Str() == "policy_incident_response" {
						return fm.Get("result").MustStr(t)
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
	if total := list.Get("pagination", "total"); total.Float() != 10 {
		t.Fatalf("%v audits stored, want the 10 accepted", total)
	}
}

// TestComplianceCompletionCountsEveryApplicableControl: an organization
// whose every policy is adopted still has most controls unassessed (no
// check evidences them, nobody attested them). Completion counts them:
// passing ÷ applicable, in the overview, the audit, its results and every
// report format, each with the counts it rests on. (Over assessed controls
// only, SOC 2 read 88% and CIS 88%.)
func TestComplianceCompletionCountsEveryApplicableControl(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	for _, tpl := range e.Do("GET", "/api/compliance/templates", admin.Token, nil).Must(t, http.StatusOK).Get("data").MustList(t) {
		e.Do("POST", "/api/compliance/templates/"+tpl.Get("id").MustStr(t)+"/adopt", admin.Token, nil).Must(t, http.StatusCreated)
	}
	e.Do("PATCH", "/api/compliance/controls/soc2/CC1.2", admin.Token, map[string]any{"status": "pass"}).Must(t, http.StatusOK)
	e.Do("PATCH", "/api/compliance/controls/cis/1.1", admin.Token, map[string]any{"status": "not_applicable"}).Must(t, http.StatusOK)
	a := e.audit(admin.Token, "")

	// Failing: the unconfirmed admin, no event source, no DNS telemetry.
	type counts struct{ total, na, applicable, assessed, passing, failing, notAssessed, completion int }
	want := map[string]counts{
		"soc2":  {61, 1, 60, 26, 23, 3, 34, 38},   // 23 ÷ 60
		"hipaa": {70, 1, 69, 26, 22, 4, 43, 31},   // 22 ÷ 69
		"nist":  {106, 2, 104, 36, 32, 4, 68, 30}, // 32 ÷ 104
		"cis":   {153, 3, 150, 54, 48, 6, 96, 32}, // 48 ÷ 150
	}
	check := func(where string, fw string, s apitest.JSON) {
		t.Helper()
		w := want[fw]
		got := counts{s.Get("controls_total").MustInt(t), s.Get("not_applicable").MustInt(t), s.Get("applicable").MustInt(t),
			s.Get("assessed").MustInt(t), s.Get("passing").MustInt(t), s.Get("failing").MustInt(t), s.Get("not_assessed").MustInt(t),
			s.Get("completion_percentage").MustInt(t)}
		if got != w {
			t.Errorf("%s %s: %+v, want %+v", where, fw, got, w)
		}
	}
	for fw := range want {
		check("audit summary", fw, a.Get("summary", fw))
		check("listed audit", fw, e.Do("GET", "/api/compliance/audits", admin.Token, nil).Must(t, http.StatusOK).Get("data", "0", "summary", fw))
	}
	for _, fr := range a.Get("results").MustList(t) {
		check("audit results", fr.Get("framework").MustStr(t), fr.Get("summary"))
	}
	for _, f := range e.Do("GET", "/api/compliance", admin.Token, nil).Must(t, http.StatusOK).Get("data", "frameworks").MustList(t) {
		fw := f.Get("id").MustStr(t)
		w := want[fw]
		check("overview", fw, apitest.J(map[string]any{"controls_total": f.Get("controls_total").Any(),
			"not_applicable": f.Get("results", "not_applicable").Any(), "applicable": f.Get("applicable").Any(),
			"assessed": f.Get("assessed").Any(), "passing": f.Get("passing").Any(), "failing": f.Get("failing").Any(),
			"not_assessed": f.Get("not_assessed").Any(), "completion_percentage": f.Get("completion_percentage").Any()}))
		if !f.Get("results", "passed").Is(w.passing) || !f.Get("results", "failed").Is(w.failing) || !f.Get("results", "manual").Is(w.notAssessed) {
			t.Errorf("overview %s results: %v", fw, f.Get("results"))
		}
	}

	id := a.Get("report_id").MustStr(t)
	report := e.Do("GET", "/api/compliance/audits/"+id+"/download?format=json", admin.Token, nil).Must(t, http.StatusOK)
	for fw := range want {
		check("json report", fw, report.Get("summary", fw))
	}
	csvBody := string(e.Do("GET", "/api/compliance/audits/"+id+"/download?format=csv", admin.Token, nil).Must(t, http.StatusOK).Raw)
	html := string(e.Do("GET", "/api/compliance/audits/"+id+"/download?format=html", admin.Token, nil).Must(t, http.StatusOK).Raw)
	for _, want := range []string{
		`soc2,,Summary of SOC 2,,"Completion 38%: 23 of 60 applicable controls pass. 26 assessed (23 passing, 3 failing), 34 not assessed, 1 not applicable; 61 controls in all.",,` + "\n",
		`cis,,Summary of CIS Critical Security Controls,,"Completion 32%: 48 of 150 applicable controls pass. 54 assessed (48 passing, 6 failing), 96 not assessed, 3 not applicable; 153 controls in all.",,` + "\n",
	} {
		if !strings.Contains(csvBody, want) {
			t.Errorf("csv report lacks %q", want)
		}
	}
	for _, want := range []string{
		`<td class="num">61</td><td class="num">1</td><td class="num">60</td>` + "\n    " +
			`<td class="num">26</td><td class="num">23</td><td class="num">3</td>` + "\n    " + `<td class="num">34</td>` + "\n    <td>38% ",
		`<td class="num">153</td><td class="num">3</td><td class="num">150</td>` + "\n    " +
			`<td class="num">54</td><td class="num">48</td><td class="num">6</td>` + "\n    " + `<td class="num">96</td>` + "\n    <td>32% ",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("html report lacks %q", want)
		}
	}
}
