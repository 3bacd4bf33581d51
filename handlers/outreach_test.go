package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"garrison/handlers/apitest"
)

func proOrg(t testing.TB, e *env, email, org string) apitest.Account {
	t.Helper()
	a := e.Register(email, org)
	if _, err := e.Store.SetPlanByAdmin(t.Context(), a.Email, "pro"); err != nil {
		t.Fatal(err)
	}
	return a
}

func (e *env) importCSV(cred, body string) apitest.Response {
	e.T.Helper()
	return e.DoHeaders("POST", "/api/outreach/prospects", body, map[string]string{"Authorization": apitest.Bearer(cred), "Content-Type": "text/csv"})
}

const prospectsCSV = "\ufeffcompany,domain,vertical,region,employees,contact_name,contact_email,contact_phone,notes,crm_id\r\n" +
	"Smith Dental,https://www.smith-dental.com/,dental,Ohio,24,Ann Smith,ann@smith-dental.com,+1 614 555 0101,\"Had a ransomware scare in May, no IT staff; cyber insurance renewal due\",A-1\r\n" +
	"\"Baker, Lane & Co\",bakerlane.law,legal,Ohio,12,Tom Baker,tom@bakerlane.law,,\"Two offices.\nWants \"\"help\"\" with email\",A-2\r\n" +
	"Gadget Shop,gadgetshop.example,retail,Texas,400,,,,hiring,A-3\r\n"

func TestOutreachProspectImport(t *testing.T) {
	e := newEnv(t)
	admin := proOrg(t, e, "ann@acme.test", "Acme")
	write, read := e.APIKey(admin, "write"), e.APIKey(admin, "read")

	r := e.importCSV(write, prospectsCSV).Must(t, http.StatusCreated).Data()
	if r["rows"] != 3.0 || r["created"] != 3.0 || r["merged"] != 0.0 {
		t.Fatalf("csv import: %v", r)
	}
	list := e.Do("GET", "/api/outreach/prospects", read, nil).Must(t, http.StatusOK).Get("data").List()
	byDomain := map[string]apitest.JSON{}
	for _, m := range list {
		byDomain[m.Get("domain").MustStr(t)] = m
	}
	baker := byDomain["bakerlane.law"]
	if len(list) != 3 || baker.Get("company").Str() != "Baker, Lane & Co" || baker.Get("notes").Str() != "Two offices.\nWants \"help\" with email" ||
		byDomain["smith-dental.com"].Get("employees").Float() != 24 || byDomain["smith-dental.com"].Get("attributes", "crm_id").Str() != "A-1" {
		t.Fatalf("prospects: %v", list)
	}
	// The same domains again as JSON: newer non-empty values win, the rest
	// merge; an unchanged row is counted so.
	j := e.Do("POST", "/api/outreach/prospects", write, []map[string]any{
		{"company": "Smith Dental", "domain": "smith-dental.com", "employees": 30, "contact_phone": ""},
		{"company": "Gadget Shop", "domain": "GADGETSHOP.example", "vertical": "retail", "region": "Texas", "employees": "400", "notes": "hiring", "crm_id": "A-3"},
		{"company": "North Clinic", "domain": "northclinic.org", "vertical": "healthcare", "region": "Ohio", "employees": 60},
	}).Must(t, http.StatusCreated).Data()
	if j["created"] != 1.0 || j["merged"] != 1.0 || j["unchanged"] != 1.0 {
		t.Fatalf("json import: %v", j)
	}
	smith := e.Do("GET", "/api/outreach/prospects?limit=10", read, nil).Must(t, http.StatusOK).Get("data").List()
	for _, it := range smith {
		if m := it.MustObject(t); m.Get("domain").Str() == "smith-dental.com" && (m.Get("employees").Float() != 30 || m.Get("contact_phone").Str() != "+1 614 555 0101") {
			t.Fatalf("merged prospect: %v", m)
		}
	}

	many := &strings.Builder{}
	many.WriteString("company,domain\n")
	for i := range 10001 {
		fmt.Fprintf(many, "C%d,c%d.example\n", i, i)
	}
	cases := []struct {
		name   string
		send   func() apitest.Response
		fields []string
	}{
		{"bad e-mail and vertical", func() apitest.Response {
			return e.importCSV(write, "company,domain,vertical,contact_email\nA,a.example,dental,x@\nB,b.example,space,b@b.example\n")
		}, []string{"rows[1].contact_email", "rows[2].vertical"}},
		{"missing company and bad domain", func() apitest.Response {
			return e.importCSV(write, "company,domain\n,a.example\nB,not a domain\n")
		}, []string{"rows[1].company", "rows[2].domain"}},
		{"bad employees", func() apitest.Response { return e.importCSV(write, "company,domain,employees\nA,a.example,many\n") }, []string{"rows[1].employees"}},
		{"bad phone", func() apitest.Response {
			return e.importCSV(write, "company,domain,contact_phone\nA,a.example,call me\n")
		}, []string{"rows[1].contact_phone"}},
		{"malformed quote", func() apitest.Response { return e.importCSV(write, "company,domain\n\"A,a.example\nB,b\"x.example\n") }, []string{"body"}},
		{"wrong column count", func() apitest.Response { return e.importCSV(write, "company,domain\nA,a.example,extra\n") }, []string{"body"}},
		{"no domain column", func() apitest.Response { return e.importCSV(write, "company,website\nA,a.example\n") }, []string{"body"}},
		{"too many rows", func() apitest.Response { return e.importCSV(write, many.String()) }, []string{"body"}},
		{"JSON not an array", func() apitest.Response {
			return e.Do("POST", "/api/outreach/prospects", write, map[string]any{"company": "A"})
		}, []string{"body"}},
		{"JSON value not a string", func() apitest.Response {
			return e.Do("POST", "/api/outreach/prospects", write, []map[string]any{{"company": "A", "domain": "a.example", "region": 5}})
		}, []string{"rows[1].region"}},
		{"other content type", func() apitest.Response {
			return e.DoHeaders("POST", "/api/outreach/prospects", "company,domain\n", map[string]string{"Authorization": apitest.Bearer(write), "Content-Type": "text/plain"})
		}, []string{"Content-Type"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.send().WantFields(t, c.fields...) })
	}
	e.importCSV(read, prospectsCSV).WantError(t, http.StatusForbidden, "forbidden", "")
	// Nothing refused was stored: all or nothing.
	if total := e.Do("GET", "/api/outreach/prospects", read, nil).Must(t, http.StatusOK).Get("pagination", "total"); total.Float() != 4 {
		t.Fatalf("%v prospects after refusals", total)
	}
}

