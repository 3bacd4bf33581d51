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
	// Formats rules do not read yet keep none.
	res, _ := Parse(FormatSyslog, []byte("<86>Nov 20 10:00:00 h sshd[1]: Failed password for root from 10.0.0.1 port 22 ssh2\n"), time.Now())
	if len(res.Records) != 1 || res.Records[0].Raw != nil {
		t.Fatalf("syslog: %+v", res.Records)
	}
}
