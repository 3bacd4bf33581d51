package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

const telemetryData = "../telemetry/testdata/"

// wazuhAlerts are Wazuh's sample alerts with their time placeholder filled.
func wazuhAlerts(t *testing.T) []byte {
	return bytes.ReplaceAll(readTestdata(t, telemetryData+"wazuh/wazuh_sample_alerts.jsonl"), []byte("{timestamp}"),
		[]byte("2026-11-21T10:00:00.000+0000"))
}

func firstLines(b []byte, n int) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	return bytes.Join(lines[:min(n, len(lines))], nil)
}

// telemetrySamples are the real samples each source is fed, with what each
// stores.
func telemetrySamples(t *testing.T) []struct {
	source, contentType string
	body                []byte
	events, dns, skip   int
} {
	return []struct {
		source, contentType string
		body                []byte
		events, dns, skip   int
	}{
		{"wazuh", "application/x-ndjson", wazuhAlerts(t), 500, 0, 0},
		{"windows", "application/x-ndjson", readTestdata(t, telemetryData+"windows/otrf_security_events.jsonl"), 302, 0, 0},
		{"zeek", "text/plain", readTestdata(t, telemetryData+"zeek/tsv/conn.log"), 895, 0, 0},
		{"zeek", "text/plain", readTestdata(t, telemetryData+"zeek/tsv/dns.log"), 0, 16, 2856},
		{"zeek", "application/x-ndjson", readTestdata(t, telemetryData+"zeek/json/SCRANTON_http.log"), 62, 0, 0},
		{"syslog", "text/plain", firstLines(readTestdata(t, telemetryData+"syslog/auth/ubuntu_ec2_auth.log"), 2000), 2000, 0, 0},
		{"syslog", "text/plain", readTestdata(t, telemetryData+"syslog/crowdsec-hub/pf-logs/pf-logs.log"), 9, 0, 0},
		{"syslog", "text/plain", readTestdata(t, telemetryData+"syslog/crowdsec-hub/fortinet-vpn-bf/fortinet-vpn-bf.log"), 9, 0, 0},
		{"syslog", "text/plain", readTestdata(t, telemetryData+"syslog/crowdsec-hub/unifi-cef/cef-logs.log"), 3, 0, 0},
		{"syslog", "text/plain", readTestdata(t, telemetryData+"syslog/crowdsec-hub/iptables-scan-multi-port/iptables-scan-multi-port.log"), 49, 0, 0},
	}
}

// ingestSamples feeds every sample through its webhook.
func ingestSamples(t *testing.T, e *env, key string) int {
	total := 0
	for _, s := range telemetrySamples(t) {
		r := e.postWebhook(s.source, key, s.contentType, s.body).Must(t, http.StatusCreated)
		if r.Get("data", "count").Int() != s.events || r.Get("data", "dns_queries").Int() != s.dns || r.Get("data", "skipped").Int() != s.skip {
			t.Fatalf("%s: %s", s.source, r.Raw)
		}
		total += s.events
	}
	return total
}

