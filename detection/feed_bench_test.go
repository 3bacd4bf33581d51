package detection

import (
	"fmt"
	"os"
	"testing"
	"time"

	"garrison/store"
	"garrison/telemetry"
)

// BenchmarkDetectorFeed runs records through a detector with every
// shipped rule on: what detection adds to each ingested record. windows is
// the bench suite's feed (logons, failed logons, process starts as NXLog
// sends them); syslog is the real Ubuntu auth.log; zeek the real APT29
// conn, dns, http and dce_rpc logs (telemetry/testdata).
// go test -run XXX -bench DetectorFeed -benchtime 300000x ./detection
func BenchmarkDetectorFeed(b *testing.B) {
	for _, feed := range []struct{ name, format, file string }{
		{"windows", telemetry.FormatWindows, ""},
		{"syslog", telemetry.FormatSyslog, "../telemetry/testdata/syslog/auth/ubuntu_ec2_auth.log"},
		{"zeek", telemetry.FormatZeek, "../telemetry/testdata/zeek/json/SCRANTON_conn.log"},
	} {
		b.Run(feed.name, func(b *testing.B) {
			body := windowsFeed()
			if feed.file != "" {
				var err error
				if body, err = os.ReadFile(feed.file); err != nil {
					b.Fatal(err)
				}
			}
			benchmarkFeed(b, feed.format, body)
		})
	}
}

func windowsFeed() []byte {
	var body []byte
	for i := range 300 {
		host, user, ip := fmt.Sprintf("WS-%03d.corp.example", i), fmt.Sprintf("user%03d", i), fmt.Sprintf("10.20.1.%d", i%250+1)
		switch i % 10 {
		case 0, 1, 2, 3, 4:
			body = fmt.Appendf(body, `{"@timestamp":"2026-11-21T10:00:00.000Z","EventID":4624,"Channel":"Security","Hostname":"%s",`+
				`"SourceName":"Microsoft-Windows-Security-Auditing","TargetUserName":"%s","TargetDomainName":"CORP","LogonType":"3",`+
				`"IpAddress":"%s","IpPort":"50000","ProcessName":"-","Message":"An account was successfully logged on."}`+"\n", host, user, ip)
		case 5, 6:
			body = fmt.Appendf(body, `{"@timestamp":"2026-11-21T10:00:00.000Z","EventID":4625,"Channel":"Security","Hostname":"%s",`+
				`"SourceName":"Microsoft-Windows-Security-Auditing","TargetUserName":"%s","TargetDomainName":"CORP","LogonType":"3",`+
				`"IpAddress":"%s","IpPort":"50000","Status":"0xc000006d","SubStatus":"0xc000006a","Message":"An account failed to log on."}`+"\n",
				host, user, ip)
		default:
			body = fmt.Appendf(body, `{"@timestamp":"2026-11-21T10:00:00.000Z","EventID":4688,"Channel":"Security","Hostname":"%s",`+
				`"SourceName":"Microsoft-Windows-Security-Auditing","SubjectUserName":"%s","NewProcessName":"C:\\Windows\\System32\\cmd.exe",`+
				`"CommandLine":"cmd.exe /c whoami /all","ParentProcessName":"C:\\Windows\\explorer.exe","Message":"A new process has been created."}`+"\n",
				host, user)
		}
	}
	return body
}

func benchmarkFeed(b *testing.B, format string, body []byte) {
	res, err := telemetry.Parse(format, body, time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	if err != nil {
		b.Fatal(err)
	}
	cat, err := Shipped()
	if err != nil {
		b.Fatal(err)
	}
	d := newDetector(cat, store.DetectionConfig{}, &customCache{})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d.Match(res.Records[i%len(res.Records)].Raw)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
