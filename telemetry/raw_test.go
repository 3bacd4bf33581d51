package telemetry

import (
	"os"
	"strings"
	"testing"
	"time"
)

// Every Windows rendering keeps the record's own fields for detection
// rules (Raw), with its channel, provider and id: evtx_dump, Winlogbeat,
// NXLog, osquery's rows and the XML some syslog shippers forward.
func TestWindowsRawFields(t *testing.T) {
	read := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	nxlog := strings.Split(string(read("testdata/windows/otrf_security_events.jsonl")), "\n")[1]
	cases := []struct {
		name, format string
		body         []byte
		eventID      int
		channel      string
		provider     string
		field, value string
	}{
		{"evtx_dump", FormatWindows, []byte(`{"Event":{"System":{"Provider":{"#attributes":{"Name":"Microsoft-Windows-Sysmon"}},"EventID":1,` +
			`"TimeCreated":{"#attributes":{"SystemTime":"2025-10-25T17:41:46.744119Z"}},"Channel":"Microsoft-Windows-Sysmon/Operational","Computer":"dc"},` +
			`"EventData":{"Image":"C:\\Windows\\System32\\findstr.exe","CommandLine":"findstr  lsass","ProcessId":8892}}}`),
			1, "Microsoft-Windows-Sysmon/Operational", "Microsoft-Windows-Sysmon", "ProcessId", "8892"},
		{"Winlogbeat", FormatWindows, []byte(`{"@timestamp":"2026-11-20T10:00:00Z","winlog":{"event_id":4688,"channel":"Security",` +
			`"provider_name":"Microsoft-Windows-Security-Auditing","computer_name":"ws-1","event_data":{"NewProcessName":"C:\\x.exe","CommandLine":"x -a"}}}`),
			4688, "Security", "Microsoft-Windows-Security-Auditing", "NewProcessName", `C:\x.exe`},
		{"NXLog", FormatWindows, []byte(nxlog), 4624, "Security", "Microsoft-Windows-Security-Auditing", "LogonType", "3"},
		{"osquery", FormatWindows, read("testdata/windows/osquery/4616.json"), 4616, "Security", "Microsoft-Windows-Security-Auditing", "SubjectUserName", "LOCAL SERVICE"},
		{"XML in syslog", FormatSyslog, []byte(strings.SplitAfter(string(read("testdata/syslog/crowdsec-hub/windows-bf/windows-bf.log")), "\n")[0]),
			4625, "Security", "Microsoft-Windows-Security-Auditing", "IpAddress", "192.168.9.212"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Parse(c.format, c.body, time.Now())
			if err != nil || len(res.Records) != 1 || len(res.Problems) > 0 {
				t.Fatalf("%v: %d records, problems %+v", err, len(res.Records), res.Problems)
			}
			raw := res.Records[0].Raw
			if raw == nil {
				t.Fatal("no raw fields")
			}
			if fields := raw.Fields(); raw.EventID != c.eventID || raw.Channel != c.channel || raw.Provider != c.provider || fields[c.field] != c.value {
				t.Fatalf("raw %d %q %q, %s = %q", raw.EventID, raw.Channel, raw.Provider, c.field, fields[c.field])
			}
		})
	}
}

// Zeek records and syslog lines keep their own fields for detection rules
// too: a Zeek log's fields by Zeek's names (a shipper's underscores undone),
// a plain line's message and program, an appliance's key=value pairs, an
// auditd record's fields with its hex arguments decoded. A Zeek log
// Garrison does not otherwise keep is read for rules only (DetectOnly).
func TestRawFields(t *testing.T) {
	cases := []struct {
		name, format string
		body         string
		log          string
		detectOnly   bool
		fields       map[string]string
	}{
		{"Zeek TSV dns", FormatZeek, "#separator \\x09\n#path\tdns\n#fields\tts\tid.orig_h\tid.resp_h\tquery\tqtype_name\n" +
			"1588205520.9\t10.0.1.4\t10.0.0.4\tx.interact.sh\tA\n", "dns", false,
			map[string]string{"query": "x.interact.sh", "id.orig_h": "10.0.1.4", "qtype_name": "A"}},
		{"Zeek JSON dce_rpc", FormatZeek, `{"@stream":"dce_rpc","ts":1588205520.96,"id_orig_h":"10.0.1.4","id_resp_h":"10.0.0.4",` +
			`"endpoint":"spoolss","operation":"RpcAddMonitor"}`, "dce_rpc", true,
			map[string]string{"endpoint": "spoolss", "operation": "RpcAddMonitor", "id.resp_h": "10.0.0.4"}},
		{"Zeek JSON x509", FormatZeek, `{"@stream":"x509","ts":1588205718.38,"certificate_serial":"8BB00EE","basic_constraints_ca":true}`,
			"x509", true, map[string]string{"certificate.serial": "8BB00EE", "basic_constraints.ca": "T"}},
		{"sshd line", FormatSyslog, "<86>Nov 20 10:00:00 h sshd[1]: Failed password for root from 10.0.0.1 port 22 ssh2", "sshd", false,
			map[string]string{"message": "Failed password for root from 10.0.0.1 port 22 ssh2", "program": "sshd"}},
		{"FortiGate", FormatSyslog, `date=2026-11-20 time=10:00:00 devname="fw" logid="0100044547" type="event" subtype="system" ` +
			`action="Add" cfgpath="firewall.policy"`, RawFortiGate, false,
			map[string]string{"type": "event", "action": "Add", "cfgpath": "firewall.policy"}},
		{"auditd EXECVE", FormatSyslog, `type=EXECVE msg=audit(1684329817.579:2995): argc=3 a0="sh" a1="-c" a2=6563686F20226869220A`,
			RawAuditd, false, map[string]string{"type": "EXECVE", "a0": "sh", "a1": "-c", "a2": "echo \"hi\"\n"}},
		{"auditd SYSCALL enriched", FormatSyslog, "type=SYSCALL msg=audit(1684329817.579:2996): arch=c000003e syscall=59 a0=7ffd9f58 " +
			`comm="perl" exe="/usr/bin/perl"` + "\x1dSYSCALL=execve", RawAuditd, false,
			map[string]string{"a0": "7ffd9f58", "exe": "/usr/bin/perl", "SYSCALL": "execve", "syscall": "59"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Parse(c.format, []byte(c.body), time.Now())
			if err != nil || len(res.Records) != 1 || len(res.Problems) > 0 {
				t.Fatalf("%v: %d records, problems %+v", err, len(res.Records), res.Problems)
			}
			r := res.Records[0]
			if r.Raw == nil || r.Raw.Format != c.format || r.Raw.Log != c.log || r.DetectOnly != c.detectOnly {
				t.Fatalf("raw %+v, detect only %v", r.Raw, r.DetectOnly)
			}
			fields := r.Raw.Fields()
			for k, v := range c.fields {
				if fields[k] != v {
					t.Errorf("%s = %q, want %q (all: %v)", k, fields[k], v, fields)
				}
			}
		})
	}
}

// An auditd record's time is its own: audit(seconds.millis:serial).
func TestAuditTime(t *testing.T) {
	res, _ := Parse(FormatSyslog, []byte(`type=SYSCALL msg=audit(1684329817.579:2995): syscall=59`), time.Now())
	if len(res.Records) != 1 || !res.Records[0].Timestamp.Equal(time.UnixMilli(1684329817579)) {
		t.Fatalf("%+v", res.Records)
	}
}
