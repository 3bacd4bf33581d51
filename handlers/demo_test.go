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
	if events.Body["pagination"].(map[string]any)["total"].(float64) < 30*150 {
		t.Fatalf("too few demo events: %v", events.Body["pagination"])
	}
	open, resolved := e.alerts(token, "status=open"), e.alerts(token, "status=resolved")
	if len(open) == 0 || len(resolved) == 0 {
		t.Fatalf("demo alerts: %d open, %d resolved", len(open), len(resolved))
	}
	// Alerts are dated by their events, not by the seeding.
	for _, m := range append(open, resolved...) {
		if m["created_at"].(string) > m["first_seen"].(string) || (m["status"] == "resolved" && m["updated_at"].(string) < m["last_seen"].(string)) {
			t.Fatalf("a demo alert's dates contradict its events: %v", m)
		}
	}
	nh := e.Do("GET", "/api/dashboard/network-health", token, nil).Must(t, http.StatusOK).Data()
	if nh["dns"].(map[string]any)["7d"].(map[string]any)["blocked_trackers"].(float64) == 0 {
		t.Fatalf("no blocked trackers in the demo: %v", nh["dns"])
	}
	timeline := e.Do("GET", "/api/dashboard/risk-timeline", token, nil).Must(t, http.StatusOK).Data()["points"].([]any)
	for _, p := range timeline {
		if p.(map[string]any)["events"].(float64) == 0 {
			t.Fatalf("a day of the demo month is empty: %v", p)
		}
	}
	e.Runner.Notify()
	escalated := 0
	for _, item := range e.Do("GET", "/api/tickets", token, nil).Must(t, http.StatusOK).List() {
		tk := e.awaitTriage(token, item.(map[string]any)["id"].(string))
		if tk["status"] == "escalated" {
			escalated++
		}
	}
	if escalated != 1 {
		t.Fatalf("%d demo tickets escalated, want 1", escalated)
	}
	for _, agent := range []string{"threat-researcher", "onboarding"} {
		runs := e.Do("GET", "/api/agents/"+agent+"/executions", token, nil).Must(t, http.StatusOK).List()
		if len(runs) != 1 {
			t.Fatalf("%s demo runs: %v", agent, runs)
		}
		done := e.awaitRun(token, agent, runs[0].(map[string]any)["agent_run_id"].(string), "completed")
		// The demo's runs are ones the API itself would accept.
		params, _ := json.Marshal(done["params"])
		e.Do("POST", "/api/agents/"+agent+"/execute", token, json.RawMessage(params)).Must(t, http.StatusAccepted)
		if out := done["output"].(map[string]any); agent == "threat-researcher" && (out["target_type"] == "" || out["events"].(map[string]any)["count"] == 0.0) {
			t.Fatalf("the demo's research found nothing: %v", out)
		}
	}
	// A completed audit of all four frameworks, with the demo's adopted
	// policies and attestations in it.
	audits := e.Do("GET", "/api/compliance/audits", token, nil).Must(t, http.StatusOK).List()
	if len(audits) != 1 {
		t.Fatalf("demo audits: %v", audits)
	}
	audit := e.awaitAudit(token, audits[0].(map[string]any)["report_id"].(string))
	if len(audit["frameworks"].([]any)) != 4 || len(audit["gaps"].([]any)) == 0 {
		t.Fatalf("demo audit: %v", audit["summary"])
	}
	for _, c := range [][3]string{{"soc2", "CC6.4", "pass"}, {"soc2", "CC8.1", "fail"}, {"cis", "16.1", "not_applicable"},
		{"hipaa", "164.310(a)(2)(ii)", "pass"}} {
		if got := controlOf(audit, c[0], c[1]); got["result"] != c[2] || got["basis"] != "attestation" {
			t.Fatalf("demo attestation %v: %v", c, got)
		}
	}
	for _, fw := range e.Do("GET", "/api/compliance", token, nil).Must(t, http.StatusOK).Data()["frameworks"].([]any) {
		if f := fw.(map[string]any); f["last_audit_at"] == nil || f["completion_percentage"].(float64) == 0 {
			t.Fatalf("demo framework: %v", f)
		}
	}
	// Six real CVEs watched, enriched from the embedded NVD and KEV slices;
	// the inventory runs software some of them affect.
	watch := e.Do("GET", "/api/cve-watchlist?sort=score", token, nil).Must(t, http.StatusOK).List()
	affected := 0
	for _, w := range watch {
		m := w.(map[string]any)
		if m["status"] != "enriched" || m["kev"] == nil || m["cvss_score"] == nil {
			t.Fatalf("demo watch entry: %v", m)
		}
		if len(m["affected_assets"].([]any)) > 0 {
			affected++
		}
	}
	if len(watch) != 6 || affected < 4 {
		t.Fatalf("demo watchlist: %d entries, %d with affected assets", len(watch), affected)
	}
	// Prospects, a completed hunter run, leads in several statuses with
	// their history; the account manager names the lead won this month.
	hunts := e.Do("GET", "/api/agents/msp-hunter/executions", token, nil).Must(t, http.StatusOK).List()
	if len(hunts) != 1 || hunts[0].(map[string]any)["status"] != "completed" {
		t.Fatalf("demo hunter runs: %v", hunts)
	}
	statuses := map[string]int{}
	for _, l := range e.Do("GET", "/api/outreach/leads?limit=100", token, nil).Must(t, http.StatusOK).List() {
		statuses[l.(map[string]any)["status"].(string)]++
	}
	if statuses["won"] != 1 || statuses["lost"] != 1 || statuses["qualified"] != 1 || statuses["contacted"] != 1 || statuses["new"] == 0 {
		t.Fatalf("demo lead statuses: %v", statuses)
	}
	am := e.runToEnd(token, "account-manager", map[string]any{})
	if won := am["output"].(map[string]any)["leads_won_this_month"].([]any); len(won) != 1 || !strings.Contains(am["output_summary"].(string), "Buckeye Family Clinic") {
		t.Fatalf("account manager: %v %v", won, am["output_summary"])
	}
	out.Reset()
	if err := demo.Create(context.Background(), e.Store, e.Clock.Now(), &out); err != nil || !strings.Contains(out.String(), "exists already") {
		t.Fatalf("second run: %v %s", err, out.String())
	}
	if again := e.Do("GET", "/api/events?limit=1", token, nil).Body["pagination"].(map[string]any)["total"]; again != events.Body["pagination"].(map[string]any)["total"] {
		t.Fatal("second run added events")
	}
}
