package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"garrison/demo"
)

func TestDemo(t *testing.T) {
	e := newEnv(t)
	var out bytes.Buffer
	if err := demo.Create(context.Background(), e.Store, e.Clock.Now(), &out); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`password: (\S+)`).FindStringSubmatch(out.String())
	if m == nil || !strings.Contains(out.String(), demo.Email) {
		t.Fatalf("credentials not printed: %s", out.String())
	}
	token := e.Login(demo.Email, m[1]).Must(t, http.StatusOK).Str("token")

	events := e.Do("GET", "/api/events?limit=1", token, nil).Must(t, http.StatusOK)
	if events.Get("pagination", "total").Float() < 30*150 {
		t.Fatalf("too few demo events: %v", events.Body["pagination"])
	}
	open, resolved := e.alerts(token, "status=open"), e.alerts(token, "status=resolved")
	if len(open) == 0 || len(resolved) == 0 {
		t.Fatalf("demo alerts: %d open, %d resolved", len(open), len(resolved))
	}
	// Alerts are dated by their events, not by the seeding.
	for _, m := range append(open, resolved...) {
		if m.Get("created_at").MustStr(t) > m.Get("first_seen").MustStr(t) || (m.Get("status").Str() == "resolved" && m.Get("updated_at").MustStr(t) < m.Get("last_seen").MustStr(t)) {
			t.Fatalf("a demo alert's dates contradict its events: %v", m)
		}
	}
	nh := e.Do("GET", "/api/dashboard/network-health", token, nil).Must(t, http.StatusOK).Get("data")
	if nh.Get("dns", "7d", "blocked_trackers").Float() == 0 {
		t.Fatalf("no blocked trackers in the demo: %v", nh.Get("dns"))
	}
	timeline := e.Do("GET", "/api/dashboard/risk-timeline", token, nil).Must(t, http.StatusOK).Get("data", "points").MustList(t)
	for _, p := range timeline {
		if p.Get("events").Float() == 0 {
			t.Fatalf("a day of the demo month is empty: %v", p)
		}
	}
	e.Runner.Notify()
	escalated := 0
	for _, item := range e.Do("GET", "/api/tickets", token, nil).Must(t, http.StatusOK).Get("data").List() {
		tk := e.awaitTriage(token, item.Get("id").MustStr(t))
		if tk.Get("status").Str() == "escalated" {
			escalated++
		}
	}
	if escalated != 1 {
		t.Fatalf("%d demo tickets escalated, want 1", escalated)
	}
	for _, agent := range []string{"threat-researcher", "onboarding"} {
		runs := e.Do("GET", "/api/agents/"+agent+"/executions", token, nil).Must(t, http.StatusOK).Get("data").List()
		if len(runs) != 1 {
			t.Fatalf("%s demo runs: %v", agent, runs)
		}
		done := e.awaitRun(token, agent, runs[0].Get("agent_run_id").MustStr(t), "completed")
		// The demo's runs are ones the API itself would accept.
		params, _ := json.Marshal(done.Get("params").Any())
		e.Do("POST", "/api/agents/"+agent+"/execute", token, json.RawMessage(params)).Must(t, http.StatusAccepted)
		if out := done.Get("output").MustObject(t); agent == "threat-researcher" && (out.Get("target_type").Is("") || out.Get("events").MustObject(t).Get("count").Is(0)) {
			t.Fatalf("the demo's research found nothing: %v", out)
		}
	}
	// A completed audit of all four frameworks, with the demo's adopted
	// policies and attestations in it.
	audits := e.Do("GET", "/api/compliance/audits", token, nil).Must(t, http.StatusOK).Get("data").List()
	if len(audits) != 1 {
		t.Fatalf("demo audits: %v", audits)
	}
	audit := e.awaitAudit(token, audits[0].Get("report_id").MustStr(t))
	if len(audit.Get("frameworks").List()) != 4 || len(audit.Get("gaps").List()) == 0 {
		t.Fatalf("demo audit: %v", audit.Get("summary"))
	}
	for _, c := range [][3]string{{"soc2", "CC6.4", "pass"}, {"soc2", "CC8.1", "fail"}, {"cis", "16.1", "not_applicable"},
		{"hipaa", "164.310(a)(2)(ii)", "pass"}} {
		if got := controlOf(t, audit, c[0], c[1]); got.Get("result").Str() != c[2] || got.Get("basis").Str() != "attestation" {
			t.Fatalf("demo attestation %v: %v", c, got)
		}
	}
	for _, f := range e.Do("GET", "/api/compliance", token, nil).Must(t, http.StatusOK).Get("data", "frameworks").MustList(t) {
		if f.Get("last_audit_at").IsNull() || f.Get("completion_percentage").Float() == 0 {
			t.Fatalf("demo framework: %v", f)
		}
	}
	// Six real CVEs watched, enriched from the embedded NVD and KEV slices;
	// the inventory runs software some of them affect.
	watch := e.Do("GET", "/api/cve-watchlist?sort=score", token, nil).Must(t, http.StatusOK).Get("data").List()
	affected := 0
	for _, m := range watch {
		if m.Get("status").Str() != "enriched" || m.Get("kev").IsNull() || m.Get("cvss_score").IsNull() {
			t.Fatalf("demo watch entry: %v", m)
		}
		if len(m.Get("affected_assets").MustList(t)) > 0 {
			affected++
		}
	}
	if len(watch) != 6 || affected < 4 {
		t.Fatalf("demo watchlist: %d entries, %d with affected assets", len(watch), affected)
	}
	// Prospects, a completed hunter run, leads in several statuses with
	// their history; the account manager names the lead won this month.
	hunts := e.Do("GET", "/api/agents/msp-hunter/executions", token, nil).Must(t, http.StatusOK).Get("data").List()
	if len(hunts) != 1 || hunts[0].Get("status").Str() != "completed" {
		t.Fatalf("demo hunter runs: %v", hunts)
	}
	statuses := map[string]int{}
	for _, l := range e.Do("GET", "/api/outreach/leads?limit=100", token, nil).Must(t, http.StatusOK).Get("data").List() {
		statuses[l.Get("status").MustStr(t)]++
	}
	if statuses["won"] != 1 || statuses["lost"] != 1 || statuses["qualified"] != 1 || statuses["contacted"] != 1 || statuses["new"] == 0 {
		t.Fatalf("demo lead statuses: %v", statuses)
	}
	am := e.runToEnd(token, "account-manager", map[string]any{})
	if won := am.Get("output", "leads_won_this_month").List(); len(won) != 1 || !strings.Contains(am.Get("output_summary").Str(), "Buckeye Family Clinic") {
		t.Fatalf("account manager: %v %v", won, am.Get("output_summary"))
	}
	out.Reset()
	if err := demo.Create(context.Background(), e.Store, e.Clock.Now(), &out); err != nil || !strings.Contains(out.String(), "exists already") {
		t.Fatalf("second run: %v %s", err, out.String())
	}
	if again := e.Do("GET", "/api/events?limit=1", token, nil).Get("pagination", "total"); !again.Equal(events.Get("pagination", "total")) {
		t.Fatal("second run added events")
	}
}