// exportAll reads every event through the NDJSON export.
func exportAll(t *testing.T, e *env, key, query string) []map[string]any {
	t.Helper()
	r := e.Do("GET", "/api/events/export?format=ndjson"+query, key, nil)
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("export: %d %s", r.Status, r.Raw)
	}
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.Raw))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func TestTelemetryThroughWebhooks(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	total := ingestSamples(t, e, key)
	if n := e.Do("GET", "/api/events?limit=1", key, nil).Must(t, http.StatusOK).Get("pagination", "total").Int(); n != total {
		t.Fatalf("total %d, want %d", n, total)
	}
	// Named records: the fields as the API shows them, and the original.
	cases := []struct {
		name, query string
		fields      map[string]any
		original    string
	}{
		{"sshd failure", "?source=syslog&user=elastic_user_7&q=Failed+password&src_ip=127.0.0.1",
			map[string]any{"src_ip": "127.0.0.1", "user": "elastic_user_7", "process": "sshd", "host": "ip-10-77-20-248", "action": "failure"},
			"Mar 29 10:42:45 ip-10-77-20-248 sshd[1193]: Failed password for elastic_user_7 from 127.0.0.1 port 52942 ssh2"},
		{"filterlog block", "?rule=1000102631&dst_ip=10.0.2.15",
			map[string]any{"src_ip": "10.0.2.2", "dst_ip": "10.0.2.15", "src_port": float64(53792), "dst_port": float64(22),
				"process": "filterlog", "host": "pfSense", "rule": "1000102631", "action": "block"}, ""},
		{"windows logon", "?source=windows&src_ip=172.18.38.5&user=" + url.QueryEscape(`MORDOR.LOCAL\MORDORDC$`), map[string]any{
			"src_ip": "172.18.38.5", "src_port": float64(61420), "user": `MORDOR.LOCAL\MORDORDC$`, "host": "MORDORDC.mordor.local", "action": "success"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			list := e.Do("GET", "/api/events"+c.query, key, nil).Must(t, http.StatusOK).Get("data").List()
			if len(list) == 0 {
				t.Fatal("not found")
			}
			got := list[len(list)-1]
			for k, v := range c.fields {
				if !got.Get("fields", k).Is(v) {
					t.Errorf("fields.%s = %v, want %v", k, got.Get("fields", k), v)
				}
			}
			one := e.Do("GET", "/api/events/"+got.Get("id").Str(), key, nil).Must(t, http.StatusOK)
			if c.original != "" && one.Str("data", "original") != c.original {
				t.Errorf("original %q", one.Str("data", "original"))
			}
			if one.Get("data", "original").IsNull() {
				t.Error("no original")
			}
		})
	}
	// Another organization's event is not found.
	other := e.Register("olga@other.test", "Other")
	id := e.Do("GET", "/api/events?limit=1", key, nil).Get("data").At(0).Get("id").Str()
	e.Do("GET", "/api/events/"+id, other.Token, nil).WantError(t, http.StatusNotFound, "not_found", "")
	e.Do("GET", "/api/events/evt_nope", key, nil).WantError(t, http.StatusNotFound, "not_found", "")
}

