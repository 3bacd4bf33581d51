package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// seedAgentData gives an organization events, alerts and DNS telemetry
// that each agent has something specific to say about.
func seedAgentData(t testing.TB, e *env, admin apitest.Account) string {
	t.Helper()
	key := e.APIKey(admin, "write")
	seedDashboard(t, e, key)
	now := e.Clock.Now()
	e.ingest(key,
		map[string]any{"type": "threat_detected", "severity": "high", "timestamp": now.Add(-30 * time.Minute).Format(time.RFC3339),
			"source": "suricata", "asset": "ws-07", "message": "ET SCAN Potential SSH Scan OUTBOUND", "indicator": "198.51.100.23"},
		map[string]any{"type": "threat_detected", "severity": "medium", "timestamp": now.Add(-20 * time.Minute).Format(time.RFC3339),
			"source": "suricata", "asset": "ws-09", "message": "ET SCAN Potential SSH Scan OUTBOUND", "indicator": "198.51.100.23"},
	).Must(t, http.StatusCreated)
	at := now.Add(-10 * time.Minute).Format(time.RFC3339)
	e.postWebhook("native", key, "application/json", mustJSON(map[string]any{"dns": []map[string]string{
		{"timestamp": at, "client": "10.0.0.4", "domain": "beacon.test-c2.testpanw.com", "qtype": "A"},
		{"timestamp": at, "client": "10.0.0.5", "domain": "www.example.org", "qtype": "A"},
	}})).Must(t, http.StatusCreated)
	return key
}

func TestThreatResearcherOutput(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	seedAgentData(t, e, admin)

	run := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "198.51.100.23"})
	out := run.Get("output")
	ev := out.Get("events")
	if out.Get("target_type").Str() != "ip" || ev.Get("count").Float() != 2 || strings.Join(ev.Get("assets").Strings(), ",") != "ws-07,ws-09" ||
		ev.Get("last_24h").Float() != 2 || ev.Get("by_severity", "high").Float() != 1 {
		t.Fatalf("events: %v", ev)
	}
	if len(out.Get("alerts").List()) != 1 || out.Get("alerts", "0", "status").Str() != "open" {
		t.Fatalf("alerts: %v", out.Get("alerts"))
	}
	techniques := out.Get("mitre_attack", "techniques").List()
	if len(techniques) == 0 || techniques[0].Get("id").Str() != "T1046" || techniques[0].Get("events").Float() != 2 {
		t.Fatalf("techniques: %v", techniques)
	}
	risk := out.Get("risk")
	// high events 30 + one open alert 10 + two assets 10 + last 24h 10 + techniques 5
	if risk.Get("score").Float() != 65 || risk.Get("rating").Str() != "high" || len(risk.Get("factors").List()) != 5 {
		t.Fatalf("risk: %v", risk)
	}
	recs := out.Get("recommendations").Strings()
	if !strings.Contains(recs[0], "open alerts about 198.51.100.23") || !strings.Contains(strings.Join(recs, " "), "Block 198.51.100.23 at the perimeter") {
		t.Fatalf("recommendations: %v", recs)
	}
	// The store holds no CVE of this address: available, nothing matched.
	cves := out.Get("cves")
	if !cves.Get("available").Bool() || len(cves.Get("matches").MustList(t)) != 0 {
		t.Fatalf("cves: %v", cves)
	}
	if !strings.Contains(run.Get("output_summary").Str(), "2 matching events") || !strings.Contains(run.Get("output_summary").Str(), "Risk is high (65/100)") {
		t.Fatalf("summary: %v", run.Get("output_summary"))
	}

	t.Run("malware domain seen only in DNS", func(t *testing.T) {
		run := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "test-c2.testpanw.com", "options": map[string]bool{"mitre_mapping": false}})
		out := run.Get("output")
		dns := out.Get("dns")
		if out.Get("target_type").Str() != "domain" || dns.Get("queries").Float() != 1 || dns.Get("blocklist_category").Str() != "malware" || !out.Get("mitre_attack").IsNull() {
			t.Fatalf("domain research: %v", out)
		}
		if recs := out.Get("recommendations").Strings(); !strings.Contains(recs[0], "known malware domain") {
			t.Fatalf("recommendations: %v", recs)
		}
	})
	t.Run("CVE maps to ATT&CK from the embedded mappings", func(t *testing.T) {
		out := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "cve-2024-34102"}).Get("output")
		techniques := out.Get("mitre_attack", "techniques").List()
		if out.Get("target_type").Str() != "cve" || len(techniques) == 0 || !strings.Contains(strings.Join(techniques[0].Get("evidence").Strings(), " "), "CTID mapping") {
			t.Fatalf("cve research: %v", out)
		}
	})
	t.Run("nothing seen", func(t *testing.T) {
		out := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "d41d8cd98f00b204e9800998ecf8427e"}).Get("output")
		if out.Get("target_type").Str() != "hash" || out.Get("risk", "rating").Str() != "none" {
			t.Fatalf("hash research: %v", out)
		}
	})
}

