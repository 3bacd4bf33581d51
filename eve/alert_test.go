package eve

import (
	"strings"
	"testing"
	"time"

	"garrison/event"
)

func mustParse(t *testing.T, in string) Result {
	t.Helper()
	res, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return res
}

func oneEvent(t *testing.T, in string) Event {
	t.Helper()
	res := mustParse(t, in)
	if len(res.Events) != 1 {
		t.Fatalf("got %d events (skipped %d), want 1", len(res.Events), res.Skipped)
	}
	return res.Events[0]
}

// alertLine builds an alert record between a public scanner and a
// private host, with the given alert object body.
func alertLine(alert string) string {
	return `{"timestamp":"2018-03-24T14:37:19.037299-0600","flow_id":1842518484266121,` +
		`"event_type":"alert","src_ip":"203.0.113.5","src_port":4444,` +
		`"dest_ip":"10.16.1.11","dest_port":445,"proto":"TCP","alert":{` + alert + `}}`
}

// alertBetween builds an alert record from src to dst.
func alertBetween(src, dst, alert string) string {
	return `{"timestamp":"2018-03-24T14:37:19.037299-0600","flow_id":1,"event_type":"alert","src_ip":"` + src +
		`","src_port":4444,"dest_ip":"` + dst + `","dest_port":445,"proto":"TCP","alert":{` + alert + `}}`
}

