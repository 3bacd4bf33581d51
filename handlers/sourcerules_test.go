package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Zeek logs, syslog lines and the Windows events Wazuh forwards run the
// shipped rules written for them, as Windows events do: a Zeek dce_rpc record Garrison otherwise skips is
// kept when a rule fires on it, a DNS lookup a rule fires on is stored as
// the query and as the event its alert names, and a syslog line opens the
// alert of its program's rule; each alert keeps its rule's author. A set
// turned off skips its records again.
func TestZeekAndSyslogRulesOpenAlerts(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "admin")
	ts := float64(e.Clock.Now().Add(-2 * time.Minute).Unix())
	rpc := func(operation string) string {
		return fmt.Sprintf(`{"@stream":"dce_rpc","ts":%.3f,"uid":"CDQRH83UIpbjplJKBc","id_orig_h":"10.0.1.4","id_orig_p":60620,`+
			`"id_resp_h":"10.0.0.4","id_resp_p":135,"named_pipe":"135","endpoint":"spoolss","operation":%q}`, ts, operation)
	}
	dns := func(query string) string {
		return fmt.Sprintf(`{"@stream":"dns","ts":%.3f,"uid":"Ca1","id_orig_h":"10.0.1.7","id_orig_p":51234,"id_resp_h":"10.0.0.4",`+
			`"id_resp_p":53,"proto":"udp","query":%q,"qtype_name":"A","rcode_name":"NOERROR","Z":0}`, ts, query)
	}
	body := strings.Join([]string{rpc("RpcAddMonitor"), rpc("RpcOpenPrinter"), dns("x7k2.oast.fun"), dns("www.example.com")}, "\n")
	r := e.postWebhook("zeek", key, "application/x-ndjson", []byte(body)).Must(t, http.StatusCreated)
	if r.Get("data", "count").Int() != 2 || r.Get("data", "dns_queries").Int() != 2 || r.Get("data", "skipped").Int() != 1 {
		t.Fatalf("zeek receipt: %s", r.Raw)
	}
	bzar, ok := ruleAlerts(e, key, "53389db6-ba46-48e3-a94c-e0f2cefe1583")["10.0.0.4"]
	if !ok || bzar.Get("severity").Str() != "medium" || bzar.Get("rule", "author").Str() != "@neu5ron, SOC Prime" {
		t.Fatalf("the BZAR alert: %v", bzar)
	}
	oast, ok := ruleAlerts(e, key, "aff715fa-4dd5-497a-8db3-910bea555566")["10.0.1.7"]
	if !ok || oast.Get("severity").Str() != "high" || oast.Get("indicator").Str() != "x7k2.oast.fun" {
		t.Fatalf("the DNS alert: %v", oast)
	}

	syslog := "<78>Nov 20 10:00:00 web1 crontab[2031]: (root) REPLACE (root)\n<78>Nov 20 10:00:01 web1 crontab[2031]: (root) LIST (root)\n"
	syslog = strings.ReplaceAll(syslog, "Nov 20", e.Clock.Now().UTC().Format("Jan _2"))
	e.postWebhook("syslog", key, "text/plain", []byte(syslog)).Must(t, http.StatusCreated)
	cron, ok := ruleAlerts(e, key, "af202fd3-7bff-4212-a25a-fb34606cfcbe")["web1"]
	if !ok || cron.Get("event_count").Int() != 1 || cron.Get("rule", "author").Str() != "Pawel Mazur" {
		t.Fatalf("the crontab alert: %v", cron)
	}

	// A Windows event Wazuh forwards reads as one.
	wazuh := fmt.Sprintf(`{"timestamp":%q,"rule":{"level":3,"id":"61603","description":"Sysmon - Event 1","groups":["sysmon"]},`+
		`"agent":{"id":"004","name":"ws-9"},"data":{"win":{"system":{"eventID":"1","channel":"Microsoft-Windows-Sysmon/Operational",`+
		`"providerName":"Microsoft-Windows-Sysmon","computer":"ws-9"},"eventdata":{"image":"C:\\Windows\\System32\\sc.exe",`+
		`"originalFileName":"sc.exe","commandLine":"sc.exe stop WinDefend","parentImage":"C:\\Windows\\System32\\cmd.exe"}}}}`,
		e.Clock.Now().Add(-time.Minute).UTC().Format("2006-01-02T15:04:05.000-0700"))
	e.postWebhook("wazuh", key, "application/x-ndjson", []byte(wazuh)).Must(t, http.StatusCreated)
	defender, ok := ruleAlerts(e, key, "a7ee1722-c3c5-aeff-3212-c777e4733217")["ws-9"]
	if !ok || defender.Get("severity").Str() != "high" || defender.Get("rule", "author").Str() != "ok @securonix invrep-de, oscd.community, frack113" {
		t.Fatalf("the Wazuh-forwarded event's alert: %v", defender)
	}

	e.Do("PUT", "/api/detection-rule-sets/network.zeek", key, map[string]any{"enabled": false}).Must(t, http.StatusOK)
	r = e.postWebhook("zeek", key, "application/x-ndjson", []byte(rpc("RpcAddMonitor"))).Must(t, http.StatusCreated)
	if r.Get("data", "count").Int() != 0 || r.Get("data", "skipped").Int() != 1 {
		t.Fatalf("with network.zeek off: %s", r.Raw)
	}
}