// Every search filter, alone and combined, answers exactly the events a
// brute-force pass over all of them selects, with the exact total.
func TestEventSearchAgainstBruteForce(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	ingestSamples(t, e, key)
	e.ingest(key, map[string]any{"type": "policy_violation", "severity": "low", "timestamp": "2026-11-21T11:00:00Z", "source": "disk",
		"asset": "h1", "message": "disk 50% full"}).Must(t, http.StatusCreated)
	all := exportAll(t, e, key, "")
	field := func(ev map[string]any, name string) string {
		f, _ := ev["fields"].(map[string]any)
		s, _ := f[name].(string)
		return s
	}
	str := func(ev map[string]any, name string) string { s, _ := ev[name].(string); return s }
	in := func(cidr string) func(string) bool {
		p := netip.MustParsePrefix(cidr)
		return func(s string) bool { a, err := netip.ParseAddr(s); return err == nil && p.Contains(a) }
	}
	// has: every word of q is a word of the message, rule or indicator,
	// or a part of one between joining punctuation (docs/api.md).
	word := regexp.MustCompile("[^\\s\"'`,;()\\[\\]{}<>|!?*]+")
	joining := regexp.MustCompile(`[./\\:\-_@=#&+%$~^]+`)
	words := func(s string, parts bool) []string {
		var out []string
		for _, w := range word.FindAllString(strings.ToLower(s), -1) {
			w = strings.Trim(w, `./\:-_@=#&+%$~^`)
			out = append(out, w)
			if parts {
				out = append(out, joining.Split(w, -1)...)
			}
		}
		return out
	}
	has := func(q string) func(map[string]any) bool {
		return func(ev map[string]any) bool {
			var held []string
			for _, s := range []string{str(ev, "message"), field(ev, "rule"), str(ev, "indicator")} {
				held = append(held, words(s, true)...)
			}
			for _, w := range words(q, false) {
				if !slices.Contains(held, w) {
					return false
				}
			}
			return true
		}
	}
	cases := []struct {
		query string
		want  func(map[string]any) bool
	}{
		{"src_ip=24.151.103.17", func(ev map[string]any) bool { return field(ev, "src_ip") == "24.151.103.17" }},
		{"src_ip=10.0.0.0/8", func(ev map[string]any) bool { return in("10.0.0.0/8")(field(ev, "src_ip")) }},
		{"dst_ip=192.168.56.0/24", func(ev map[string]any) bool { return in("192.168.56.0/24")(field(ev, "dst_ip")) }},
		{"src_ip=::ffff:10.0.0.0/104", func(ev map[string]any) bool { return in("10.0.0.0/8")(field(ev, "src_ip")) }},
		{"asset=MORDORDC.mordor.local", func(ev map[string]any) bool { return str(ev, "asset") == "mordordc.mordor.local" }},
		{"user=root", func(ev map[string]any) bool { return field(ev, "user") == "root" }},
		{"rule=550", func(ev map[string]any) bool { return field(ev, "rule") == "550" }},
		{"source=zeek", func(ev map[string]any) bool { return str(ev, "source") == "zeek" }},
		{"q=failed+PASSWORD", has("failed password")},
		{"q=50%25", has("50%")},
		{"q=24.151.103.17", has("24.151.103.17")},
		{"q=103", has("103")},
		{"q=failed&order=asc", has("failed")},
		{"q=failed&sort=severity", has("failed")},
		{"q=failed&from=2020-09-01T00:00:00Z&to=2026-11-21T10:00:00Z", func(ev map[string]any) bool {
			ts, _ := time.Parse(time.RFC3339, str(ev, "timestamp"))
			return has("failed")(ev) && !ts.Before(time.Date(2020, 9, 1, 0, 0, 0, 0, time.UTC)) && !ts.After(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC))
		}},
		{"source=syslog&user=root&severity=low", func(ev map[string]any) bool {
			return str(ev, "source") == "syslog" && field(ev, "user") == "root" && str(ev, "severity") == "low"
		}},
		{"q=invalid&type=policy_violation&src_ip=0.0.0.0/0", func(ev map[string]any) bool {
			return has("invalid")(ev) && str(ev, "type") == "policy_violation" && in("0.0.0.0/0")(field(ev, "src_ip"))
		}},
		{"source=windows&from=2020-09-01T00:00:00Z&to=2021-12-31T00:00:00Z", func(ev map[string]any) bool {
			ts, _ := time.Parse(time.RFC3339, str(ev, "timestamp"))
			return str(ev, "source") == "windows" && !ts.Before(time.Date(2020, 9, 1, 0, 0, 0, 0, time.UTC)) &&
				!ts.After(time.Date(2021, 12, 31, 0, 0, 0, 0, time.UTC))
		}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			var selected []map[string]any
			for i := len(all) - 1; i >= 0; i-- { // the list is newest first: reversed export order, ties by arrival
				if c.want(all[i]) {
					selected = append(selected, all[i])
				}
			}
			if strings.Contains(c.query, "sort=severity") { // worst first, then as before
				rank := map[string]int{"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}
				slices.SortStableFunc(selected, func(a, b map[string]any) int { return rank[str(a, "severity")] - rank[str(b, "severity")] })
			}
			if strings.Contains(c.query, "order=asc") {
				slices.Reverse(selected)
			}
			var want []string
			for _, ev := range selected {
				want = append(want, str(ev, "id"))
			}
			var got []string
			total := -1
			for offset := 0; ; offset += 200 {
				r := e.Do("GET", fmt.Sprintf("/api/events?%s&limit=200&offset=%d", c.query, offset), key, nil).Must(t, http.StatusOK)
				total = r.Get("pagination", "total").Int()
				for _, ev := range r.Get("data").List() {
					got = append(got, ev.Get("id").Str())
				}
				if r.Get("pagination", "next_offset").IsNull() {
					break
				}
			}
			if len(want) == 0 {
				t.Fatal("the case selects nothing: it would prove nothing")
			}
			if total != len(want) || !slices.Equal(got, want) {
				t.Fatalf("total %d, %d ids; brute force %d (first got %v, want %v)", total, len(got), len(want), got[:min(3, len(got))], want[:min(3, len(want))])
			}
			filter := strings.NewReplacer("&order=asc", "", "&sort=severity", "").Replace(c.query)
			if n := len(exportAll(t, e, key, "&"+filter)); n != len(want) {
				t.Fatalf("export of the same filter: %d events, want %d", n, len(want))
			}
		})
	}
	for _, bad := range []struct{ query, field string }{
		{"src_ip=10.0.0", "src_ip"}, {"dst_ip=10.0.0.0/33", "dst_ip"}, {"q=" + strings.Repeat("x", 257), "q"},
		{"q=_", "q"}, {"q=" + strings.Repeat("x", 129), "q"},
		{"user=a%00b", "user"}, {"source=" + strings.Repeat("s", 300), "source"},
	} {
		e.Do("GET", "/api/events?"+bad.query, key, nil).WantFields(t, bad.field)
		e.Do("GET", "/api/events/export?format=csv&"+bad.query, key, nil).WantFields(t, bad.field)
	}
}