func TestOutreachHunterAndPipeline(t *testing.T) {
	e := newEnv(t)
	admin := proOrg(t, e, "ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	other := proOrg(t, e, "zoe@other.test", "Other")
	e.importCSV(admin.Token, prospectsCSV).Must(t, http.StatusCreated)

	run := e.runToEnd(admin.Token, "msp-hunter", map[string]any{"region": "Ohio"})
	out := run.Get("output")
	if out.Get("prospects_considered").Float() != 2 || len(out.Get("leads_created").List()) != 2 {
		t.Fatalf("hunter run: %v", out)
	}
	leads := e.Do("GET", "/api/outreach/leads", admin.Token, nil).Must(t, http.StatusOK).Get("data").List()
	top := leads[0]
	// Smith Dental: dental 25 + HIPAA 15 + 24 employees 20 + Ohio 15 + incident 12 + no IT staff 10 + insurance renewal 3 (signals capped at 25) + contact 5 = 100 capped.
	if top.Get("domain").Str() != "smith-dental.com" || top.Get("status").Str() != "new" || top.Get("score").Float() < 90 || !strings.Contains(top.Get("intelligence_summary").Str(), "Smith Dental") {
		t.Fatalf("top lead: %v", top)
	}
	factors := map[string]float64{}
	for _, m := range top.Get("score_reasons").MustList(t) {
		factors[m.Get("factor").MustStr(t)] = m.Get("points").MustFloat(t)
	}
	if factors["compliance_pressure"] != 15 || factors["region_match"] != 15 || factors["recent_incident"] != 12 || factors["size_band"] != 20 {
		t.Fatalf("reasons: %v", factors)
	}
	id := top.Get("id").MustStr(t)

	// Moves, by a user and by a key, each on record; a no-op records nothing.
	e.Do("PATCH", "/api/outreach/leads/"+id+"/status", admin.Token, map[string]any{"status": "contacted", "note": "Called Ann"}).Must(t, http.StatusOK)
	moved := e.Do("PATCH", "/api/outreach/leads/"+id+"/status", key, map[string]any{"status": "qualified"}).Must(t, http.StatusOK).Data()
	if moved["status"] != "qualified" {
		t.Fatalf("moved: %v", moved)
	}
	e.Do("PATCH", "/api/outreach/leads/"+id+"/status", key, map[string]any{"status": "qualified", "note": "again"}).Must(t, http.StatusOK)
	got := e.Do("GET", "/api/outreach/leads/"+id, admin.Token, nil).Must(t, http.StatusOK).Get("data")
	var statusMoves []apitest.JSON
	for _, h := range got.Get("history").MustList(t) {
		if m := h.MustObject(t); m.Get("kind").Str() == "status" {
			statusMoves = append(statusMoves, m)
		}
	}
	if len(statusMoves) != 3 || statusMoves[1].Get("to").Str() != "contacted" || statusMoves[1].Get("actor").Str() != admin.ID || statusMoves[1].Get("note").Str() != "Called Ann" ||
		statusMoves[2].Get("from").Str() != "contacted" || !strings.HasPrefix(statusMoves[2].Get("actor").Str(), "key_") {
		t.Fatalf("history: %v", got.Get("history"))
	}

	// A re-run changes nothing that did not change, and never the status;
	// a changed prospect changes its score, on record.
	again := e.runToEnd(admin.Token, "msp-hunter", map[string]any{"region": "Ohio"}).Get("output")
	if len(again.Get("leads_created").MustList(t)) != 0 || len(again.Get("leads_updated").MustList(t)) != 0 {
		t.Fatalf("re-run: %v", again)
	}
	e.Do("POST", "/api/outreach/prospects", admin.Token, []map[string]any{{"company": "Baker, Lane & Co", "domain": "bakerlane.law", "employees": 2000}}).Must(t, http.StatusOK)
	third := e.runToEnd(admin.Token, "msp-hunter", map[string]any{"region": "Ohio"}).Get("output")
	upd := third.Get("leads_updated").List()
	if len(upd) != 1 || upd[0].Get("domain").Str() != "bakerlane.law" || upd[0].Get("score_from").IsNull() {
		t.Fatalf("third run: %v", third)
	}
	if l := e.Do("GET", "/api/outreach/leads/"+id, admin.Token, nil).Must(t, http.StatusOK).Data(); l["status"] != "qualified" {
		t.Fatalf("a re-run moved the status: %v", l)
	}

	// Filters.
	for q, want := range map[string]int{"status=qualified": 1, "status=new": 1, "min_score=95": 1, "vertical=legal": 1, "region=ohio": 2,
		"q=baker": 1, "q=SMITH-DENTAL": 1, "sort=updated&limit=1": 1, "vertical=retail": 0} {
		if n := len(e.Do("GET", "/api/outreach/leads?"+q, admin.Token, nil).Must(t, http.StatusOK).List()); n != want {
			t.Errorf("%s: %d leads, want %d", q, n, want)
		}
	}
	for _, c := range []struct{ q, field string }{{"status=open", "status"}, {"min_score=101", "min_score"}, {"vertical=space", "vertical"}, {"sort=name", "sort"}} {
		e.Do("GET", "/api/outreach/leads?"+c.q, admin.Token, nil).WantFields(t, c.field)
	}
	e.Do("PATCH", "/api/outreach/leads/"+id+"/status", admin.Token, map[string]any{"status": "archived"}).WantFields(t, "status")
	e.Do("PATCH", "/api/outreach/leads/"+id+"/status", admin.Token, map[string]any{}).WantFields(t, "status")
	e.Do("PATCH", "/api/outreach/leads/"+id+"/status", admin.Token, map[string]any{"status": "won", "note": strings.Repeat("é", 2001)}).WantFields(t, "note")
	e.Do("GET", "/api/outreach/leads/"+id, other.Token, nil).WantError(t, http.StatusNotFound, "not_found", "")
	e.Do("PATCH", "/api/outreach/leads/"+id+"/status", other.Token, map[string]any{"status": "won"}).WantError(t, http.StatusNotFound, "not_found", "")
}

func TestOutreachNeedsPro(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	msg := "Outreach is included in the pro and ultimate plans; this organization is on starter"
	for _, c := range []struct {
		method, path string
		body         any
	}{{"POST", "/api/outreach/prospects", []map[string]any{{"company": "A", "domain": "a.example"}}}, {"GET", "/api/outreach/prospects", nil},
		{"GET", "/api/outreach/leads", nil}, {"GET", "/api/outreach/leads/lead_x", nil}, {"PATCH", "/api/outreach/leads/lead_x/status", map[string]any{"status": "won"}}} {
		e.Do(c.method, c.path, admin.Token, c.body).WantError(t, http.StatusForbidden, "plan_upgrade_required", msg)
	}
	e.Do("POST", "/api/agents/msp-hunter/execute", admin.Token, nil).WantError(t, http.StatusForbidden, "plan_upgrade_required", "")
	// An upgrade holds from the next request, a downgrade likewise; the data stays.
	if _, err := e.Store.SetPlanByAdmin(t.Context(), admin.Email, "ultimate"); err != nil {
		t.Fatal(err)
	}
	e.Do("POST", "/api/outreach/prospects", admin.Token, []map[string]any{{"company": "A", "domain": "a.example"}}).Must(t, http.StatusCreated)
	if _, err := e.Store.SetPlanByAdmin(t.Context(), admin.Email, "starter"); err != nil {
		t.Fatal(err)
	}
	e.Do("GET", "/api/outreach/prospects", admin.Token, nil).WantError(t, http.StatusForbidden, "plan_upgrade_required", msg)
	if _, err := e.Store.SetPlanByAdmin(t.Context(), admin.Email, "pro"); err != nil {
		t.Fatal(err)
	}
	if n := len(e.Do("GET", "/api/outreach/prospects", admin.Token, nil).Must(t, http.StatusOK).List()); n != 1 {
		t.Fatalf("%d prospects after the round trip", n)
	}
}

func TestOutreachImportEdges(t *testing.T) {
	e := newEnv(t)
	admin := proOrg(t, e, "ann@acme.test", "Acme")
	// Keys in any case land in their fields; a count with thousands separators is read.
	e.Do("POST", "/api/outreach/prospects", admin.Token, []map[string]any{{"Company": "Ärzte Zentrum", "Domain": "aerzte.example", "Vertical": "healthcare",
		"Employees": "1,200", "Notes": "ransomware in March"}}).Must(t, http.StatusCreated)
	p := e.Do("GET", "/api/outreach/prospects", admin.Token, nil).Must(t, http.StatusOK).Get("data", "0")
	if p.Get("vertical").Str() != "healthcare" || p.Get("employees").Float() != 1200 || p.Get("notes").Str() != "ransomware in March" || len(p.Get("attributes").MustMap(t)) != 0 {
		t.Fatalf("prospect: %v", p)
	}
	e.runToEnd(admin.Token, "msp-hunter", map[string]any{})
	for _, q := range []string{"Ärzte", "ärzte", "ÄRZTE", "aerzte.ex"} {
		if n := len(e.Do("GET", "/api/outreach/leads?q="+q, admin.Token, nil).Must(t, http.StatusOK).List()); n != 1 {
			t.Errorf("q=%s: %d leads", q, n)
		}
	}
	// Refused: keys repeated in another case, "1,2,3" employees, an IP or a bad port as domain.
	for _, c := range []struct {
		row   map[string]any
		field string
	}{{map[string]any{"company": "A", "COMPANY": "B", "domain": "a.example"}, "rows[1].company"},
		{map[string]any{"company": "A", "domain": "a.example", "employees": "1,2,3"}, "rows[1].employees"},
		{map[string]any{"company": "A", "domain": "10.0.0.1"}, "rows[1].domain"},
		{map[string]any{"company": "A", "domain": "a.example:abc"}, "rows[1].domain"}} {
		e.Do("POST", "/api/outreach/prospects", admin.Token, []map[string]any{c.row}).WantFields(t, c.field)
	}
	// Attributes stay bounded across merges.
	attrs := func(prefix string) map[string]any {
		m := map[string]any{"company": "B", "domain": "b.example"}
		for i := range 30 {
			m[fmt.Sprintf("%s%d", prefix, i)] = "v"
		}
		return m
	}
	e.Do("POST", "/api/outreach/prospects", admin.Token, []map[string]any{attrs("x")}).Must(t, http.StatusCreated)
	e.Do("POST", "/api/outreach/prospects", admin.Token, []map[string]any{attrs("y")}).WantFields(t, "body")
	e.Do("POST", "/api/outreach/prospects", admin.Token, []map[string]any{attrs("x"), attrs("y")}).WantFields(t, "rows[2].attributes")
}
