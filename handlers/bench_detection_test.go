package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkIngestWindowsDetection posts Windows Security events (logons,
// failed logons, process starts, as NXLog sends them) with every shipped
// detection rule on, and with every set turned off, to see what detection
// costs the whole ingest path:
// go test -run XXX -bench IngestWindowsDetection -benchtime 40x ./handlers
func BenchmarkIngestWindowsDetection(b *testing.B) {
	for _, mode := range []string{"off", "all-rules"} {
		b.Run(mode, func(b *testing.B) {
			e := newEnv(b)
			admin := e.Register("ann@acme.test", "Acme")
			key := e.APIKey(admin, "write")
			adminKey := e.APIKey(admin, "admin")
			if mode == "off" {
				for _, s := range e.Do("GET", "/api/detection-rule-sets", adminKey, nil).Must(b, http.StatusOK).Get("data").List() {
					e.Do("PUT", "/api/detection-rule-sets/"+s.Get("name").Str(), adminKey, map[string]any{"enabled": false}).Must(b, http.StatusOK)
				}
			}
			n := 0
			body := func() string {
				var s strings.Builder
				at := e.Clock.Now().Add(-time.Hour)
				for range 1000 {
					ts := at.Add(time.Duration(n) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
					host, user, ip := fmt.Sprintf("WS-%03d.corp.example", n%400), fmt.Sprintf("user%03d", n%300), fmt.Sprintf("10.20.%d.%d", n%4, n%250+1)
					switch n++; n % 10 {
					case 0, 1, 2, 3, 4:
						fmt.Fprintf(&s, `{"@timestamp":"%s","EventID":4624,"Channel":"Security","Hostname":"%s","SourceName":"Microsoft-Windows-Security-Auditing",`+
							`"TargetUserName":"%s","TargetDomainName":"CORP","LogonType":"3","IpAddress":"%s","IpPort":"50000","ProcessName":"-",`+
							`"Message":"An account was successfully logged on."}`+"\n", ts, host, user, ip)
					case 5, 6:
						fmt.Fprintf(&s, `{"@timestamp":"%s","EventID":4625,"Channel":"Security","Hostname":"%s","SourceName":"Microsoft-Windows-Security-Auditing",`+
							`"TargetUserName":"%s","TargetDomainName":"CORP","LogonType":"3","IpAddress":"%s","IpPort":"50000","Status":"0xc000006d",`+
							`"SubStatus":"0xc000006a","Message":"An account failed to log on."}`+"\n", ts, host, user, ip)
					default:
						fmt.Fprintf(&s, `{"@timestamp":"%s","EventID":4688,"Channel":"Security","Hostname":"%s","SourceName":"Microsoft-Windows-Security-Auditing",`+
							`"SubjectUserName":"%s","NewProcessName":"C:\\Windows\\System32\\cmd.exe","CommandLine":"cmd.exe /c whoami /all",`+
							`"ParentProcessName":"C:\\Windows\\explorer.exe","Message":"A new process has been created."}`+"\n", ts, host, user)
					}
				}
				return s.String()
			}
			// The first body compiles the shipped rules: not what is measured.
			e.postWebhook("windows", key, "application/x-ndjson", []byte(body())).Must(b, http.StatusCreated)
			for b.Loop() {
				b.StopTimer()
				text := body()
				b.StartTimer()
				postBody(b, e, key, "/api/webhooks/windows", "application/x-ndjson", text)
			}
			b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