// A partial batch stores its good records (200, each bad line named);
// without partial the same body is refused whole and nothing is stored.
func TestPartialIngestAndBackfill(t *testing.T) {
	e := newEnv(t, func(c *apitest.Config) { c.Retention = 90 * 24 * time.Hour })
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	wazuh := bytes.SplitAfter(wazuhAlerts(t), []byte("\n"))
	body := bytes.Join([][]byte{wazuh[0], wazuh[1][:100], []byte("\n"), wazuh[2],
		bytes.Replace(wazuh[3], []byte("2026-11-21T10"), []byte("2026-01-02T10"), 2)}, nil)
	r := e.postWebhook("wazuh", key, "application/x-ndjson", body)
	r.WantFields(t, "line 2", "line 4")
	if !strings.Contains(string(r.Raw), "is older than the 90 days this organization keeps events") {
		t.Fatalf("%s", r.Raw)
	}
	if n := e.Do("GET", "/api/events?limit=1", key, nil).Get("pagination", "total").Int(); n != 0 {
		t.Fatalf("a refused batch stored %d events", n)
	}
	r = e.DoHeaders("POST", "/api/webhooks/wazuh?partial=true", body, map[string]string{"Authorization": "Bearer " + key,
		"Content-Type": "application/x-ndjson"}).Must(t, http.StatusOK)
	if r.Get("data", "count").Int() != 2 || r.Get("data", "rejected_count").Int() != 2 ||
		r.Get("data", "rejected", "0", "line").Int() != 2 || !strings.Contains(r.Str("data", "rejected", "0", "reason"), "is cut short") ||
		r.Get("data", "rejected", "1", "line").Int() != 4 {
		t.Fatalf("%s", r.Raw)
	}
	if n := e.Do("GET", "/api/events?limit=1", key, nil).Get("pagination", "total").Int(); n != 2 {
		t.Fatalf("%d events stored", n)
	}
	// POST /events takes partial too; a wrong value is refused.
	good := `{"type":"activity","severity":"info","timestamp":"2026-11-21T11:00:00Z","source":"app","asset":"h1","message":"ok"}`
	r = e.DoHeaders("POST", "/api/events?partial=true", []byte(`{"events":[`+good+`,{"type":"x"}]}`),
		map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}).Must(t, http.StatusOK)
	if r.Get("data", "count").Int() != 1 || r.Get("data", "rejected", "0", "line").Int() != 2 {
		t.Fatalf("%s", r.Raw)
	}
	e.DoHeaders("POST", "/api/events?partial=yes", []byte(good), map[string]string{"Authorization": "Bearer " + key,
		"Content-Type": "application/json"}).WantFields(t, "partial")
	// An organization keeping its events for good takes the old record.
	if err := e.Store.SetOrgRetention(t.Context(), admin.OrgID, 0, true); err != nil {
		t.Fatal(err)
	}
	e.postWebhook("wazuh", key, "application/x-ndjson", bytes.Replace(wazuh[3], []byte("2026-11-21T10"), []byte("2026-01-02T10"), 2)).
		Must(t, http.StatusCreated)
	// Unknown sources are refused, naming them all.
	e.postWebhook("pcap", key, "text/plain", []byte("x")).WantFields(t, "source")
}

