package telemetry

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"garrison/event"
)

// A broken record is a problem naming its line; the others are read.
func TestProblemsNameTheirLine(t *testing.T) {
	wazuh := wazuhSample(t)
	lines := bytes.SplitAfter(wazuh, []byte("\n"))
	truncated := bytes.Join([][]byte{lines[0], lines[1][:40], []byte("\n"), lines[2]}, nil)
	cases := []struct {
		name, format string
		body         string
		records      int
		problems     []Problem
	}{
		{"a tailed file's cut line", "wazuh", string(truncated), 2,
			[]Problem{{2, "is cut short: the record ends before its JSON does"}}},
		{"a level out of range", "wazuh", `{"timestamp":"2026-11-28T10:00:00Z","rule":{"level":99,"id":"1"}}`, 0,
			[]Problem{{1, "is not a usable Wazuh alert: rule.level is not a number from 0 to 15"}}},
		{"a placeholder time", "wazuh", strings.SplitAfter(string(read(t, "testdata/wazuh/wazuh_sample_alerts.jsonl")), "\n")[0], 0, nil},
		{"pretty objects, one broken", "windows", "{\n \"EventID\": 4625,\n \"Channel\": \"Security\",\n \"@timestamp\": \"2026-11-28T10:00:00Z\"\n}\n{\n \"EventID\": \n}\n{\n \"EventID\": 4624,\n \"Channel\": \"Security\",\n \"@timestamp\": \"2026-11-28T10:00:01Z\"\n}\n", 2,
			[]Problem{{6, "is not JSON: invalid character '}' looking for beginning of value"}}},
		{"no event id", "windows", `{"Channel":"Security","@timestamp":"2026-11-28T10:00:00Z"}`, 0,
			[]Problem{{1, "is not a usable Windows event record: no EventID"}}},
		{"a TSV line short of fields", "zeek", "#separator \\x09\n#path\tconn\n#fields\tts\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\n1693975906.5\t10.0.0.1\t5\t10.0.0.2\t53\tudp\n1693975906.5\t10.0.0.1\n", 1,
			[]Problem{{5, "has 2 fields where the #fields header names 6"}}},
		{"TSV before its header", "zeek", "#separator \\x09\n1693975906.5\t10.0.0.1\n", 0,
			[]Problem{{2, "comes before the log's #fields header line"}}},
		{"a bad priority", "syslog", "<999>Nov 28 10:00:00 host sshd[1]: hello\n<13>Nov 28 10:00:00 host app: fine\n", 1,
			[]Problem{{1, `is not a usable syslog line: its priority "<999>" is not <0> to <191>`}}},
		{"an RFC 5424 time that is not one", "syslog", "<13>1 yesterday host app - - - text\n", 0,
			[]Problem{{1, `is not a usable syslog line: its RFC 5424 timestamp "yesterday" is not RFC 3339`}}},
		{"structured data that does not end", "syslog", `<13>1 2026-11-28T10:00:00Z host app - - [x a="]"` + "\n", 0,
			[]Problem{{1, "is not a usable syslog line: its structured data does not end"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := parse(t, c.format, []byte(c.body))
			if c.problems == nil && c.name == "a placeholder time" {
				if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Reason, `timestamp "{timestamp}" is not a time`) {
					t.Fatalf("problems %v", res.Problems)
				}
				return
			}
			if len(res.Records) != c.records {
				t.Errorf("%d records, want %d", len(res.Records), c.records)
			}
			if fmt.Sprint(res.Problems) != fmt.Sprint(c.problems) {
				t.Errorf("problems\n got %v\nwant %v", res.Problems, c.problems)
			}
		})
	}
}

// RFC 3164 with a priority: the real auth.log lines with the PRI a
// forwarding rsyslog puts before each (facility authpriv, 10).
func TestRFC3164WithPriority(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(string(read(t, "testdata/syslog/auth/ubuntu_ec2_auth.log"))), "\n")
	var withPRI strings.Builder
	for _, l := range lines[:200] {
		withPRI.WriteString("<86>" + l + "\n")
	}
	plain := parse(t, "syslog", []byte(strings.Join(lines[:200], "\n")))
	res := parse(t, "syslog", []byte(withPRI.String()))
	if len(res.Problems) > 0 || len(res.Records) != 200 {
		t.Fatalf("%d records, problems %v", len(res.Records), res.Problems)
	}
	for i, r := range res.Records {
		p := plain.Records[i]
		if r.Fields != p.Fields || !r.Timestamp.Equal(p.Timestamp) || r.Type != p.Type || r.Details["facility"] != 10 || r.Details["syslog_severity"] != 6 {
			t.Fatalf("line %d: %+v differs from the line without a priority %+v", i+1, r, p)
		}
	}
}

