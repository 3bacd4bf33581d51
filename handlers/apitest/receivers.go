package apitest

import (
	"bufio"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one request a receiver took.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	At           time.Time
}

// Receiver is a local HTTPS server standing in for a webhook, chat or
// paging service: it keeps every request and answers as Respond says.
type Receiver struct {
	Server *httptest.Server
	mu     sync.Mutex
	got    []Request
	arrive chan struct{}
	// Respond answers the n-th request (0-based): a status and headers;
	// nil answers 200.
	Respond func(n int, r Request) (int, map[string]string)
}

// NewReceiver starts a receiver; it stops when the test ends.
func NewReceiver(t testing.TB) *Receiver {
	rc := &Receiver{arrive: make(chan struct{}, 1000)}
	rc.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, At: time.Now()}
		rc.mu.Lock()
		n := len(rc.got)
		rc.got = append(rc.got, req)
		respond := rc.Respond
		rc.mu.Unlock()
		rc.arrive <- struct{}{} // a request held unanswered has still arrived
		status, headers := http.StatusOK, map[string]string(nil)
		if respond != nil {
			status, headers = respond(n, req)
		}
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		io.WriteString(w, http.StatusText(status))
	}))
	t.Cleanup(rc.Server.Close)
	return rc
}

// URL is the receiver's address with a path.
func (rc *Receiver) URL(path string) string { return rc.Server.URL + path }

// Roots trusts the receiver's certificate.
func (rc *Receiver) Roots() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(rc.Server.Certificate())
	return pool
}

// Requests are the requests so far.
func (rc *Receiver) Requests() []Request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Request(nil), rc.got...)
}

// Wait blocks until the receiver holds n requests, or fails the test
// after the timeout.
func (rc *Receiver) Wait(t testing.TB, n int, timeout time.Duration) []Request {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if got := rc.Requests(); len(got) >= n {
			return got
		}
		select {
		case <-rc.arrive:
		case <-deadline:
			t.Fatalf("receiver holds %d requests after %s, want %d", len(rc.Requests()), timeout, n)
		}
	}
}

// MailReceiver is a minimal SMTP server on loopback keeping each message.
type MailReceiver struct {
	Addr   string
	mu     sync.Mutex
	msgs   []Mail
	arrive chan struct{}
}

// Mail is one message the SMTP receiver took.
type Mail struct {
	From, To string
	Data     string
}

// NewMailReceiver starts an SMTP receiver; it stops when the test ends.
func NewMailReceiver(t testing.TB) *MailReceiver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &MailReceiver{Addr: ln.Addr().String(), arrive: make(chan struct{}, 1000)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go m.session(c)
		}
	}()
	return m
}

func (m *MailReceiver) session(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(s string) { io.WriteString(c, s+"\r\n") }
	say("220 receiver ESMTP")
	var cur Mail
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.TrimSpace(line)
		upper := strings.ToUpper(cmd)
		switch {
		case strings.HasPrefix(upper, "EHLO"), strings.HasPrefix(upper, "HELO"):
			say("250 receiver")
		case strings.HasPrefix(upper, "MAIL FROM:"):
			cur = Mail{From: strings.Trim(cmd[len("MAIL FROM:"):], "<> ")}
			say("250 OK")
		case strings.HasPrefix(upper, "RCPT TO:"):
			cur.To = strings.Trim(cmd[len("RCPT TO:"):], "<> ")
			say("250 OK")
		case strings.HasPrefix(upper, "RSET"), strings.HasPrefix(upper, "NOOP"):
			say("250 OK")
		case upper == "DATA":
			say("354 go ahead")
			var data strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				data.WriteString(l)
			}
			cur.Data = data.String()
			m.mu.Lock()
			m.msgs = append(m.msgs, cur)
			m.mu.Unlock()
			say("250 queued")
			m.arrive <- struct{}{}
		case upper == "QUIT":
			say("221 bye")
			return
		default:
			say("500 command unrecognized") // RFC 5321: a verb this receiver does not speak
		}
	}
}

// Mails are the messages so far.
func (m *MailReceiver) Mails() []Mail {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Mail(nil), m.msgs...)
}

// Wait blocks until the receiver holds n messages, or fails the test.
func (m *MailReceiver) Wait(t testing.TB, n int, timeout time.Duration) []Mail {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if got := m.Mails(); len(got) >= n {
			return got
		}
		select {
		case <-m.arrive:
		case <-deadline:
			t.Fatalf("mail receiver holds %d messages after %s, want %d", len(m.Mails()), timeout, n)
		}
	}
}
