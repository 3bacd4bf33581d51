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
	out := run["output"].(map[string]any)
	ev := out["events"].(map[string]any)
	if out["target_type"] != "ip" || ev["count"] != 2.0 || strings.Join(toStrings(ev["assets"]), ",") != "ws-07,ws-09" ||
		ev["last_24h"] != 2.0 || ev["by_severity"].(map[string]any)["high"] != 1.0 {
		t.Fatalf("events: %v", ev)
	}
	if len(out["alerts"].([]any)) != 1 || out["alerts"].([]any)[0].(map[string]any)["status"] != "open" {
		t.Fatalf("alerts: %v", out["alerts"])
	}
	techniques := out["mitre_attack"].(map[string]any)["techniques"].([]any)
	if len(techniques) == 0 || techniques[0].(map[string]any)["id"] != "T1046" || techniques[0].(map[string]any)["events"] != 2.0 {
		t.Fatalf("techniques: %v", techniques)
	}
	risk := out["risk"].(map[string]any)
	// high events 30 + one open alert 10 + two assets 10 + last 24h 10 + techniques 5
	if risk["score"] != 65.0 || risk["rating"] != "high" || len(risk["factors"].([]any)) != 5 {
		t.Fatalf("risk: %v", risk)
	}
	recs := toStrings(out["recommendations"])
	if !strings.Contains(recs[0], "open alerts about 198.51.100.23") || !strings.Contains(strings.Join(recs, " "), "Block 198.51.100.23 at the perimeter") {
		t.Fatalf("recommendations: %v", recs)
	}
	// The store holds no CVE of this address: available, nothing matched.
	cves := out["cves"].(map[string]any)
	if cves["available"] != true || len(cves["matches"].([]any)) != 0 {
		t.Fatalf("cves: %v", cves)
	}
	if !strings.Contains(run["output_summary"].(string), "2 matching events") || !strings.Contains(run["output_summary"].(string), "Risk is high (65/100)") {
		t.Fatalf("summary: %v", run["output_summary"])
	}

	t.Run("malware domain seen only in DNS", func(t *testing.T) {
		run := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "test-c2.testpanw.com", "options": map[string]bool{"mitre_mapping": false}})
		out := run["output"].(map[string]any)
		dns := out["dns"].(map[string]any)
		if out["target_type"] != "domain" || dns["queries"] != 1.0 || dns["blocklist_category"] != "malware" || out["mitre_attack"] != nil {
			t.Fatalf("domain research: %v", out)
		}
		if recs := toStrings(out["recommendations"]); !strings.Contains(recs[0], "known malware domain") {
			t.Fatalf("recommendations: %v", recs)
		}
	})
	t.Run("CVE maps to ATT&CK from the embedded mappings", func(t *testing.T) {
		out := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "cve-2024-34102"})["output"].(map[string]any)
		techniques := out["mitre_attack"].(map[string]any)["techniques"].([]any)
		if out["target_type"] != "cve" || len(techniques) == 0 || !strings.Contains(strings.Join(toStrings(techniques[0].(map[string]any)["evidence"]), " "), "CTID mapping") {
			t.Fatalf("cve research: %v", out)
		}
	})
	t.Run("nothing seen", func(t *testing.T) {
		out := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "d41d8cd98f00b204e9800998ecf8427e"})["output"].(map[string]any)
		if out["target_type"] != "hash" || out["risk"].(map[string]any)["rating"] != "none" {
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
	comp := run["output"].(map[string]any)
	hipaa := comp["summary"].(map[string]any)["hipaa"].(map[string]any)
	worst := comp["worst_gaps"].([]any)
	if !strings.HasPrefix(comp["report_id"].(string), "rpt_") || strings.Join(toStrings(comp["frameworks"]), ",") != "hipaa" ||
		hipaa["controls_total"] != 70.0 || hipaa["failed"].(float64) < 2 || len(worst) != 3 ||
		worst[0].(map[string]any)["control_id"] != "164.312(d)" || worst[0].(map[string]any)["severity"] != "high" {
		t.Fatalf("compliance output: %v", comp)
	}
	if s := run["output_summary"].(string); !strings.Contains(s, "HIPAA Security Rule") || !strings.Contains(s, "164.312(d)") {
		t.Fatalf("compliance summary: %s", s)
	}
	audit := e.Do("GET", "/api/compliance/audits/"+comp["report_id"].(string), admin.Token, nil).Must(t, http.StatusOK).Data()
	if audit["status"] != "completed" || audit["agent_run_id"] != run["agent_run_id"] {
		t.Fatalf("the run's audit: %v", audit["status"])
	}

	manager := e.runToEnd(admin.Token, "account-manager", nil)["output"].(map[string]any)
	if manager["plan"] != "starter" || manager["open_alerts"].(map[string]any)["critical"] != 1.0 ||
		manager["tickets"].(map[string]any)["open"].(float64) < 1 || manager["compliance"].(map[string]any)["checks_passed"] != 12.0 ||
		manager["compliance"].(map[string]any)["checks_failed"] != 2.0 {
		t.Fatalf("account manager: %v", manager)
	}
	// Score 66 (D: the HIPAA audit's gaps now count in it) is the one
	// renewal-risk point; DNS reports and no alert is overdue; two checks
	// fail (the address, a key without expiry): a compliance package to offer.
	risk := manager["renewal_risk"].(map[string]any)
	upsells := manager["upsell_signals"].([]any)
	if manager["security_score"].(map[string]any)["score"] != 66.0 || risk["level"] != "low" ||
		strings.Join(toStrings(risk["reasons"]), ";") != "security score 66 is below 75" || len(upsells) != 1 ||
		upsells[0].(map[string]any)["signal"] != "2 control checks fail" ||
		manager["risk_trend"].(map[string]any)["trend"] != "stable" {
		t.Fatalf("account manager: %v", manager)
	}
	quiet := e.Register("zoe@quiet.test", "Quiet")
	upsell := e.runToEnd(quiet.Token, "account-manager", nil)["output"].(map[string]any)["upsell_signals"].([]any)
	// No DNS telemetry, and three checks fail (address, monitoring, DNS).
	if len(upsell) != 2 || upsell[0].(map[string]any)["offer"] != "Managed DNS filtering" ||
		upsell[1].(map[string]any)["signal"] != "3 control checks fail" {
		t.Fatalf("upsell for an organization without DNS telemetry: %v", upsell)
	}

	onb := e.runToEnd(admin.Token, "onboarding", nil)["output"].(map[string]any)
	done := map[string]string{}
	for _, it := range onb["checklist"].([]any) {
		m := it.(map[string]any)
		done[m["id"].(string)] = m["status"].(string)
	}
	if done["api_key"] != "done" || done["event_source"] != "done" || done["dns_telemetry"] != "done" || done["agent_run"] != "done" ||
		done["frameworks_audited"] != "done" || done["team_invited"] != "pending" || done["cves_watched"] != "pending" {
		t.Fatalf("checklist: %v", done)
	}
	if onb["percent_complete"] != 55.0 || onb["applicable"] != 9.0 || toStrings(onb["next_steps"])[0] != "Invite colleagues with POST /api/org/invites (email, role)." {
		t.Fatalf("onboarding: %v", onb)
	}
	// Watching a CVE (pending until intelligence arrives) is the step done.
	e.Do("POST", "/api/cve-watchlist", admin.Token, map[string]any{"cve_id": "CVE-2010-2883"}).Must(t, http.StatusCreated)
	onb = e.runToEnd(admin.Token, "onboarding", nil)["output"].(map[string]any)
	for _, it := range onb["checklist"].([]any) {
		if m := it.(map[string]any); m["id"] == "cves_watched" &&
			(m["status"] != "done" || m["detail"] != "1 CVE watched, 0 of them affecting an asset of the inventory.") {
			t.Fatalf("cves_watched after a watch: %v", m)
		}
	}
	if onb["percent_complete"] != 66.0 {
		t.Fatalf("onboarding after a watch: %v", onb)
	}

	sup := e.runToEnd(admin.Token, "tech-support", map[string]any{"prompt": "Outlook keeps asking for my MFA code and the authenticator app shows nothing"})
	tri := sup["output"].(map[string]any)["triage"].(map[string]any)
	if tri["category"] != "mfa" || sup["output"].(map[string]any)["ticket_id"] != nil {
		t.Fatalf("tech support on a prompt: %v", sup["output"])
	}
	stats := e.Do("GET", "/api/dashboard/stats", admin.Token, nil).Must(t, 200).Data()
	if stats["agents_active"] != 0.0 {
		t.Fatalf("agents active after every run ended: %v", stats)
	}
}

func toStrings(v any) []string {
	var out []string
	items, _ := v.([]any)
	for _, it := range items {
		s, _ := it.(string)
		out = append(out, s)
	}
	return out
}