// TestAlertSeverity is the severity table (severity.go) row by row.
func TestAlertSeverity(t *testing.T) {
	const outside, inside, inside2, outside2 = "203.0.113.5", "10.16.1.11", "192.168.1.20", "198.51.100.7"
	tests := []struct {
		name, src, dst, alert string
		class, direction      string
		want                  event.Severity
	}{
		// Policy and info rules are at most low, even at severity 1 with
		// a trojan category (ET POLICY PowerShell), and from inside.
		{"policy with trojan category", inside, outside, `"severity":1,"signature":"ET POLICY Powershell Command With Encoding","category":"A Network Trojan was detected"`, ClassNotice, Outbound, event.Low},
		{"info lookup of ipinfo.io", inside, outside, `"severity":1,"signature":"ET INFO External IP Lookup ipinfo.io","category":"Potential Corporate Privacy Violation"`, ClassNotice, Outbound, event.Low},
		{"policy at 3", outside, inside, `"severity":3,"signature":"ET POLICY GNU/Linux APT User-Agent","category":"Not Suspicious Traffic"`, ClassNotice, Inbound, event.Low},
		{"decoder anomaly", outside, inside, `"severity":3,"signature":"SURICATA TLS invalid record type","category":"Generic Protocol Command Decode"`, ClassDecoder, Inbound, event.Info},
		// Command and control of an internal host is critical whichever way the packet went.
		{"C2 outbound", inside, outside, `"severity":1,"signature":"ET CNC Feodo Tracker Reported CnC Server","category":"A Network Trojan was detected"`, ClassC2, Outbound, event.Critical},
		{"trojan reply inbound", outside, inside, `"severity":2,"signature":"ET TROJAN Possible Zeus GameOver Connectivity Check","category":"A Network Trojan was detected"`, ClassC2, Inbound, event.Critical},
		// An attack response is the compromised host answering: ours when it is the source.
		{"attack response from inside", inside, outside, `"severity":2,"signature":"GPL ATTACK_RESPONSE id check returned root","category":"Potentially Bad Traffic"`, ClassResponse, Outbound, event.Critical},
		{"attack response from outside", outside, inside, `"severity":1,"signature":"GPL ATTACK_RESPONSE id check returned root","category":"Potentially Bad Traffic"`, ClassResponse, Inbound, event.Medium},
		{"successful privilege gain", inside, inside2, `"severity":1,"signature":"x","category":"Successful Administrator Privilege Gain"`, ClassResponse, Internal, event.Critical},
		{"C2 between outside hosts", outside, outside2, `"severity":1,"signature":"ET MALWARE x","category":"A Network Trojan was detected"`, ClassC2, External, event.High},
		{"local rule naming ransomware", inside, outside, `"severity":1,"signature":"Possible Ransomware note","category":""`, ClassC2, Outbound, event.Critical},
		{"local rule naming C2", inside, outside, `"severity":2,"signature":"x","category":"Domain Observed Used for C2 Detected"`, ClassC2, Outbound, event.Critical},
		// Exploit attempts from outside are at most medium; an internal host attacking is high.
		{"exploit inbound", outside, inside, `"severity":1,"signature":"ET EXPLOIT Possible ETERNALBLUE MS17-010 Echo Response","category":"A Network Trojan was detected"`, ClassExploit, Inbound, event.Medium},
		{"web attack inbound at 3", outside, inside, `"severity":3,"signature":"ET WEB_SERVER Possible SQL Injection","category":"Web Application Attack"`, ClassExploit, Inbound, event.Low},
		{"exploit outbound", inside, outside, `"severity":2,"signature":"ET EXPLOIT Apache Struts RCE","category":"Attempted Administrator Privilege Gain"`, ClassExploit, Outbound, event.High},
		{"exploit lateral", inside, inside2, `"severity":3,"signature":"ET EXPLOIT SMB exploit","category":"Attempted Administrator Privilege Gain"`, ClassExploit, Internal, event.High},
		{"privilege gain category", outside, inside, `"severity":1,"signature":"x","category":"Attempted Administrator Privilege Gain"`, ClassExploit, Inbound, event.Medium},
		// Scans and listed addresses from the internet are low; from inside, medium.
		{"scan inbound", outside, inside, `"severity":2,"signature":"ET SCAN Suspicious inbound to MSSQL port 1433","category":"Potentially Bad Traffic"`, ClassScan, Inbound, event.Low},
		{"scan from inside", inside, inside2, `"severity":3,"signature":"ET SCAN Nmap Scripting Engine","category":"Detection of a Network Scan"`, ClassScan, Internal, event.Medium},
		{"listed address inbound", outside, inside, `"severity":2,"signature":"ET CINS Active Threat Intelligence Poor Reputation IP group 1","category":"Misc Attack"`, ClassReputation, Inbound, event.Low},
		{"listed address reached from inside", inside, outside, `"severity":2,"signature":"ET DROP Spamhaus DROP Listed Traffic Inbound group 1","category":"Misc Attack"`, ClassReputation, Outbound, event.Medium},
		{"dos inbound", outside, inside, `"severity":1,"signature":"ET DOS Possible NTP DDoS","category":"Attempted Denial of Service"`, ClassDoS, Inbound, event.Medium},
		// Everything else keeps Suricata's scale.
		{"other 1", outside, inside, `"severity":1,"signature":"x","category":"Misc"`, ClassOther, Inbound, event.High},
		{"other 2", outside, inside, `"severity":2,"signature":"x","category":"Misc"`, ClassOther, Inbound, event.Medium},
		{"other 3", outside, inside, `"severity":3,"signature":"x","category":"Misc"`, ClassOther, Inbound, event.Low},
		{"c2 inside a word", outside, inside, `"severity":1,"signature":"abc2 lookup","category":"Misc activity"`, ClassOther, Inbound, event.High},
		{"2.0 is 2", outside, inside, `"severity":2.0,"signature":"x"`, ClassOther, Inbound, event.Medium},
		{"4", outside, inside, `"severity":4,"signature":"x"`, ClassOther, Inbound, event.Info},
		{"0", outside, inside, `"severity":0,"signature":"x"`, ClassOther, Inbound, event.Info},
		{"string", outside, inside, `"severity":"1","signature":"x"`, ClassOther, Inbound, event.Info},
		{"missing", outside, inside, `"signature":"x"`, ClassOther, Inbound, event.Info},
		{"fraction", outside, inside, `"severity":1.5,"signature":"x"`, ClassOther, Inbound, event.Info},
		{"missing on a policy rule", outside, inside, `"signature":"ET POLICY x"`, ClassNotice, Inbound, event.Info},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := oneEvent(t, alertBetween(tt.src, tt.dst, tt.alert))
			if e.Severity != tt.want || e.Details["signature_class"] != tt.class || e.Details["direction"] != tt.direction {
				t.Errorf("severity %s, class %v, direction %v; want %s, %s, %s", e.Severity, e.Details["signature_class"],
					e.Details["direction"], tt.want, tt.class, tt.direction)
			}
			if e.Type != event.TypeThreat {
				t.Errorf("Type = %q, want %q", e.Type, event.TypeThreat)
			}
		})
	}
}