// The export streams every matching event; CSV cells a spreadsheet would
// run as formulas are neutralised.
func TestEventExportCSV(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	e.ingest(key, map[string]any{"type": "threat_detected", "severity": "low", "timestamp": "2026-11-21T11:00:00Z", "source": "=cmd",
		"asset": "h1", "message": `=HYPERLINK("http://evil.test","x")`, "indicator": "+1+2"}).Must(t, http.StatusCreated)
	e.postWebhook("syslog", key, "text/plain", []byte("Nov 21 10:00:00 fw sudo:   bob : TTY=pts/0 ; PWD=/ ; USER=root ; COMMAND=-rm -rf /\n")).
		Must(t, http.StatusCreated)
	r := e.Do("GET", "/api/events/export?format=csv", key, nil)
	if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(r.Header.Get("Content-Disposition"), "garrison-events.csv") {
		t.Fatalf("%d %v", r.Status, r.Header)
	}
	text := string(r.Raw)
	for _, want := range []string{`'=HYPERLINK(""http://evil.test"",""x"")`, "'+1+2", "'=cmd", "'-rm -rf /"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "id,timestamp,received_at,type,severity,source,asset,message") {
		t.Fatalf("%q", lines)
	}
	// Nothing matching: the header alone.
	r = e.Do("GET", "/api/events/export?format=csv&source=none", key, nil)
	if strings.Count(string(r.Raw), "\n") != 1 {
		t.Fatalf("%q", r.Raw)
	}
	e.Do("GET", "/api/events/export", key, nil).WantFields(t, "format")
	e.Do("GET", "/api/events/export?format=xml", key, nil).WantFields(t, "format")
	e.Do("GET", "/api/events/export?format=csv&limit=5", key, nil).WantFields(t, "limit")
}

