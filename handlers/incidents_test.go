package handlers_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// incidentsOf lists the organization's incidents.
func (e *env) incidents(key, query string) []apitest.JSON {
	e.T.Helper()
	return e.Do("GET", "/api/incidents?limit=200&"+query, key, nil).Must(e.T, http.StatusOK).Get("data").List()
}

// One scanner trying 54 signatures on one server within 11 minutes (real
// CCDC capture, testdata/eve/SOURCES.md) is one incident, every alert it
// raised a member.
func TestScannerIsOneIncident(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	body := bytes.ReplaceAll(readTestdata(t, "testdata/eve/ccdc_scanner.jsonl"), []byte("2015-03-17T02:"), []byte("2026-11-21T05:"))
	e.postWebhook("suricata", key, "application/x-ndjson", body).Must(t, http.StatusCreated)

	alerts := e.alerts(key, "limit=200")
	incidents := e.incidents(key, "")
	if len(incidents) != 1 || len(alerts) < 2 {
		t.Fatalf("%d alerts, incidents %v", len(alerts), incidents)
	}
	in := incidents[0]
	for _, a := range alerts {
		if a.Get("incident_id").Str() != in.Get("id").Str() {
			t.Errorf("alert %s (%s) is not in the incident", a.Get("title").Str(), a.Get("incident_id").Any())
		}
	}
	want := map[string]any{"attacker": "54.235.163.229", "attacker_kind": "ip", "status": "open", "severity": "critical",
		"alert_count": float64(len(alerts)), "first_seen": "2026-11-21T11:14:52Z", "last_seen": "2026-11-21T11:25:56Z"}
	for k, v := range want {
		if got := in.Get(k).Any(); got != v {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
	if assets := in.Get("assets").Strings(); strings.Join(assets, ",") != "192.168.0.2" {
		t.Errorf("assets %v", assets)
	}
	// The trojan signature's alert stands for command and control; the
	// burst of the rest for no tactic.
	if tactics := in.Get("tactics").Strings(); strings.Join(tactics, ",") != "command-and-control" {
		t.Errorf("tactics %v", tactics)
	}
	detail := e.Do("GET", "/api/incidents/"+in.Get("id").Str(), key, nil).Must(t, http.StatusOK)
	timeline := detail.Get("data", "alerts").List()
	if len(timeline) != len(alerts) {
		t.Fatalf("timeline of %d alerts, want %d", len(timeline), len(alerts))
	}
	for i := 1; i < len(timeline); i++ {
		if timeline[i].Get("first_seen").Str() < timeline[i-1].Get("first_seen").Str() {
			t.Errorf("the timeline is not oldest first: %s after %s", timeline[i].Get("first_seen").Str(), timeline[i-1].Get("first_seen").Str())
		}
	}
}

// beacon is an EVE alert of an internal host calling its command and
// control server.
func beacon(host, server string, at time.Time) string {
	return fmt.Sprintf(`{"timestamp":"%s","event_type":"alert","src_ip":"%s","src_port":49152,"dest_ip":"%s","dest_port":443,`+
		`"proto":"TCP","alert":{"action":"allowed","signature_id":2035000,"signature":"ET CNC Cobalt Strike Beacon Observed",`+
		`"category":"A Network Trojan was detected","severity":1}}`, at.UTC().Format("2006-01-02T15:04:05.000000Z"), host, server)
}

// The same beacon on two hosts is two alerts (one per host) and one
// incident: the server they call is the attacker.
func TestBeaconOnTwoHostsIsOneIncident(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	other := e.APIKey(e.Register("eve@evil.test", "Evil"), "write")
	now := e.Clock.Now()
	body := beacon("10.0.0.5", "198.51.100.9", now.Add(-50*time.Minute)) + "\n" + beacon("10.0.0.6", "198.51.100.9", now.Add(-20*time.Minute)) + "\n" +
		beacon("10.0.0.7", "203.0.113.80", now.Add(-10*time.Minute)) + "\n"
	e.postWebhook("suricata", key, "application/x-ndjson", []byte(body)).Must(t, http.StatusCreated)
	e.postWebhook("suricata", other, "application/x-ndjson", []byte(beacon("10.0.0.5", "198.51.100.9", now.Add(-5*time.Minute)))).
		Must(t, http.StatusCreated)

	incidents := e.incidents(key, "")
	if len(incidents) != 2 {
		t.Fatalf("incidents %v", incidents)
	}
	in := incidents[1] // most recently active first: the lone one is newer
	if in.Get("attacker").Str() != "198.51.100.9" || in.Get("alert_count").Int() != 2 || in.Get("severity").Str() != "critical" ||
		strings.Join(in.Get("assets").Strings(), ",") != "10.0.0.5,10.0.0.6" ||
		strings.Join(in.Get("tactics").Strings(), ",") != "command-and-control" {
		t.Fatalf("incident %s", in)
	}
	if lone := incidents[0]; lone.Get("attacker").Str() != "203.0.113.80" || lone.Get("alert_count").Int() != 1 {
		t.Fatalf("lone incident %s", lone)
	}
	// Another organization's beacon to the same server is its own.
	if got := e.incidents(other, ""); len(got) != 1 || got[0].Get("alert_count").Int() != 1 {
		t.Fatalf("the other organization's incidents %v", got)
	}
	e.Do("GET", "/api/incidents/"+in.Get("id").Str(), other, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")

	// A day later, the server's beacon on a third host opens a new
	// incident; resolving an incident's alerts resolves it.
	e.Clock.Advance(25 * time.Hour)
	e.postWebhook("suricata", key, "application/x-ndjson", []byte(beacon("10.0.0.8", "198.51.100.9", e.Clock.Now()))).
		Must(t, http.StatusCreated)
	if got := e.incidents(key, ""); len(got) != 3 || got[0].Get("alert_count").Int() != 1 || got[0].Get("id").Str() == in.Get("id").Str() {
		t.Fatalf("after a day: %v", got)
	}
	for _, a := range e.alerts(key, "limit=200") {
		if a.Get("incident_id").Str() == in.Get("id").Str() {
			e.Do("PATCH", "/api/alerts/"+a.Get("id").Str(), key, map[string]any{"status": "resolved", "disposition": "true_positive"}).
				Must(t, http.StatusOK)
		}
	}
	if got := e.incidents(key, "status=resolved"); len(got) != 1 || got[0].Get("id").Str() != in.Get("id").Str() {
		t.Fatalf("resolved incidents %v", got)
	}
	if got := e.incidents(key, "status=open"); len(got) != 2 {
		t.Fatalf("open incidents %v", got)
	}
	e.Do("GET", "/api/incidents?status=closed", key, nil).WantError(t, http.StatusBadRequest, "validation_error",
		"Invalid request: status must be open or resolved")
	e.Do("GET", "/api/incidents/inc_nope", key, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
}

// sshd lines of one host at the test clock's time, minutes apart.
func sshLines(e *env, lines ...string) []byte {
	var b strings.Builder
	at := e.Clock.Now().Add(-time.Duration(len(lines)+1) * time.Minute)
	for i, l := range lines {
		fmt.Fprintf(&b, "<38>%s bastion sshd[%d]: %s\n", at.Add(time.Duration(i)*time.Minute).Format(time.Stamp), 4000+i, l)
	}
	return []byte(b.String())
}

// Five failed sign-ins then a success, for one account or from one
// address, within ten minutes: an alert; four are not enough.
func TestFailedThenSuccessfulSignIn(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	failed := func(user, from string) string {
		return "Failed password for " + user + " from " + from + " port 50022 ssh2"
	}
	accepted := func(user, from string) string {
		return "Accepted password for " + user + " from " + from + " port 50022 ssh2"
	}
	sequences := func() []apitest.JSON {
		var out []apitest.JSON
		for _, a := range e.alerts(key, "limit=200") {
			if strings.HasPrefix(a.Get("title").Str(), "Successful sign-in after") {
				out = append(out, a)
			}
		}
		return out
	}
	// Four failures then a success: nothing.
	e.postWebhook("syslog", key, "text/plain", sshLines(e, failed("bob", "203.0.113.7"), failed("bob", "203.0.113.7"),
		failed("bob", "203.0.113.7"), failed("bob", "203.0.113.7"), accepted("bob", "203.0.113.7"))).Must(t, http.StatusCreated)
	if got := sequences(); len(got) != 0 {
		t.Fatalf("four failures raised %v", got)
	}
	// Five, across two bodies, for one account from several addresses.
	e.postWebhook("syslog", key, "text/plain", sshLines(e, failed("alice", "198.51.100.1"), failed("alice", "198.51.100.2"),
		failed("alice", "198.51.100.3"))).Must(t, http.StatusCreated)
	e.postWebhook("syslog", key, "text/plain", sshLines(e, failed("alice", "198.51.100.4"), failed("alice", "198.51.100.5"),
		accepted("alice", "198.51.100.6"))).Must(t, http.StatusCreated)
	got := sequences()
	if len(got) != 1 {
		t.Fatalf("sequences %v", got)
	}
	a := got[0]
	if a.Get("severity").Str() != "high" || a.Get("title").Str() != "Successful sign-in after 5 failed ones for account alice on bastion" ||
		a.Get("event_count").Int() != 1 || a.Get("incident_id").IsNull() {
		t.Fatalf("alert %s", a)
	}
	events := e.Do("GET", "/api/alerts/"+a.Get("id").Str(), key, nil).Must(t, http.StatusOK).Get("data", "events").List()
	if len(events) != 1 || !strings.Contains(events[0].Get("message").Str(), "Accepted") {
		t.Fatalf("events of the alert %v", events)
	}
	// One address guessing several accounts: by address.
	e.postWebhook("syslog", key, "text/plain", sshLines(e, failed("root", "192.0.2.66"), failed("admin", "192.0.2.66"),
		failed("oracle", "192.0.2.66"), failed("test", "192.0.2.66"), failed("ubuntu", "192.0.2.66"), accepted("deploy", "192.0.2.66"))).
		Must(t, http.StatusCreated)
	if got := sequences(); len(got) != 2 || !strings.Contains(got[0].Get("title").Str()+got[1].Get("title").Str(),
		"for address 192.0.2.66 (account deploy) on bastion") {
		t.Fatalf("by address: %v", got)
	}
}

// A burst whose events name different attackers joins no incident, even
// when a later batch's events name one.
func TestBurstOfManyAttackersIsNoIncident(t *testing.T) {
	e := newEnv(t)
	key := e.APIKey(e.Register("ann@acme.test", "Acme"), "write")
	at := e.Clock.Now().Add(-5 * time.Minute).Truncate(10 * time.Minute)
	scan := func(src string, i int) map[string]any {
		return map[string]any{"type": "threat_detected", "severity": "low", "timestamp": at.Add(time.Duration(i) * time.Second).Format(time.RFC3339),
			"source": "ids", "asset": "web-1", "message": "ET SCAN probe", "src_ip": src, "dst_ip": "10.0.0.80"}
	}
	var first []map[string]any
	for i := range 10 {
		first = append(first, scan(fmt.Sprintf("203.0.113.%d", i+1), i))
	}
	e.ingest(key, first...).Must(t, http.StatusCreated)
	e.ingest(key, scan("198.51.100.7", 20), scan("198.51.100.7", 21)).Must(t, http.StatusCreated)
	alerts := e.alerts(key, "limit=200")
	if len(alerts) != 1 || alerts[0].Get("category").Str() != "activity_burst" || alerts[0].Get("event_count").Int() != 12 {
		t.Fatalf("alerts %v", alerts)
	}
	if !alerts[0].Get("incident_id").IsNull() {
		t.Fatalf("the burst of many attackers is in an incident: %s", alerts[0])
	}
	if got := e.incidents(key, ""); len(got) != 0 {
		t.Fatalf("incidents %v", got)
	}
}