func TestAlertType(t *testing.T) {
	tests := []struct{ action, want string }{
		{"allowed", event.TypeThreat},
		{"", event.TypeThreat},
		{"pass", event.TypeThreat},
		{"blocked", event.TypeBlocked},
		{"Blocked", event.TypeBlocked},
		{"drop", event.TypeBlocked},
		{"dropped", event.TypeBlocked},
		{"rejected", event.TypeBlocked},
	}
	for _, tt := range tests {
		t.Run(tt.action, func(t *testing.T) {
			e := oneEvent(t, alertLine(`"action":"`+tt.action+`","severity":2,"signature":"sig"`))
			if e.Type != tt.want {
				t.Errorf("Type = %q, want %q", e.Type, tt.want)
			}
		})
	}
}

func TestAlertFields(t *testing.T) {
	e := oneEvent(t, alertLine(`"action":"allowed","gid":1,"signature_id":2100498,"rev":7,`+
		`"signature":"GPL ATTACK_RESPONSE id check returned root","category":"Potentially Bad Traffic","severity":2`))
	want := time.Date(2018, 3, 24, 20, 37, 19, 37299000, time.UTC)
	if !e.Timestamp.Equal(want) || e.Timestamp.Location() != time.UTC {
		t.Errorf("Timestamp = %v, want %v in UTC", e.Timestamp, want)
	}
	if e.Asset != "10.16.1.11" {
		t.Errorf("Asset = %q", e.Asset)
	}
	if e.Message != "GPL ATTACK_RESPONSE id check returned root" || e.Indicator != e.Message {
		t.Errorf("Message = %q, Indicator = %q", e.Message, e.Indicator)
	}
	wantDetails := map[string]any{
		"signature_id": int64(2100498), "gid": int64(1), "rev": int64(7),
		"category": "Potentially Bad Traffic", "action": "allowed", "alert_severity": int64(2),
		"src_ip": "203.0.113.5", "src_port": int64(4444), "dest_ip": "10.16.1.11",
		"dest_port": int64(445), "proto": "TCP", "flow_id": int64(1842518484266121),
		"event_type": "alert", "signature_class": ClassResponse, "direction": Inbound,
	}
	for k, v := range wantDetails {
		if got := e.Details[k]; got != v {
			t.Errorf("Details[%q] = %#v, want %#v", k, got, v)
		}
	}
	if len(e.Details) != len(wantDetails) {
		t.Errorf("Details = %v, want exactly %v", e.Details, wantDetails)
	}
}

