package ingest

import (
	"strings"
	"testing"
	"time"
)

// A partial batch keeps its good records and names each bad one's line;
// without partial the same body is refused whole, naming the same lines.
func TestPartialBatches(t *testing.T) {
	old := strings.Replace(okEvent, "2026-11-21T11", "2026-01-01T11", 1)
	bad := strings.Replace(okEvent, `"severity":"high"`, `"severity":"severe"`, 1)
	syslogBody := "Nov 21 10:00:00 fw sshd[1]: Failed password for root from 203.0.113.9 port 4242 ssh2\n" +
		"<999>Nov 21 10:00:00 fw sshd[1]: bad priority\n" +
		"Jan  1 10:00:00 fw sshd[1]: Accepted password for root from 203.0.113.9 port 4243 ssh2\n" +
		"Nov 21 10:00:01 fw sudo:   bob : TTY=pts/0 ; PWD=/ ; USER=root ; COMMAND=/bin/id\n"
	eveBody := `{"timestamp":"2026-11-21T10:00:00Z","event_type":"alert","src_ip":"203.0.113.5","dest_ip":"10.0.0.1","alert":{"signature":"ET SCAN x","severity":2}}` +
		"\n{\"timestamp\":\"2026-11-21T10:00:00Z\",\"event_type\":\"alert\"\n" +
		`{"timestamp":"2026-01-21T10:00:00Z","event_type":"alert","src_ip":"203.0.113.5","dest_ip":"10.0.0.1","alert":{"signature":"ET SCAN x","severity":2}}`
	cases := []struct {
		name, kind, body string
		events           int
		lines            []int
		reason           string // in the first rejection
	}{
		{"native events", KindEvents, `{"events":[` + okEvent + "," + bad + "," + old + `,{"nope":1}]}`, 1, []int{2, 3, 4},
			"events[1].severity must be one of info, low, medium, high, critical"},
		{"syslog", KindSyslog, syslogBody, 2, []int{2, 3}, `its priority "<999>" is not <0> to <191>`},
		{"suricata", KindSuricata, eveBody, 1, []int{2, 3}, "is not a usable EVE record"},
	}
	o := Options{Now: testNow, Oldest: testNow.Add(-90 * 24 * time.Hour), Partial: true}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := Parse(c.kind, []byte(c.body), o)
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			for _, r := range b.Rejected {
				lines = append(lines, r.Line)
			}
			if len(b.Events) != c.events || len(lines) != len(c.lines) || !strings.Contains(b.Rejected[0].Reason, c.reason) {
				t.Fatalf("%d events, rejected %+v", len(b.Events), b.Rejected)
			}
			for i := range lines {
				if lines[i] != c.lines[i] {
					t.Fatalf("rejected lines %v, want %v", lines, c.lines)
				}
			}
			strict := o
			strict.Partial = false
			if _, err := Parse(c.kind, []byte(c.body), strict); fields(t, err) == "" {
				t.Fatalf("without partial: %v", err)
			}
		})
	}
}

// A record older than the retention is refused with the reason, instead
// of being stored and pruned a minute later.
func TestBackfillPastRetentionRefused(t *testing.T) {
	o := Options{Now: testNow, Oldest: testNow.Add(-30 * 24 * time.Hour)}
	old := strings.Replace(okEvent, "2026-11-21T11", "2026-09-01T11", 1)
	_, err := Parse(KindEvents, []byte(old), o)
	want := "timestamp is older than the 30 days this organization keeps events (before 2026-10-22T12:00:00Z): it would be deleted at once"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	_, err = Parse(KindSyslog, []byte("Sep  1 10:00:00 fw app: x\n"), o)
	if err == nil || !strings.Contains(err.Error(), "line 1 its time is older than the 30 days") {
		t.Fatalf("syslog: %v", err)
	}
	if _, err := Parse(KindEvents, []byte(old), Options{Now: testNow}); err != nil {
		t.Fatalf("no retention: %v", err)
	}
}

// Native events may carry the normalised fields; each is checked.
func TestNativeFields(t *testing.T) {
	withFields := strings.Replace(okEvent, `"message":"m"`, `"message":"m","src_ip":"::ffff:203.0.113.9","dst_ip":"10.0.0.5",`+
		`"src_port":4242,"dst_port":null,"user":"CORP\\bob","process":"C:\\x.exe","command_line":"x.exe /q","host":"ws-1","rule":"r1","action":"block"`, 1)
	b, err := Parse(KindEvents, []byte(withFields), Options{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	f := b.Events[0].Fields
	if f.SrcIP.String() != "203.0.113.9" || f.DstIP.String() != "10.0.0.5" || f.SrcPort != 4242 || f.DstPort != 0 || f.User != `CORP\bob` ||
		f.Process != `C:\x.exe` || f.CommandLine != "x.exe /q" || f.Host != "ws-1" || f.Rule != "r1" || f.Action != "block" {
		t.Fatalf("%+v", f)
	}
	bad := strings.Replace(okEvent, `"message":"m"`, `"message":"m","src_ip":"10.0.0","dst_port":70000,"src_port":"80","action":"`+strings.Repeat("a", 65)+`"`, 1)
	_, err = Parse(KindEvents, []byte(bad), Options{Now: testNow})
	if got := fields(t, err); got != "src_port" && got != "src_ip,src_port,dst_port,action" {
		t.Fatalf("fields %s (%v)", got, err)
	}
}
