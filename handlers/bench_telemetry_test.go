package handlers_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkIngestSyslogVsNative posts the same number of records as native
// JSON and as syslog lines (sshd failures, sudo, filterlog), to compare
// what each costs through the whole path:
// go test -run XXX -bench IngestSyslogVsNative -benchtime 20x ./handlers
func BenchmarkIngestSyslogVsNative(b *testing.B) {
	for _, kind := range []string{"native", "syslog"} {
		b.Run(kind, func(b *testing.B) {
			e := newEnv(b)
			admin := e.Register("ann@acme.test", "Acme")
			key := e.APIKey(admin, "write")
			n := 0
			body := func() (string, string, string) {
				var s strings.Builder
				at := e.Clock.Now().Add(-time.Hour)
				if kind == "native" {
					s.WriteString(`{"events":[`)
				}
				for i := range 1000 {
					ts := at.Add(time.Duration(n) * time.Millisecond).Format(time.RFC3339Nano)
					ip := fmt.Sprintf("203.0.113.%d", n%250+1)
					n++
					if kind == "native" {
						if i > 0 {
							s.WriteByte(',')
						}
						fmt.Fprintf(&s, `{"type":"policy_violation","severity":"low","timestamp":"%s","source":"sshd","asset":"srv-%03d","message":"Failed password for root from %s port 52942 ssh2","indicator":"%s","src_ip":"%s","user":"root"}`,
							at.Add(time.Duration(n)*time.Millisecond).Format(time.RFC3339), n%400, ip, ip, ip)
						continue
					}
					switch i % 3 {
					case 0:
						fmt.Fprintf(&s, "<86>1 %s srv-%03d sshd 1193 - - Failed password for root from %s port 52942 ssh2\n", ts, n%400, ip)
					case 1:
						fmt.Fprintf(&s, "<86>1 %s srv-%03d sudo - - -   deploy : TTY=pts/0 ; PWD=/srv ; USER=root ; COMMAND=/usr/bin/systemctl restart app\n", ts, n%400)
					default:
						fmt.Fprintf(&s, "<134>1 %s fw-01 filterlog 92653 - - 7,,,1000000102,vtnet0,match,block,in,4,0x0,,64,19008,0,DF,6,tcp,60,%s,10.20.0.%d,42970,443,0,S,523876198,,64240,,mss\n", ts, ip, n%250+1)
					}
				}
				if kind == "native" {
					s.WriteString(`]}`)
					return s.String(), "/api/events", "application/json"
				}
				return s.String(), "/api/webhooks/syslog", "text/plain"
			}
			for b.Loop() {
				b.StopTimer()
				text, path, ct := body()
				b.StartTimer()
				postBody(b, e, key, path, ct, text)
			}
			b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// postBody posts one ingest body outside the harness's recording client
// (a benchmark's request must cost only what the server does) and wants 201.
func postBody(b *testing.B, e *env, key, path, contentType, text string) {
	req, _ := http.NewRequest("POST", e.Server.URL+path, strings.NewReader(text))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", contentType)
	res, err := e.Server.Client().Do(req)
	if err != nil || res.StatusCode != http.StatusCreated {
		b.Fatalf("ingest: %v %v", err, res.Status)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
}