func TestAlertDNSName(t *testing.T) {
	tests := []struct{ name, dns string }{
		{"v2 alert query list", `{"query":[{"type":"query","id":1,"rrname":"Evil.Example.SU.","rrtype":"A","tx_id":0}]}`},
		{"v3 queries", `{"version":3,"type":"request","queries":[{"rrname":"evil.example.su","rrtype":"A"}]}`},
		{"flat rrname", `{"type":"query","rrname":"EVIL.example.su","rrtype":"A"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := `{"timestamp":"2018-03-24T12:03:52.568910-0600","event_type":"alert","src_ip":"10.47.8.10",` +
				`"dest_ip":"10.0.0.100","app_proto":"dns","alert":{"signature":"ET DNS Query for .su TLD","severity":2},` +
				`"dns":` + tt.dns + `}`
			e := oneEvent(t, in)
			if e.Details["rrname"] != "evil.example.su" {
				t.Errorf("rrname = %#v", e.Details["rrname"])
			}
			if e.Details["app_proto"] != "dns" {
				t.Errorf("app_proto = %#v", e.Details["app_proto"])
			}
		})
	}
}

func TestAlertWithoutSignatureText(t *testing.T) {
	e := oneEvent(t, alertLine(`"signature":"","signature_id":42,"severity":3`))
	if e.Message != "Suricata signature 42" {
		t.Errorf("Message = %q", e.Message)
	}
}

func TestAsset(t *testing.T) {
	tests := []struct {
		name, src, dst, want string
	}{
		{"private src, public dest", "192.168.1.129", "8.8.8.8", "192.168.1.129"},
		{"public src, private dest", "45.143.200.10", "192.168.1.129", "192.168.1.129"},
		{"public/public: dest", "8.8.8.8", "1.1.1.1", "1.1.1.1"},
		{"private/private: dest", "10.0.0.5", "172.16.0.9", "172.16.0.9"},
		{"loopback/loopback", "127.0.0.1", "127.0.0.1", "127.0.0.1"},
		{"loopback src", "127.0.0.1", "198.51.100.7", "127.0.0.1"},
		{"link-local v6", "2001:db8::1", "fe80::1", "fe80::1"},
		{"ULA", "fd12:3456::7", "2001:4860:4860::8888", "fd12:3456::7"},
		{"v4-mapped private", "::ffff:10.1.2.3", "8.8.8.8", "10.1.2.3"},
		{"unspecified src, public dest", "0.0.0.0", "138.68.3.71", "138.68.3.71"},
		{"dest missing", "8.8.8.8", "", "8.8.8.8"},
		{"dest garbage", "8.8.8.8", "not-an-ip", "8.8.8.8"},
		{"both missing", "", "", "unknown"},
		{"v6 canonical form", "2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::2", "2001:db8::2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := `{"timestamp":"2021-06-06T16:26:27Z","event_type":"alert","src_ip":"` + tt.src +
				`","dest_ip":"` + tt.dst + `","alert":{"signature":"s","severity":2}}`
			if e := oneEvent(t, in); e.Asset != tt.want {
				t.Errorf("Asset = %q, want %q", e.Asset, tt.want)
			}
		})
	}
}

