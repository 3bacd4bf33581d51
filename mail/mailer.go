// Package mail is all the mail Garrison sends: the text of every message,
// turning queued password-reset requests into tokens and mails, and the
// mailer that delivers the outbox over SMTP or, without a server, into the
// log. Messages are committed to the outbox in the same transaction as
// whatever they announce, so a crash or an SMTP outage delays mail but
// never loses it.
package mail

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

// Config is what the mailer needs.
type Config struct {
	Store *store.Store
	Log   *slog.Logger
	Now   func() time.Time
	// BaseURL is the public URL of the server: links in mail are built on
	// it, never on a request's Host header.
	BaseURL string
	// SMTPAddr is the relay's host:port; empty writes mail to the log.
	SMTPAddr string
	From     string
	Username string // SMTP AUTH PLAIN when set
	Password string
	// CACert is the server's self-signed certificate file ("" for a
	// certificate clients trust): mail written to the log is read on the
	// appliance, and its curl commands name the file so they work as
	// printed.
	CACert string
	// Observe, when set, hears each delivery attempt's outcome ("sent",
	// "logged", or the failed status).
	Observe func(outcome string)
}

// Mailer composes and delivers mail.
type Mailer struct {
	baseURL string
	store   *store.Store
	smtp    *smtpSender // nil: log only
	log     *slog.Logger
	now     func() time.Time
	wake    chan struct{}
	observe func(outcome string)
	caCert  string // for the curl commands of mail written to the log
}

// New builds a mailer over the store's outbox.
func New(cfg Config) *Mailer {
	m := &Mailer{baseURL: strings.TrimSuffix(cfg.BaseURL, "/"), store: cfg.Store, log: cfg.Log, now: cfg.Now, wake: make(chan struct{}, 1), observe: cfg.Observe}
	if m.store != nil {
		// Of a cluster's nodes, the one delivering mail wakes.
		m.store.OnChange(store.TopicMail, m.wakeUp)
	}
	if cfg.SMTPAddr != "" {
		m.smtp = &smtpSender{addr: cfg.SMTPAddr, from: cfg.From, username: cfg.Username, password: cfg.Password}
	} else {
		m.caCert = cfg.CACert
	}
	return m
}

// Notify wakes the mailer after something was queued, on whichever node
// of a cluster delivers mail; it never waits for the delivery.
func (m *Mailer) Notify() {
	if m.store == nil {
		m.wakeUp()
		return
	}
	m.store.Announce(store.TopicMail)
}

func (m *Mailer) wakeUp() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// Run turns reset requests into mail and delivers the outbox until ctx is
// done.
func (m *Mailer) Run(ctx context.Context) {
	t := time.NewTicker(mailRetryEvery)
	defer t.Stop()
	for {
		if err := m.ProcessResetRequests(ctx); err != nil && ctx.Err() == nil {
			m.log.Warn("prepare reset mail", "err", err)
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
func (m *Mailer) flush(ctx context.Context) {
	seen := map[int64]bool{}
	for ctx.Err() == nil {
		pending, err := m.store.PendingMail(ctx, mailBatch)
		if err != nil {
			if ctx.Err() == nil { // a shutdown is not an outbox failure
				m.log.Warn("read outbox", "err", err)
			}
			return
		}
		progressed := false
		for _, msg := range pending {
			if seen[msg.ID] {
				continue // failed once this round; retried on the next tick
			}
			seen[msg.ID], progressed = true, true
			status, deliveryErr := m.deliver(ctx, msg)
			if deliveryErr != nil && ctx.Err() != nil {
				return // cut short by shutdown: not one of the message's attempts
			}
			if m.observe != nil {
				outcome := status
				if deliveryErr != nil {
					outcome = "failed"
				}
				m.observe(outcome)
			}
			if err := m.mark(ctx, msg.ID, status, deliveryErr); err != nil {
				m.log.Warn("update outbox", "id", msg.ID, "err", err)
				return
			}
		}
		if !progressed {
			return
		}
	}
}

// mark records a delivery attempt even when shutdown began during it: a
// message the relay took but the outbox still calls pending would be sent
// again at the next start.
func (m *Mailer) mark(ctx context.Context, id int64, status string, deliveryErr error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), smtpTimeout)
	defer cancel()
	return m.store.MarkMail(ctx, id, status, deliveryErr, mailMaxAttempts)
}

func (m *Mailer) deliver(ctx context.Context, msg store.Mail) (string, error) {
	if m.smtp == nil {
		m.log.Info("mail (no SMTP server configured)", "to", msg.To, "subject", msg.Subject, "body", msg.Body)
		return store.MailLogged, nil
	}
	if err := m.smtp.send(ctx, msg); err != nil {
		if ctx.Err() == nil {
			m.log.Warn("send mail", "id", msg.ID, "to", msg.To, "err", err)
		}
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
	// The relay took the message with its answer to the end of data; a
	// QUIT that fails after it must not make the message be sent again.
	c.Quit()
	return nil
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
