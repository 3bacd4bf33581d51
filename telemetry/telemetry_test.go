package telemetry

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"garrison/event"
)

// now is the receiving time of the samples.
var now = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wazuhSample fills the placeholder Wazuh's sample alerts carry for a time.
func wazuhSample(t testing.TB) []byte {
	return bytes.ReplaceAll(read(t, "testdata/wazuh/wazuh_sample_alerts.jsonl"), []byte("{timestamp}"),
		[]byte("2026-11-28T10:00:00.123+0000"))
}

func parse(t *testing.T, format string, body []byte) Result {
	t.Helper()
	res, err := Parse(format, body, now)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// tally counts records by "type/severity".
func tally(res Result) map[string]int {
	out := map[string]int{}
	for _, r := range res.Records {
		if r.DetectOnly {
			continue
		}
		if r.DNS != nil {
			out["dns"]++
			continue
		}
		out[r.Type+"/"+r.Severity.String()]++
	}
	return out
}

// keptSkipped counts the records a body keeps and those it skips: a
// record only detection rules read is skipped unless one fires.
func keptSkipped(res Result) (kept, skipped int) {
	for _, r := range res.Records {
		if r.DetectOnly {
			skipped++
		} else {
			kept++
		}
	}
	return kept, skipped + res.Skipped
}

// Every real sample is read whole, with the records, skips and mapping
// counts its content gives.
func TestRealSamples(t *testing.T) {
	cases := []struct {
		format, file string
		body         []byte
		records      int
		skipped      int
		tally        map[string]int
	}{
		{format: "wazuh", file: "wazuh sample alerts", body: wazuhSample(t), records: 500,
			tally: map[string]int{"activity/info": 15, "policy_violation/info": 148, "policy_violation/low": 51,
				"policy_violation/medium": 201, "policy_violation/high": 39, "policy_violation/critical": 26,
				"threat_detected/info": 10, "threat_detected/low": 10}},
		{format: "windows", file: "testdata/windows/otrf_security_events.jsonl", records: 302,
			tally: map[string]int{"activity/info": 231, "policy_violation/low": 37, "policy_violation/medium": 24, "threat_detected/high": 10}},
		{format: "zeek", file: "testdata/zeek/tsv/conn.log", records: 895, tally: map[string]int{"activity/info": 895}},
		{format: "zeek", file: "testdata/zeek/tsv/dns.log", records: 16, skipped: 2856, tally: map[string]int{"dns": 16}},
		{format: "zeek", file: "testdata/zeek/tsv/http.log", records: 3, tally: map[string]int{"activity/info": 3}},
		{format: "zeek", file: "testdata/zeek/tsv/ssl.log", records: 2, tally: map[string]int{"activity/info": 2}},
		{format: "zeek", file: "testdata/zeek/tsv/files.log", skipped: 3, tally: map[string]int{}},
		{format: "zeek", file: "testdata/zeek/json/SCRANTON_conn.log", records: 134, tally: map[string]int{"activity/info": 134}},
		{format: "zeek", file: "testdata/zeek/json/SCRANTON_dns.log", records: 32, tally: map[string]int{"dns": 32}},
		{format: "zeek", file: "testdata/zeek/json/SCRANTON_http.log", records: 62, tally: map[string]int{"activity/info": 62}},
		{format: "zeek", file: "testdata/zeek/json/SCRANTON_notice.log", records: 1, tally: map[string]int{"policy_violation/low": 1}},
		{format: "zeek", file: "testdata/zeek/json/SCRANTON_files.log", skipped: 69, tally: map[string]int{}},
		{format: "syslog", file: "testdata/syslog/auth/ubuntu_ec2_auth.log", records: 7121,
			tally: map[string]int{"activity/info": 5765, "policy_violation/low": 1356}},
		{format: "syslog", file: "testdata/syslog/tenzir/syslog_rfc5424_tests.log", records: 13, tally: map[string]int{"activity/info": 13}},
		{format: "syslog", file: "testdata/syslog/crowdsec-hub/pf-logs/pf-logs.log", records: 9,
			tally: map[string]int{"activity/info": 3, "blocked_connection/low": 6}},
		{format: "syslog", file: "testdata/syslog/crowdsec-hub/pfsense-rfc5424-filterlog/pfsense-rfc5424-filterlog.log", records: 4,
			tally: map[string]int{"blocked_connection/low": 4}},
		{format: "syslog", file: "testdata/syslog/crowdsec-hub/fortinet-vpn-bf/fortinet-vpn-bf.log", records: 9,
			tally: map[string]int{"policy_violation/low": 9}},
		{format: "syslog", file: "testdata/syslog/crowdsec-hub/cef-logs/cef-logs.log", records: 4,
			tally: map[string]int{"activity/low": 2, "blocked_connection/high": 1, "blocked_connection/critical": 1}},
		{format: "syslog", file: "testdata/syslog/crowdsec-hub/unifi-cef/cef-logs.log", records: 3,
			tally: map[string]int{"activity/low": 1, "blocked_connection/high": 2}},
		{format: "syslog", file: "testdata/syslog/crowdsec-hub/iptables-scan-multi-port/iptables-scan-multi-port.log", records: 49,
			tally: map[string]int{"blocked_connection/low": 49}},
		{format: "syslog", file: "testdata/syslog/crowdsec-hub/ssh-slow-bf/ssh-slow-bf.log", records: 22,
			tally: map[string]int{"policy_violation/low": 22}},
		{format: "syslog", file: "testdata/syslog/crowdsec-hub/opnsense-sshd/opnsense-sshd.log", records: 10,
			tally: map[string]int{"policy_violation/low": 10}},
		{format: "syslog", file: "testdata/syslog/crowdsec-hub/pam-logs/pam-logs.log", records: 2,
			tally: map[string]int{"policy_violation/low": 2}},
		{format: "syslog", file: "testdata/syslog/crowdsec-hub/windows-bf/windows-bf.log", records: 6,
			tally: map[string]int{"policy_violation/low": 6}},
	}
	for _, c := range cases {
		t.Run(c.format+" "+filepath.Base(c.file), func(t *testing.T) {
			body := c.body
			if body == nil {
				body = read(t, c.file)
			}
			res := parse(t, c.format, body)
			if len(res.Problems) > 0 {
				t.Fatalf("problems: %v", res.Problems[:min(3, len(res.Problems))])
			}
			if kept, skipped := keptSkipped(res); kept != c.records || skipped != c.skipped {
				t.Fatalf("records %d, skipped %d; want %d, %d", kept, skipped, c.records, c.skipped)
			}
			got := tally(res)
			if len(got) != len(c.tally) {
				t.Fatalf("tally %v, want %v", got, c.tally)
			}
			for k, n := range c.tally {
				if got[k] != n {
					t.Fatalf("tally %v, want %v", got, c.tally)
				}
			}
			for _, r := range res.Records {
				if r.Original == "" || len(r.Original) > event.MaxOriginal || r.Asset == "" || r.Message == "" || r.Timestamp.IsZero() {
					t.Fatalf("line %d: incomplete record %+v", r.Line, r)
				}
			}
		})
	}
}

// every crowdsec sample file is read without a problem.
func TestEverySyslogSampleReads(t *testing.T) {
	files, _ := filepath.Glob("testdata/syslog/crowdsec-hub/*/*.log")
	if len(files) < 28 {
		t.Fatalf("%d sample files, want 28", len(files))
	}
	for _, f := range files {
		res := parse(t, "syslog", read(t, f))
		if len(res.Problems) > 0 || len(res.Records) == 0 {
			t.Errorf("%s: %d records, problems %v", f, len(res.Records), res.Problems)
		}
	}
}

func ip(s string) netip.Addr { return netip.MustParseAddr(s) }

// Named records: the field mapping of each source, checked on real lines.
func TestFieldMapping(t *testing.T) {
	cases := []struct {
		name, format, file string
		body               []byte
		line               int // the record starting on this line
		want               Record
	}{
		{name: "sshd failed password", format: "syslog", file: "testdata/syslog/auth/ubuntu_ec2_auth.log", line: 1616,
			want: Record{Timestamp: time.Date(2026, 3, 29, 10, 42, 45, 0, time.UTC), Type: event.TypePolicy, Severity: event.Low,
				Asset: "ip-10-77-20-248", Indicator: "127.0.0.1",
				Fields: event.Fields{SrcIP: ip("127.0.0.1"), SrcPort: 52942, User: "elastic_user_7", Process: "sshd", Host: "ip-10-77-20-248", Action: "failure"}}},
		{name: "sudo command", format: "syslog", file: "testdata/syslog/auth/ubuntu_ec2_auth.log", line: 10,
			want: Record{Timestamp: time.Date(2026, 3, 27, 13, 9, 37, 0, time.UTC), Type: event.TypeActivity, Severity: event.Info,
				Asset: "ip-10-77-20-248",
				Fields: event.Fields{User: "ubuntu", Process: "sudo", Host: "ip-10-77-20-248", Action: "sudo",
					CommandLine: "/usr/bin/curl -L -O https://artifacts.elastic.co/downloads/beats/filebeat/filebeat-5.2.2-amd64.deb"}}},
		{name: "sshd accepted publickey, unpadded day", format: "syslog", file: "testdata/syslog/crowdsec-hub/sshd-success-logs/sshd-success-logs.log", line: 1,
			want: Record{Timestamp: time.Date(2026, 9, 6, 9, 57, 21, 0, time.UTC), Type: event.TypeActivity, Severity: event.Info, Asset: "bullseye",
				Fields: event.Fields{SrcIP: ip("192.168.121.1"), SrcPort: 56296, User: "vagrant", Process: "sshd", Host: "bullseye", Action: "success"}}},
		{name: "pfSense filterlog block", format: "syslog", file: "testdata/syslog/crowdsec-hub/pf-logs/pf-logs.log", line: 2,
			want: Record{Timestamp: time.Date(2026, 9, 28, 10, 38, 24, 0, time.UTC), Type: event.TypeBlocked, Severity: event.Low,
				Asset: "10.0.2.15", Indicator: "10.0.2.2",
				Fields: event.Fields{SrcIP: ip("10.0.2.2"), DstIP: ip("10.0.2.15"), SrcPort: 53792, DstPort: 22, Process: "filterlog",
					Host: "pfSense", Rule: "1000102631", Action: "block"}}},
		{name: "pfSense RFC 5424 filterlog, IPv6", format: "syslog", file: "testdata/syslog/crowdsec-hub/pfsense-rfc5424-filterlog/pfsense-rfc5424-filterlog.log", line: 3,
			want: Record{Timestamp: time.Date(2025, 11, 6, 11, 42, 14, 270789000, time.UTC), Type: event.TypeBlocked, Severity: event.Low,
				Asset: "fdfd:ace:ace:5::6", Indicator: "fdfd:ace:ace:10:d8:cdbf:f6f8:6d69",
				Fields: event.Fields{SrcIP: ip("fdfd:ace:ace:10:d8:cdbf:f6f8:6d69"), DstIP: ip("fdfd:ace:ace:5::6"), SrcPort: 65382, DstPort: 443,
					Process: "filterlog", Host: "firewall.lan", Rule: "1644355515", Action: "block"}}},
		{name: "FortiGate SSL VPN login failure", format: "syslog", file: "testdata/syslog/crowdsec-hub/fortinet-vpn-bf/fortinet-vpn-bf.log", line: 2,
			want: Record{Timestamp: time.Date(2024, 10, 14, 20, 46, 41, 0, time.UTC), Type: event.TypePolicy, Severity: event.Low,
				Asset: "192.168.0.1", Indicator: "192.168.0.1",
				Fields: event.Fields{SrcIP: ip("192.168.0.1"), User: "sapservicecq1", Rule: "1234567890", Action: "ssl-login-fail"}}},
		{name: "UniFi CEF intrusion blocked", format: "syslog", file: "testdata/syslog/crowdsec-hub/unifi-cef/cef-logs.log", line: 3,
			want: Record{Timestamp: time.Date(2025, 10, 26, 19, 1, 31, 807000000, time.UTC), Type: event.TypeBlocked, Severity: event.High,
				Asset:  "Express-7",
				Fields: event.Fields{SrcIP: ip("198.51.100.10"), SrcPort: 46621, DstPort: 80, Host: "Express-7", Rule: "201", Action: "blocked"}}},
		{name: "netfilter drop", format: "syslog", file: "testdata/syslog/crowdsec-hub/iptables-logs/iptables-logs.log", line: 1,
			want: Record{Timestamp: time.Date(2026, 6, 8, 14, 34, 33, 0, time.UTC), Type: event.TypeBlocked, Severity: event.Low,
				Asset: "51.15.166.67", Indicator: "195.54.160.107",
				Fields: event.Fields{SrcIP: ip("195.54.160.107"), DstIP: ip("51.15.166.67"), SrcPort: 8080, DstPort: 8123, Process: "kernel",
					Host: "sd-126005", Action: "block"}}},
		{name: "OPNsense RFC 5424 sshd invalid user", format: "syslog", file: "testdata/syslog/crowdsec-hub/opnsense-sshd/opnsense-sshd.log", line: 1,
			want: Record{Timestamp: time.Date(2022, 1, 19, 14, 23, 55, 0, time.UTC), Type: event.TypePolicy, Severity: event.Low,
				Asset: "OPNsense.localdomain", Indicator: "1.2.3.4",
				Fields: event.Fields{SrcIP: ip("1.2.3.4"), SrcPort: 33166, User: "tutu", Process: "sshd", Host: "OPNsense.localdomain", Action: "failure"}}},
		{name: "Windows XML 4625 in syslog", format: "syslog", file: "testdata/syslog/crowdsec-hub/windows-bf/windows-bf.log", line: 1,
			want: Record{Timestamp: time.Date(2022, 4, 29, 12, 36, 1, 902791300, time.UTC), Type: event.TypePolicy, Severity: event.Low},
		},
		{name: "NXLog 4624 logon", format: "windows", file: "testdata/windows/otrf_security_events.jsonl", line: 2,
			want: Record{Timestamp: time.Date(2020, 6, 10, 2, 51, 3, 645000000, time.UTC), Type: event.TypeActivity, Severity: event.Info,
				Asset:  "MORDORDC.mordor.local",
				Fields: event.Fields{SrcIP: ip("172.18.38.5"), SrcPort: 61420, User: `MORDOR.LOCAL\MORDORDC$`, Host: "MORDORDC.mordor.local", Action: "success"}}},
		{name: "Zeek TSV conn", format: "zeek", file: "testdata/zeek/tsv/conn.log", line: 9,
			want: Record{Timestamp: time.Unix(1693975906, 500310000).UTC(), Type: event.TypeActivity, Severity: event.Info,
				Asset: "192.168.56.1", Indicator: "192.168.56.30",
				Fields: event.Fields{SrcIP: ip("192.168.56.30"), DstIP: ip("192.168.56.1"), SrcPort: 62431, DstPort: 53, Action: "SHR"}}},
		{name: "Zeek JSON notice", format: "zeek", file: "testdata/zeek/json/SCRANTON_notice.log", line: 1,
			want: Record{Timestamp: time.Unix(1588205718, 392851000).UTC(), Type: event.TypePolicy, Severity: event.Low,
				Asset: "192.168.0.5", Indicator: "10.0.1.4",
				Fields: event.Fields{SrcIP: ip("10.0.1.4"), DstIP: ip("192.168.0.5"), SrcPort: 60645, DstPort: 443,
					Host: "simplerockbuild.simplerock.lan", Rule: "SSL::Invalid_Server_Cert"}}},
		{name: "Wazuh syscheck", format: "wazuh", body: wazuhSample(t), line: 2,
			want: Record{Timestamp: time.Date(2026, 11, 28, 10, 0, 0, 123000000, time.UTC), Type: event.TypePolicy, Severity: event.Medium,
				Asset: "RHEL7", Category: "wazuh", Fields: event.Fields{Host: "RHEL7", Rule: "550"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := c.body
			if body == nil {
				body = read(t, c.file)
			}
			res := parse(t, c.format, body)
			var got *Record
			for i := range res.Records {
				if res.Records[i].Line == c.line {
					got = &res.Records[i]
				}
			}
			if got == nil {
				t.Fatalf("no record on line %d (problems %v)", c.line, res.Problems)
			}
			w := c.want
			if !got.Timestamp.Equal(w.Timestamp) || got.Type != w.Type || got.Severity != w.Severity {
				t.Errorf("time, type, severity = %s %s %s; want %s %s %s", got.Timestamp, got.Type, got.Severity, w.Timestamp, w.Type, w.Severity)
			}
			if w.Asset != "" && got.Asset != w.Asset {
				t.Errorf("asset %q, want %q", got.Asset, w.Asset)
			}
			if w.Indicator != "" && got.Indicator != w.Indicator {
				t.Errorf("indicator %q, want %q", got.Indicator, w.Indicator)
			}
			if w.Category != "" && got.Category != w.Category {
				t.Errorf("category %q, want %q", got.Category, w.Category)
			}
			if w.Fields != (event.Fields{}) && got.Fields != w.Fields {
				t.Errorf("fields\n got %+v\nwant %+v", got.Fields, w.Fields)
			}
			if !strings.Contains(string(body), strings.TrimSuffix(got.Original, "\r")) {
				t.Errorf("original %q is not the record as received", got.Original)
			}
		})
	}
}
