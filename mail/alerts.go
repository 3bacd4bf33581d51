package mail

import (
	"context"
	"fmt"
	"strings"
	"time"

	"garrison/contact"
	"garrison/store"
)

// AlertMail is the mail of an alert notification: the headline as the
// subject, then each alert with what to do first.
func AlertMail(m contact.Message) (subject, body string) {
	var b strings.Builder
	switch m.Event {
	case contact.Test:
		fmt.Fprintf(&b, "This is a test message from Garrison for %s.\nAlert notifications for this contact point will arrive like this one.\n", m.OrgName)
		return m.Title(), b.String()
	case contact.Escalate:
		fmt.Fprintf(&b, "Nobody has acknowledged this critical alert (escalation %d).\n\n", m.Escalation)
	case contact.Resolve:
		b.WriteString("Resolved:\n\n")
	case contact.Acknowledge:
		b.WriteString("Acknowledged:\n\n")
	}
	org := m.OrgName
	if m.Provider != "" {
		org += " (client of " + m.Provider + ")"
	}
	fmt.Fprintf(&b, "Organization: %s\n", org)
	if m.Count > 1 {
		fmt.Fprintf(&b, "%d alerts matched the rule %q", m.Count, m.Rule)
		if len(m.Alerts) < m.Count {
			fmt.Fprintf(&b, "; the first %d:", len(m.Alerts))
		}
		b.WriteString("\n")
	}
	for _, a := range m.Alerts {
		fmt.Fprintf(&b, "\n[%s] %s\n", strings.ToUpper(a.Severity), a.Title)
		fmt.Fprintf(&b, "  Asset: %s\n  Category: %s\n  Events: %d since %s\n", a.Asset, a.Category, a.Events,
			a.FirstSeen.UTC().Format(time.RFC3339))
		if a.Indicator != "" {
			fmt.Fprintf(&b, "  Indicator: %s\n", a.Indicator)
		}
		if a.RecommendedAction != "" {
			fmt.Fprintf(&b, "  Do first: %s\n", a.RecommendedAction)
		}
		if a.Link != "" {
			fmt.Fprintf(&b, "  Open: %s\n", a.Link)
		}
	}
	if m.Rule != "" {
		fmt.Fprintf(&b, "\nYou receive this because of the notification rule %q.\n", m.Rule)
	}
	return m.Title(), b.String()
}

// SendAlert mails an alert notification now, outside the outbox: the
// notification outbox (package dispatch) keeps and retries it.
func (m *Mailer) SendAlert(ctx context.Context, to string, msg contact.Message) (string, error) {
	subject, body := AlertMail(msg)
	return m.deliver(ctx, store.Mail{To: to, Subject: subject, Body: body})
}
