package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/smtp"
	"strings"
	"time"

	"garrison/store"
)

const (
	mailBatch       = 20
	mailMaxAttempts = 5
	mailRetryEvery  = 30 * time.Second
	smtpTimeout     = 20 * time.Second
)

// mailer delivers the outbox: over SMTP when configured, otherwise into the
// log. Messages are committed to the outbox before anything is answered, so
// a crash or an SMTP outage delays mail but never loses it.
type mailer struct {
	store *store.Store
	smtp  *smtpSender // nil: log only
	log   *slog.Logger
	wake  chan struct{}
	// prepare turns queued requests into outbox mail before each round.
	prepare func(context.Context) error
}

func newMailer(s *store.Store, cfg config, log *slog.Logger) *mailer {
	m := &mailer{store: s, log: log, wake: make(chan struct{}, 1)}
	if cfg.smtpAddr != "" {
		m.smtp = &smtpSender{addr: cfg.smtpAddr, from: cfg.smtpFrom, username: cfg.smtpUsername, password: cfg.smtpPassword}
	}
	return m
}

// Notify wakes the mailer; it never blocks.
func (m *mailer) Notify() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx is done.
func (m *mailer) Run(ctx context.Context) {
	t := time.NewTicker(mailRetryEvery)
	defer t.Stop()
	for {
		if m.prepare != nil {
			if err := m.prepare(ctx); err != nil && ctx.Err() == nil {
				m.log.Warn("prepare mail", "err", err)
			}
		}
		m.flush(ctx)
		select {
		case <-ctx.Done():
			return
		case <-m.wake:
		case <-t.C:
		}
	}
}

// flush makes one delivery attempt for every pending message.
func (m *mailer) flush(ctx context.Context) {
	seen := map[int64]bool{}
	for ctx.Err() == nil {
		pending, err := m.store.PendingMail(ctx, mailBatch)
		if err != nil {
			m.log.Warn("read outbox", "err", err)
			return
		}
		progressed := false
		for _, msg := range pending {
			if seen[msg.ID] {
				continue // failed once this round; retried on the next tick
			}
			seen[msg.ID], progressed = true, true
			status, deliveryErr := m.deliver(ctx, msg)
			if err := m.store.MarkMail(ctx, msg.ID, status, deliveryErr, mailMaxAttempts); err != nil {
				m.log.Warn("update outbox", "id", msg.ID, "err", err)
				return
			}
		}
		if !progressed {
			return
		}
	}
}

func (m *mailer) deliver(ctx context.Context, msg store.Mail) (string, error) {
	if m.smtp == nil {
		m.log.Info("mail (no SMTP server configured)", "to", msg.To, "subject", msg.Subject, "body", msg.Body)
		return store.MailLogged, nil
	}
	if err := m.smtp.send(ctx, msg); err != nil {
		m.log.Warn("send mail", "id", msg.ID, "to", msg.To, "err", err)
		return store.MailPending, err
	}
	return store.MailSent, nil
}

// smtpSender speaks SMTP to one relay: STARTTLS when offered, AUTH PLAIN
// when a user name is set (net/smtp refuses it without TLS except on loopback).
type smtpSender struct {
	addr, from, username, password string
}

func (s *smtpSender) send(ctx context.Context, msg store.Mail) error {
	ctx, cancel := context.WithTimeout(ctx, smtpTimeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return fmt.Errorf("dial %s: %w", s.addr, err)
	}
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	host, _, _ := net.SplitHostPort(s.addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp greeting: %w", err)
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return fmt.Errorf("smtp hello: %w", err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}); err != nil {
			return fmt.Errorf("smtp starttls: %w", err)
		}
	}
	if s.username != "" {
		if err := c.Auth(smtp.PlainAuth("", s.username, s.password, host)); err != nil {
			return fmt.Errorf("smtp auth: %w", err)
		}
	}
	if err := c.Mail(s.from); err != nil {
		return fmt.Errorf("smtp MAIL FROM: %w", err)
	}
	if err := c.Rcpt(msg.To); err != nil {
		return fmt.Errorf("smtp RCPT TO: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	if _, err := w.Write(formatMessage(s.from, msg, time.Now())); err != nil {
		return fmt.Errorf("smtp write: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp end of data: %w", err)
	}
	return c.Quit()
}

// headerSafe keeps a header value on one line, so no value can add headers.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}

func formatMessage(from string, msg store.Mail, now time.Time) []byte {
	id := make([]byte, 12)
	rand.Read(id)
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\n", headerSafe(from))
	fmt.Fprintf(&b, "To: %s\r\n", headerSafe(msg.To))
	fmt.Fprintf(&b, "Subject: %s\r\n", headerSafe(msg.Subject))
	fmt.Fprintf(&b, "Date: %s\r\n", now.UTC().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <%s@garrison>\r\n", hex.EncodeToString(id))
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	b.WriteString(strings.ReplaceAll(strings.ReplaceAll(msg.Body, "\r\n", "\n"), "\n", "\r\n"))
	return []byte(b.String())
}
