package contact

import (
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// received is one request a test receiver took.
type received struct {
	Path   string
	Header http.Header
	Body   []byte
}

// receiver is a local HTTPS peer standing in for a webhook, chat or
// paging service: it keeps each request and answers with a fixed status,
// headers and body.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []received
	status int
	header map[string]string
	answer string
	check  func(r received) // runs in the handler, e.g. a signature check
}

func newReceiver(t *testing.T, status int, header map[string]string, answer string) *receiver {
	t.Helper()
	rc := &receiver{status: status, header: header, answer: answer}
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := received{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
		rc.mu.Lock()
		rc.got = append(rc.got, req)
		check := rc.check
		rc.mu.Unlock()
		if check != nil {
			check(req)
		}
		for k, v := range rc.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rc.status)
		io.WriteString(w, rc.answer)
	}))
	rc.srv.Config.ErrorLog = quiet // refused handshakes are what some tests want
	rc.srv.StartTLS()
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// only is the one request the receiver took; anything else fails the test.
func (rc *receiver) only(t *testing.T) received {
	t.Helper()
	got := rc.requests()
	if len(got) != 1 {
		t.Fatalf("receiver took %d requests, want 1", len(got))
	}
	return got[0]
}

func (rc *receiver) roots() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(rc.srv.Certificate())
	return pool
}

// sender trusts the receiver and may reach it on loopback.
func (rc *receiver) sender() *Sender {
	return NewSender(SenderOptions{Timeout: 5 * time.Second, RootCAs: rc.roots(), AllowLoopback: true})
}

var quiet = log.New(io.Discard, "", 0)

var seen = time.Date(2026, 3, 2, 23, 14, 5, 0, time.UTC)

// sample is a single critical alert whose text tries every trick a
// receiver could fall for.
func sample() Message {
	return Message{
		ID: "alert:alt_1:rul_1:ch_1", Event: Trigger, OrgID: "org_1", OrgName: "Dental One", Provider: "Acme MSP",
		Rule: "Critical", DedupKey: "alt_1", Count: 1, At: seen.Add(time.Minute),
		Alerts: []Alert{{
			ID: "alt_1", Title: "Ransomware beacon <b>&</b> @here [x](http://evil.test) *bold*", Severity: "critical",
			Category: "malware", Asset: "ws-12", Indicator: "203.0.113.9", RecommendedAction: "Isolate ws-12 from the network",
			Events: 3, FirstSeen: seen, Link: "https://garrison.example/alerts/alt_1",
		}},
	}
}