func TestDrop(t *testing.T) {
	const base = `"timestamp":"2021-06-06T16:26:27.431769+0200","flow_id":77,"event_type":"drop","proto":"TCP",` +
		`"drop":{"len":60,"ttl":50,"syn":true,"reason":"rules"}`
	tests := []struct {
		name, rec       string
		msg, ind, asset string
		sev             event.Severity
	}{
		{
			name: "inbound",
			rec:  `{` + base + `,"src_ip":"203.0.113.5","src_port":4444,"dest_ip":"10.0.0.1","dest_port":22}`,
			msg:  "Dropped TCP 203.0.113.5:4444 → 10.0.0.1:22", ind: "203.0.113.5", asset: "10.0.0.1", sev: event.Low,
		},
		{
			name: "outbound v6",
			rec:  `{` + base + `,"src_ip":"fd00::5","src_port":51000,"dest_ip":"2001:db8::66","dest_port":443}`,
			msg:  "Dropped TCP [fd00::5]:51000 → [2001:db8::66]:443", ind: "2001:db8::66", asset: "fd00::5", sev: event.Low,
		},
		{
			name: "no ports",
			rec:  `{"timestamp":"2021-06-06T16:26:27Z","event_type":"drop","proto":"ICMP","src_ip":"198.51.100.1","dest_ip":"192.168.0.2"}`,
			msg:  "Dropped ICMP 198.51.100.1 → 192.168.0.2", ind: "198.51.100.1", asset: "192.168.0.2", sev: event.Low,
		},
		{
			name: "attached alert sets severity",
			rec: `{` + base + `,"src_ip":"203.0.113.5","src_port":4444,"dest_ip":"10.0.0.1","dest_port":22,` +
				`"alert":{"action":"blocked","signature_id":9,"signature":"ET TROJAN x","category":"A Network Trojan was detected","severity":1}}`,
			msg: "Dropped TCP 203.0.113.5:4444 → 10.0.0.1:22", ind: "203.0.113.5", asset: "10.0.0.1", sev: event.Critical,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := oneEvent(t, tt.rec)
			if e.Type != event.TypeBlocked || e.Message != tt.msg || e.Indicator != tt.ind ||
				e.Asset != tt.asset || e.Severity != tt.sev {
				t.Errorf("got %s %s %q ind=%q asset=%q, want %s %q ind=%q asset=%q",
					e.Type, e.Severity, e.Message, e.Indicator, e.Asset, tt.sev, tt.msg, tt.ind, tt.asset)
			}
		})
	}
	e := oneEvent(t, tests[0].rec)
	if e.Details["drop_reason"] != "rules" || e.Details["flow_id"] != int64(77) {
		t.Errorf("Details = %v", e.Details)
	}
}

func TestFlow(t *testing.T) {
	const tuple = `"timestamp":"2021-06-06T15:57:37.272281+0200","flow_id":1,"event_type":"flow",` +
		`"src_ip":"74.120.14.71","src_port":24769,"dest_ip":"192.168.1.129","dest_port":4080,"proto":"TCP"`
	res := mustParse(t, strings.Join([]string{
		`{` + tuple + `,"flow":{"pkts_toserver":2,"state":"closed","reason":"timeout","alerted":false}}`,
		`{` + tuple + `,"flow":{"action":"drop","state":"closed"}}`,
		`{` + tuple + `,"flow":{"action":"pass"}}`,
	}, "\n"))
	if res.Skipped != 2 || len(res.Events) != 1 {
		t.Fatalf("events %d skipped %d, want 1 and 2", len(res.Events), res.Skipped)
	}
	e := res.Events[0]
	if e.Type != event.TypeBlocked || e.Severity != event.Low || e.Asset != "192.168.1.129" ||
		e.Indicator != "74.120.14.71" || e.Message != "Blocked flow TCP 74.120.14.71:24769 → 192.168.1.129:4080" {
		t.Errorf("got %+v", e)
	}
}