func TestComplianceAccountOnboardingOutput(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	seedAgentData(t, e, admin)
	e.submitTicket(admin.Token, "Printer offline", "The printer on floor 2 shows offline and nobody can print.", "medium")

	// The compliance agent's run is an audit; its output names the report
	// and the worst gaps: the admin's unconfirmed address (high) first.
	run := e.runToEnd(admin.Token, "compliance", map[string]any{"framework": "hipaa"})
	comp := run.Get("output")
	hipaa := comp.Get("summary", "hipaa")
	worst := comp.Get("worst_gaps").List()
	if !strings.HasPrefix(comp.Get("report_id").Str(), "rpt_") || strings.Join(comp.Get("frameworks").Strings(), ",") != "hipaa" ||
		hipaa.Get("controls_total").Float() != 70 || hipaa.Get("failed").Float() < 2 || len(worst) != 3 ||
		worst[0].Get("control_id").Str() != "164.312(d)" || worst[0].Get("severity").Str() != "high" {
		t.Fatalf("compliance output: %v", comp)
	}
	if s := run.Get("output_summary").Str(); !strings.Contains(s, "HIPAA Security Rule") || !strings.Contains(s, "164.312(d)") {
		t.Fatalf("compliance summary: %s", s)
	}
	audit := e.Do("GET", "/api/compliance/audits/"+comp.Get("report_id").Str(), admin.Token, nil).Must(t, http.StatusOK).Get("data")
	if audit.Get("status").Str() != "completed" || !audit.Get("agent_run_id").Equal(run.Get("agent_run_id")) {
		t.Fatalf("the run's audit: %v", audit.Get("status"))
	}

	manager := e.runToEnd(admin.Token, "account-manager", nil).Get("output")
	if manager.Get("plan").Str() != "starter" || manager.Get("open_alerts", "critical").Float() != 1 ||
		manager.Get("tickets", "open").Float() < 1 || manager.Get("compliance", "checks_passed").Float() != 12 ||
		manager.Get("compliance", "checks_failed").Float() != 2 {
		t.Fatalf("account manager: %v", manager)
	}
	// Score 62 (D: the HIPAA audit counts in it, 9 of its 69 applicable
	// controls passing, 13%) is the one
	// renewal-risk point; DNS reports and no alert is overdue; two checks
	// fail (the address, a key without expiry): a compliance package to offer.
	risk := manager.Get("renewal_risk")
	upsells := manager.Get("upsell_signals").List()
	if manager.Get("security_score", "score").Float() != 62 || risk.Get("level").Str() != "low" ||
		strings.Join(risk.Get("reasons").Strings(), ";") != "security score 62 is below 75" || len(upsells) != 1 ||
		upsells[0].Get("signal").Str() != "2 control checks fail" ||
		manager.Get("risk_trend", "trend").Str() != "stable" {
		t.Fatalf("account manager: %v", manager)
	}
	quiet := e.Register("zoe@quiet.test", "Quiet")
	upsell := e.runToEnd(quiet.Token, "account-manager", nil).Get("output", "upsell_signals").List()
	// No DNS telemetry, and three checks fail (address, monitoring, DNS).
	if len(upsell) != 2 || upsell[0].Get("offer").Str() != "Managed DNS filtering" ||
		upsell[1].Get("signal").Str() != "3 control checks fail" {
		t.Fatalf("upsell for an organization without DNS telemetry: %v", upsell)
	}

	onb := e.runToEnd(admin.Token, "onboarding", nil).Get("output")
	done := map[string]string{}
	for _, m := range onb.Get("checklist").MustList(t) {
		done[m.Get("id").MustStr(t)] = m.Get("status").MustStr(t)
	}
	if done["api_key"] != "done" || done["event_source"] != "done" || done["dns_telemetry"] != "done" || done["agent_run"] != "done" ||
		done["frameworks_audited"] != "done" || done["team_invited"] != "pending" || done["cves_watched"] != "pending" {
		t.Fatalf("checklist: %v", done)
	}
	if onb.Get("percent_complete").Float() != 55 || onb.Get("applicable").Float() != 9 || onb.Get("next_steps").Strings()[0] != "Invite colleagues in Settings → Members and invites, with their e-mail address and a role." {
		t.Fatalf("onboarding: %v", onb)
	}
	// Watching a CVE (pending until intelligence arrives) is the step done.
	e.Do("POST", "/api/cve-watchlist", admin.Token, map[string]any{"cve_id": "CVE-2010-2883"}).Must(t, http.StatusCreated)
	onb = e.runToEnd(admin.Token, "onboarding", nil).Get("output")
	for _, it := range onb.Get("checklist").MustList(t) {
		if m := it.MustObject(t); m.Get("id").Str() == "cves_watched" &&
			(m.Get("status").Str() != "done" || m.Get("detail").Str() != "1 CVE watched, 0 of them affecting an asset of the inventory.") {
			t.Fatalf("cves_watched after a watch: %v", m)
		}
	}
	if onb.Get("percent_complete").Float() != 66 {
		t.Fatalf("onboarding after a watch: %v", onb)
	}

	sup := e.runToEnd(admin.Token, "tech-support", map[string]any{"prompt": "Outlook keeps asking for my MFA code and the authenticator app shows nothing"})
	tri := sup.Get("output", "triage")
	if tri.Get("category").Str() != "mfa" || !sup.Get("output", "ticket_id").IsNull() {
		t.Fatalf("tech support on a prompt: %v", sup.Get("output"))
	}
	stats := e.Do("GET", "/api/dashboard/stats", admin.Token, nil).Must(t, 200).Data()
	if stats["agents_active"] != 0.0 {
		t.Fatalf("agents active after every run ended: %v", stats)
	}
}
