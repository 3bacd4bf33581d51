package mail_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"garrison/handlers/apitest"
	"garrison/mail"
)

// fakeSMTP is a minimal SMTP server on loopback that keeps what it receives.
type fakeSMTP struct {
	addr         string
	mu           sync.Mutex
	msgs         []string
	got          chan struct{}
	beforeQueued func() // called before the relay answers the end of a message
}

func startFakeSMTP(t *testing.T) *fakeSMTP {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeSMTP{addr: ln.Addr().String(), got: make(chan struct{}, 10)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go f.session(c)
		}
	}()
	return f
}

func (f *fakeSMTP) session(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(s string) { io.WriteString(c, s+"\r\n") }
	say("220 fake ESMTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 fake")
		case strings.HasPrefix(cmd, "MAIL"), strings.HasPrefix(cmd, "RCPT"), strings.HasPrefix(cmd, "RSET"), strings.HasPrefix(cmd, "NOOP"):
			say("250 OK")
		case cmd == "DATA":
			say("354 go ahead")
			var msg strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				msg.WriteString(l)
			}
			f.mu.Lock()
			f.msgs = append(f.msgs, msg.String())
			hook := f.beforeQueued
			f.mu.Unlock()
			if hook != nil {
				hook()
			}
			say("250 queued")
			f.got <- struct{}{}
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("500 command unrecognized") // RFC 5321: a verb this receiver does not speak
		}
	}
}

func TestMailOverSMTP(t *testing.T) {
	smtpServer := startFakeSMTP(t)
	e := apitest.New(t, func(c *apitest.Config) { c.SMTPAddr = smtpServer.addr; c.SMTPFrom = "soc@msp.test" })
	defer e.Background()()
	e.Register("ann@acme.test", "Acme")
	select {
	case <-smtpServer.got:
	case <-time.After(10 * time.Second):
		t.Fatal("no mail arrived at the SMTP server")
	}
	smtpServer.mu.Lock()
	msg := smtpServer.msgs[0]
	smtpServer.mu.Unlock()
	for _, want := range []string{"From: soc@msp.test", "To: ann@acme.test", "Subject: Confirm your Garrison e-mail address",
		"https://garrison.test/verify-email?token="} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	// The token in the message works, and the outbox no longer holds it.
	token := apitest.TokenInLink.FindStringSubmatch(msg)[1]
	e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": token}).Must(t, http.StatusOK)
	waitOutbox(t, e, "sent")
}

// waitOutbox waits for the mail worker to settle the newest message, then
// checks its status and that its body is gone.
func waitOutbox(t *testing.T, e *apitest.Env, want string) {
	t.Helper()
	var status, body string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		e.Store.DB().QueryRow(`SELECT status, body FROM outbox ORDER BY id DESC LIMIT 1`).Scan(&status, &body)
		if status != "pending" {
			break
		}
	}
	if status != want || body != "" {
		t.Fatalf("outbox status %q, body %q", status, body)
	}
}

func TestMailWithoutSMTPGoesToLog(t *testing.T) {
	e := apitest.New(t)
	defer e.Background()()
	e.Register("ann@acme.test", "Acme")
	waitOutbox(t, e, "logged")
	if m := apitest.TokenInLink.FindStringSubmatch(e.Logs.String()); m == nil {
		t.Fatalf("mail not written to the log: %s", e.Logs.String())
	} else {
		e.Do("POST", "/api/auth/verify-email", "", map[string]string{"token": m[1]}).Must(t, http.StatusOK)
	}
}

// TestMailTakenAtShutdownIsRecorded: a message the relay takes while the
// server is stopping is recorded as sent, so the next start does not send
// it again, and the stop logs no warning.
func TestMailTakenAtShutdownIsRecorded(t *testing.T) {
	smtpServer := startFakeSMTP(t)
	e := apitest.New(t, func(c *apitest.Config) { c.SMTPAddr = smtpServer.addr })
	e.Register("ann@acme.test", "Acme") // queues the confirmation; no mailer runs yet
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	smtpServer.mu.Lock()
	smtpServer.beforeQueued = cancel // the stop comes while the relay takes the message
	smtpServer.mu.Unlock()
	var logs apitest.LockedBuffer
	m := mail.New(mail.Config{Store: e.Store, Log: slog.New(slog.NewTextHandler(&logs, nil)), Now: time.Now,
		BaseURL: apitest.BaseURL, SMTPAddr: smtpServer.addr, From: "soc@msp.test"})
	done := make(chan struct{})
	go func() {
		m.Run(ctx)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the mailer did not stop")
	}
	var status string
	if err := e.Store.DB().QueryRow(`SELECT status FROM outbox ORDER BY id DESC LIMIT 1`).Scan(&status); err != nil {
		t.Fatal(err)
	}
	if status != "sent" {
		t.Errorf("outbox says %q for a message the relay took: the next start would send it again", status)
	}
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("the stop logged a warning:\n%s", logs.String())
	}
}

// TestResetMailFromQueue: the worker turns a queued reset request into a
// mail without anyone calling it by hand.
func TestResetMailFromQueue(t *testing.T) {
	e := apitest.New(t)
	e.Register("ann@acme.test", "Acme")
	defer e.Background()()
	e.Do("POST", "/api/auth/reset-request", "", map[string]string{"email": "ann@acme.test"}).Must(t, http.StatusOK)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(e.Logs.String(), "reset-password?token=") {
			return
		}
	}
	t.Fatal("reset mail never produced")
}

// TestLoggedMailNamesTheCertificate: mail written to the log is read on
// the appliance, so its curl commands trust the server's own certificate;
// mail sent to a mailbox elsewhere does not name a file of this machine.
func TestLoggedMailNamesTheCertificate(t *testing.T) {
	for _, tc := range []struct {
		name, smtp, want string
		named            bool
	}{
		{"written to the log", "", "curl --cacert '/srv/garrison/data/tls-cert.pem' -X POST https://garrison.test/api/auth/verify-email", true},
		{"sent by SMTP", "127.0.0.1:2525", "curl -X POST https://garrison.test/api/auth/verify-email", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mail.New(mail.Config{BaseURL: "https://garrison.test", SMTPAddr: tc.smtp, CACert: "/srv/garrison/data/tls-cert.pem"})
			body := m.Verify("ann@acme.test", "tok").Body
			if !strings.Contains(body, tc.want) || strings.Contains(body, "--cacert") != tc.named {
				t.Fatalf("body:\n%s", body)
			}
		})
	}
}