func TestAnomaly(t *testing.T) {
	const tuple = `"timestamp":"2021-06-07T12:37:29.781936+0200","flow_id":9,"event_type":"anomaly",` +
		`"src_ip":"192.168.1.129","src_port":5353,"dest_ip":"198.51.100.53","dest_port":53,"proto":"UDP"`
	tests := []struct {
		name, rec string
		dns       bool
		msg, ind  string
	}{
		{"top-level app_proto", `{` + tuple + `,"app_proto":"dns","anomaly":{"type":"applayer","event":"MALFORMED_DATA","layer":"proto_parser"}}`,
			true, "DNS anomaly: MALFORMED_DATA", "198.51.100.53"},
		{"anomaly app_proto", `{` + tuple + `,"anomaly":{"app_proto":"dns","type":"applayer","event":"Z_FLAG_SET","layer":"proto_parser"}}`,
			true, "DNS anomaly: Z_FLAG_SET", "198.51.100.53"},
		{"event mentions dns", `{` + tuple + `,"anomaly":{"type":"applayer","event":"DNS_TOO_MANY_QUERIES"}}`,
			true, "DNS anomaly: DNS_TOO_MANY_QUERIES", "198.51.100.53"},
		{"type only", `{` + tuple + `,"anomaly":{"type":"applayer","layer":"dns_parser"}}`,
			true, "DNS anomaly: applayer", "198.51.100.53"},
		{"with rrname", `{` + tuple + `,"app_proto":"dns","dns":{"type":"query","rrname":"Tunnel.Example.COM","rrtype":"TXT"},"anomaly":{"event":"MALFORMED_DATA"}}`,
			true, "DNS anomaly: MALFORMED_DATA", "tunnel.example.com"},
		{"http anomaly skipped", `{` + tuple + `,"anomaly":{"app_proto":"http","type":"applayer","event":"APPLAYER_DETECT_PROTOCOL_ONLY_ONE_DIRECTION","layer":"proto_detect"}}`,
			false, "", ""},
		{"decode anomaly skipped", `{` + tuple + `,"anomaly":{"type":"decode","event":"decoder.ipv4.trunc_pkt"}}`,
			false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustParse(t, tt.rec)
			if !tt.dns {
				if len(res.Events) != 0 || res.Skipped != 1 {
					t.Fatalf("events %d skipped %d, want 0 and 1", len(res.Events), res.Skipped)
				}
				return
			}
			if len(res.Events) != 1 {
				t.Fatalf("events %d, want 1", len(res.Events))
			}
			e := res.Events[0]
			if e.Type != event.TypeDNS || e.Severity != event.Medium || e.Message != tt.msg ||
				e.Indicator != tt.ind || e.Asset != "192.168.1.129" {
				t.Errorf("got %+v", e)
			}
		})
	}
}

func TestSkippedTypes(t *testing.T) {
	res := mustParse(t, strings.Join([]string{
		`{"timestamp":"2021-06-06T16:26:27Z","event_type":"http","http":{"hostname":"x"}}`,
		`{"timestamp":"2021-06-06T16:26:27Z","event_type":"tls","tls":{}}`,
		`{"timestamp":"2021-06-06T16:26:27Z","event_type":"stats","stats":{"uptime":1}}`,
		`{"timestamp":"2021-06-06T16:26:27Z","event_type":"fileinfo","fileinfo":{}}`,
		`{"timestamp":"2021-06-06T16:26:27Z","event_type":"some_future_type"}`,
		`{"timestamp":"2021-06-06T16:26:27Z","event_type":"ALERT"}`,
	}, "\n"))
	if res.Skipped != 6 || len(res.Events) != 0 || len(res.DNS) != 0 {
		t.Errorf("got %+v, want 6 skipped", res)
	}
}

func TestMessagesAreSanitized(t *testing.T) {
	long := strings.Repeat("é", 400) // 800 bytes
	tests := []struct{ name, sig string }{
		{"newlines", `line one\nline two\r\nthree`},
		{"unicode separators", "a\u2028b\u2029c\u0085d"},
		{"bidi", "abc\u202edcba"},
		{"nul and tab", `a\u0000b\tc`},
		{"long", long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := oneEvent(t, alertLine(`"severity":2,"signature":"`+tt.sig+`","category":"`+tt.sig+`"`))
			for _, s := range []string{e.Message, e.Indicator, e.Details["category"].(string)} {
				if strings.ContainsAny(s, "\r\n\t\x00\u2028\u2029\u0085\u202e") {
					t.Errorf("unsafe character left in %q", s)
				}
				if len(s) > maxText {
					t.Errorf("len %d > %d", len(s), maxText)
				}
			}
		})
	}
	e := oneEvent(t, alertLine(`"severity":2,"signature":"`+long+`"`))
	if !strings.HasSuffix(e.Message, "… [truncated from 800 bytes]") || !strings.HasPrefix(e.Message, "éé") {
		t.Errorf("long message not cut with its marker: %q", e.Message[len(e.Message)-40:])
	}
}