// The alert list's search answers exactly the alerts a brute-force pass
// selects: its own asset and text, the other fields through its events.
func TestAlertSearchAgainstBruteForce(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	ingestSamples(t, e, key)
	events := exportAll(t, e, key, "")
	var alerts []apitest.JSON
	for offset := 0; ; offset += 200 {
		r := e.Do("GET", fmt.Sprintf("/api/alerts?limit=200&offset=%d", offset), key, nil).Must(t, http.StatusOK)
		alerts = append(alerts, r.Get("data").List()...)
		if r.Get("pagination", "next_offset").IsNull() {
			break
		}
	}
	field := func(ev map[string]any, name string) string {
		f, _ := ev["fields"].(map[string]any)
		s, _ := f[name].(string)
		return s
	}
	viaEvents := func(pred func(map[string]any) bool) func(apitest.JSON) bool {
		ids := map[string]bool{}
		for _, ev := range events {
			if id, _ := ev["alert_id"].(string); id != "" && pred(ev) {
				ids[id] = true
			}
		}
		return func(a apitest.JSON) bool { return ids[a.Get("id").Str()] }
	}
	// A user and an asset that have alerts, whatever the samples hold.
	user, asset := "", alerts[len(alerts)-1].Get("affected_asset").Str()
	for _, ev := range events {
		if ev["alert_id"] != nil && field(ev, "user") != "" {
			user = field(ev, "user")
		}
	}
	cases := []struct {
		query string
		want  func(apitest.JSON) bool
	}{
		{"source=wazuh", viaEvents(func(ev map[string]any) bool { return ev["source"] == "wazuh" })},
		{"source=windows", viaEvents(func(ev map[string]any) bool { return ev["source"] == "windows" })},
		{"user=" + url.QueryEscape(user), viaEvents(func(ev map[string]any) bool { return field(ev, "user") == user })},
		{"src_ip=0.0.0.0/0", viaEvents(func(ev map[string]any) bool {
			return field(ev, "src_ip") != "" && !strings.Contains(field(ev, "src_ip"), ":")
		})},
		{"rule=510", viaEvents(func(ev map[string]any) bool { return field(ev, "rule") == "510" })},
		{"asset=" + url.QueryEscape(strings.ToUpper(asset)), func(a apitest.JSON) bool { return a.Get("affected_asset").Str() == asset }},
		{"q=audit", func(a apitest.JSON) bool {
			return strings.Contains(strings.ToLower(a.Get("title").Str()), "audit") || strings.Contains(strings.ToLower(a.Get("indicator").Str()), "audit")
		}},
		{"q=audit&severity=high", func(a apitest.JSON) bool {
			return a.Get("severity").Str() == "high" && (strings.Contains(strings.ToLower(a.Get("title").Str()), "audit") ||
				strings.Contains(strings.ToLower(a.Get("indicator").Str()), "audit"))
		}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			var want []string
			for _, a := range alerts {
				if c.want(a) {
					want = append(want, a.Get("id").Str())
				}
			}
			r := e.Do("GET", "/api/alerts?limit=200&"+c.query, key, nil).Must(t, http.StatusOK)
			var got []string
			for _, a := range r.Get("data").List() {
				got = append(got, a.Get("id").Str())
			}
			if len(want) == 0 {
				t.Fatal("the case selects nothing: it would prove nothing")
			}
			if r.Get("pagination", "total").Int() != len(want) || !slices.Equal(got, want) {
				t.Fatalf("total %d, %d ids; brute force %d", r.Get("pagination", "total").Int(), len(got), len(want))
			}
		})
	}
	e.Do("GET", "/api/alerts?src_ip=nope", key, nil).WantFields(t, "src_ip")
}

// The threat researcher finds an address that lives only in the events'
// normalised fields: neither their message nor their details hold it.
func TestThreatResearcherSearchesFields(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	var body strings.Builder
	for i := range 54 {
		fmt.Fprintf(&body, `{"@timestamp":"2026-11-21T10:%02d:00.000Z","EventID":4624,"Channel":"Security","Hostname":"DC-01.corp.example",`+
			`"TargetUserName":"svc_scan","TargetDomainName":"CORP","LogonType":"3","IpAddress":"203.0.113.77","IpPort":"%d",`+
			`"Message":"An account was successfully logged on."}`+"\n", i, 50000+i)
	}
	e.postWebhook("windows", key, "application/x-ndjson", []byte(body.String())).Must(t, http.StatusCreated)
	one := e.Do("GET", "/api/events?limit=1&src_ip=203.0.113.77", key, nil).Get("data").At(0)
	if strings.Contains(one.Get("message").Str(), "203.0.113.77") || strings.Contains(fmt.Sprint(one.Get("details").Any()), "203.0.113.77") {
		t.Fatalf("the address is not only in the fields: %v", one)
	}
	out := e.runToEnd(admin.Token, "threat-researcher", map[string]any{"target": "203.0.113.77"}).Get("output")
	if out.Get("events", "count").Int() != 54 || !slices.Contains(out.Get("events", "assets").Strings(), "dc-01.corp.example") {
		t.Fatalf("events: %v", out.Get("events"))
	}
}
