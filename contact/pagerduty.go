package contact

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// PagerDuty Events API v2 (developer.pagerduty.com, "Send an Alert Event").
const (
	pagerDutyURL      = "https://events.pagerduty.com/v2/enqueue"
	pagerDutyDedupMax = 255 // dedup_key's limit
)

type pagerDutyEvent struct {
	RoutingKey  string            `json:"routing_key"`
	EventAction string            `json:"event_action"`
	DedupKey    string            `json:"dedup_key"`
	Payload     *pagerDutyPayload `json:"payload,omitempty"`
	Links       []pagerDutyLink   `json:"links,omitempty"`
	Client      string            `json:"client,omitempty"`
}

type pagerDutyPayload struct {
	Summary       string         `json:"summary"`
	Source        string         `json:"source"`
	Severity      string         `json:"severity"`
	Timestamp     any            `json:"timestamp,omitempty"`
	Component     string         `json:"component,omitempty"`
	Group         string         `json:"group,omitempty"`
	Class         string         `json:"class,omitempty"`
	CustomDetails map[string]any `json:"custom_details"`
}

type pagerDutyLink struct {
	Href string `json:"href"`
	Text string `json:"text"`
}

// pagerDutyActions: an escalation re-triggers the open incident (the same
// dedup key), and a test is a trigger of its own.
var pagerDutyActions = map[string]string{
	Trigger:     "trigger",
	Escalate:    "trigger",
	Test:        "trigger",
	Acknowledge: "acknowledge",
	Resolve:     "resolve",
}

// pagerDutySeverity maps ours onto PagerDuty's four.
func pagerDutySeverity(sev string) string {
	switch sev {
	case "critical":
		return "critical"
	case "high":
		return "error"
	case "medium":
		return "warning"
	}
	return "info"
}

func pagerDutyBody(ep Endpoint, m Message, now time.Time) (pagerDutyEvent, error) {
	action, ok := pagerDutyActions[m.Event]
	if !ok {
		return pagerDutyEvent{}, fmt.Errorf("unknown event %q", m.Event)
	}
	if ep.RoutingKey == "" {
		return pagerDutyEvent{}, errors.New("pagerduty contact point has no routing key")
	}
	// A group has no alert of its own to key on; its message id still
	// makes a retried trigger one incident, not two.
	key := m.DedupKey
	if key == "" || m.Event == Test {
		key = m.ID
	}
	if key == "" || len(key) > pagerDutyDedupMax {
		return pagerDutyEvent{}, fmt.Errorf("pagerduty dedup_key must be 1 to %d bytes, not %d", pagerDutyDedupMax, len(key))
	}
	ev := pagerDutyEvent{RoutingKey: ep.RoutingKey, EventAction: action, DedupKey: key}
	if action != "trigger" {
		return ev, nil // acknowledge and resolve carry nothing else
	}
	p := &pagerDutyPayload{
		Summary:  cut(m.Title(), maxSummary),
		Source:   line(m.OrgName, maxField),
		Severity: pagerDutySeverity(m.severity()),
		Group:    line(m.OrgName, maxField),
		CustomDetails: map[string]any{
			"message_id":   m.ID,
			"organization": line(orgName(m), maxField),
			"org_id":       line(m.OrgID, maxField),
			"count":        m.count(),
		},
	}
	if m.Provider != "" {
		p.CustomDetails["provider"] = line(m.Provider, maxField)
	}
	if m.Rule != "" {
		p.CustomDetails["rule"] = line(m.Rule, maxField)
	}
	if m.Escalation > 0 {
		p.CustomDetails["escalation"] = m.Escalation
	}
	if len(m.Alerts) == 1 {
		a := m.Alerts[0]
		if asset := line(a.Asset, maxField); asset != "" {
			p.Source = asset
		}
		p.Component = line(a.Indicator, maxField)
		p.Class = line(a.Category, maxField)
		if act := line(a.RecommendedAction, maxAction); act != "" {
			p.CustomDetails["recommended_action"] = act
		}
	}
	if p.Source == "" {
		p.Source = "Garrison" // required, and a test may come from an unnamed organization
	}
	p.Timestamp = pagerDutyTime(m, now)
	if len(m.Alerts) > 0 {
		p.CustomDetails["alerts"] = wireAlerts(m.Alerts)
	}
	ev.Payload, ev.Client = p, "Garrison"
	for _, a := range m.Alerts {
		if a.Link == "" || len(a.Link) > maxLink || CheckURL(a.Link) != "" {
			continue
		}
		text := "Open in Garrison"
		if len(m.Alerts) > 1 {
			text = "Open in Garrison: " + line(alertLine(a), 100)
		}
		ev.Links = append(ev.Links, pagerDutyLink{Href: a.Link, Text: text})
	}
	return ev, nil
}

// pagerDutyTime is when what the event reports began: the first listed
// alert's first event, else the message's time.
func pagerDutyTime(m Message, now time.Time) any {
	for _, a := range m.Alerts {
		if !a.FirstSeen.IsZero() {
			return utc(a.FirstSeen)
		}
	}
	if !m.At.IsZero() {
		return utc(m.At)
	}
	return utc(now)
}

// pagerDutyEndpoint is where events go: the contact point's base, or
// PagerDuty's own.
func pagerDutyEndpoint(ep Endpoint) string {
	if u := strings.TrimSpace(ep.URL); u != "" {
		return u
	}
	return pagerDutyURL
}
