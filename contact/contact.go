// Package contact is the wire side of Garrison's notification contact
// points: for each kind of receiver the exact request its protocol
// expects (Standard Webhooks, Slack incoming webhooks, Teams workflow
// webhooks, PagerDuty Events API v2), the webhook signature, one attempt
// over HTTP and what the answer means for a retry. It keeps nothing and
// routes nothing: the caller decides what to send, to whom and when.
package contact

import (
	"fmt"
	"strings"
	"time"
)

// Kinds of contact point.
const (
	Email     = "email"     // delivered by the mailer, not by this package
	Webhook   = "webhook"   // Standard Webhooks signed JSON
	Slack     = "slack"     // Slack-compatible incoming webhook (Mattermost, Rocket.Chat accept it)
	Teams     = "teams"     // Microsoft Teams workflow webhook: an Adaptive Card
	PagerDuty = "pagerduty" // PagerDuty Events API v2
)

// Kinds lists every kind of contact point.
var Kinds = []string{Email, Webhook, Slack, Teams, PagerDuty}

// Events of a message.
const (
	Trigger     = "trigger"     // an alert opened (or a group of alerts)
	Resolve     = "resolve"     // the alert was resolved
	Acknowledge = "acknowledge" // someone acknowledged it
	Escalate    = "escalate"    // not acknowledged in time
	Test        = "test"        // POST /notification-channels/{id}/test
)

// Alert is one alert as a message names it.
type Alert struct {
	ID                string
	Title             string
	Severity          string // critical, high, medium, low or info
	Category          string
	Asset             string
	Indicator         string
	RecommendedAction string
	Events            int // events behind it
	FirstSeen         time.Time
	Link              string // the console URL of the alert ("" when none)
}

// Message is what one notification says, whatever the receiver. It is
// queued as JSON, so it holds only strings, numbers and times.
type Message struct {
	ID             string // idempotency key: Standard Webhooks webhook-id, and the id in every payload
	Event          string // one of the events above
	OrgID, OrgName string // the organization (a provider's client when Provider is set)
	Provider       string // the provider's name when the org is its client, else ""
	Rule           string // routing rule name ("" for a test)
	DedupKey       string // PagerDuty dedup_key: the alert id, so trigger/acknowledge/resolve of one alert are one incident
	Alerts         []Alert
	Count          int // alerts the message stands for (a group may stand for more than it lists)
	Escalation     int // 1.. for the n-th escalation, 0 otherwise
	At             time.Time
}

// Title is the one-line headline every kind uses, e.g.
// "[CRITICAL] Dental One: Ransomware beacon on ws-12",
// "[HIGH] Dental One: 7 alerts (rule Night shift)" or "Test from Garrison".
// Other events than a trigger say so first ("Resolved: [CRITICAL] …"), so
// a resolution never reads like a new alert in a subject line.
func (m Message) Title() string {
	if m.Event == Test {
		return "Test from Garrison"
	}
	var b strings.Builder
	switch m.Event {
	case Resolve:
		b.WriteString("Resolved: ")
	case Acknowledge:
		b.WriteString("Acknowledged: ")
	case Escalate:
		fmt.Fprintf(&b, "Escalation %d: ", max(m.Escalation, 1))
	}
	if sev := m.severity(); sev != "" {
		fmt.Fprintf(&b, "[%s] ", strings.ToUpper(sev))
	}
	if m.OrgName != "" {
		b.WriteString(m.OrgName + ": ")
	}
	switch n := m.count(); {
	case n > 1:
		fmt.Fprintf(&b, "%d alerts", n)
		if m.Rule != "" {
			fmt.Fprintf(&b, " (rule %s)", m.Rule)
		}
	case len(m.Alerts) == 1:
		b.WriteString(alertLine(m.Alerts[0]))
	default:
		b.WriteString("alert")
	}
	return line(b.String(), maxTitle)
}

// count is how many alerts the message stands for: at least those it lists.
func (m Message) count() int {
	return max(m.Count, len(m.Alerts))
}

// severity is the worst severity among the listed alerts.
func (m Message) severity() string {
	worst := ""
	for _, a := range m.Alerts {
		if rank(a.Severity) > rank(worst) {
			worst = a.Severity
		}
	}
	return strings.ToLower(worst)
}

// alertLine names an alert and where it happened, without repeating an
// asset its title already names ("Burst of … events from ws-12").
func alertLine(a Alert) string {
	title := a.Title
	if title == "" {
		title = a.Category
	}
	if a.Asset == "" || strings.Contains(title, a.Asset) {
		return title
	}
	return title + " on " + a.Asset
}

// eventsSince is "3 events since 2026-01-02T15:04:05Z".
func eventsSince(a Alert) string {
	s := fmt.Sprintf("%d events", a.Events)
	if a.Events == 1 {
		s = "1 event"
	}
	if !a.FirstSeen.IsZero() {
		s += " since " + a.FirstSeen.UTC().Format(time.RFC3339)
	}
	return s
}

// orgName names the organization and, for a client, its provider.
func orgName(m Message) string {
	if m.Provider != "" {
		return m.OrgName + " (client of " + m.Provider + ")"
	}
	return m.OrgName
}

// rank orders severities; an unknown one ranks lowest.
func rank(sev string) int {
	switch strings.ToLower(sev) {
	case "critical":
		return 5
	case "high":
		return 4
	case "medium":
		return 3
	case "low":
		return 2
	case "info":
		return 1
	}
	return 0
}