// A traditional line has no year: it is the one that puts it no more than
// a day ahead of its arrival.
func TestSyslogYear(t *testing.T) {
	cases := []struct {
		arrived time.Time
		line    string
		want    time.Time
	}{
		{time.Date(2027, 1, 1, 0, 0, 5, 0, time.UTC), "Dec 31 23:59:58 h app: x", time.Date(2026, 12, 31, 23, 59, 58, 0, time.UTC)},
		{time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC), "Jan  1 00:00:30 h app: x", time.Date(2027, 1, 1, 0, 0, 30, 0, time.UTC)},
		{time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), "Nov 28 11:00:00.123456 h app: x", time.Date(2026, 11, 28, 11, 0, 0, 123456000, time.UTC)},
		{time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), "no header at all", time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		r, err := SyslogRecord([]byte(c.line), c.arrived)
		if err != nil || !r.Timestamp.Equal(c.want) {
			t.Errorf("%q arriving %s: %s, %v; want %s", c.line, c.arrived, r.Timestamp, err, c.want)
		}
	}
}

// Bounds: a record's original and its fields are clipped, a body past
// MaxRecords is refused past the limit.
func TestBounds(t *testing.T) {
	long := strings.Repeat("A", 100<<10)
	r, err := SyslogRecord([]byte("<13>Nov 28 10:00:00 host sudo:   bob : TTY=pts/0 ; PWD=/ ; USER=root ; COMMAND="+long[:60<<10]), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Original) > event.MaxOriginal || len(r.Fields.CommandLine) > event.MaxCommandLine || len(r.Message) > maxMessage {
		t.Errorf("original %d, command line %d, message %d bytes", len(r.Original), len(r.Fields.CommandLine), len(r.Message))
	}
	if _, err := SyslogRecord([]byte(long), now); err == nil {
		t.Error("a 100 KiB line was read")
	}
	body := strings.Repeat("Nov 28 10:00:00 host app: x\n", MaxRecords+5)
	res := parse(t, "syslog", []byte(body))
	if len(res.Records) != MaxRecords || len(res.Problems) != 1 || res.Problems[0].Line != MaxRecords+1 {
		t.Errorf("%d records, problems %v", len(res.Records), res.Problems)
	}
}

// The share-alike WRCCDC Zeek logs are read at run time, never committed.
func TestZeekWRCCDC(t *testing.T) {
	dir := "../../shared/data/detection/zeek/wrccdc2018_cc-by-sa"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("SKIP: the share-alike WRCCDC Zeek logs are not here (%v); they are read from ../shared/data at run time only", err)
	}
	for _, c := range []struct {
		file             string
		records, skipped int
	}{{"notice.log", 207, 0}, {"notice.json", 207, 0}, {"ssl.log", 2000, 0}, {"ssl.json", 2000, 0}, {"ssh.log", 0, 22}, {"ssh.json", 0, 22}} {
		res := parse(t, "zeek", read(t, filepath.Join(dir, c.file)))
		if kept, skipped := keptSkipped(res); len(res.Problems) > 0 || kept != c.records || skipped != c.skipped {
			t.Errorf("%s: %d records, %d skipped, problems %v", c.file, kept, skipped, res.Problems)
		}
	}
}

// Every Windows event of SigmaHQ's regression data (evtx_dump JSON, some
// files holding several objects one after another) reads.
func TestSigmaRegressionEventsRead(t *testing.T) {
	root := "../../shared/data/detection/sigma/regression/windows"
	var files []string
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skipf("SKIP: SigmaHQ's regression events are not under %s", root)
	}
	records := 0
	for _, f := range files {
		res := parse(t, "windows", read(t, f))
		if len(res.Problems) > 0 || len(res.Records) == 0 {
			t.Errorf("%s: %d records, problems %v", f, len(res.Records), res.Problems)
		}
		records += len(res.Records)
	}
	if len(files) != 192 || records < 222 {
		t.Errorf("%d files, %d records", len(files), records)
	}
}
