package contact

import (
	"fmt"
	"time"
)

// The Standard Webhooks envelope: a type, when, and the data.
type webhookEnvelope struct {
	Type      string      `json:"type"`
	Timestamp string      `json:"timestamp"`
	Data      webhookData `json:"data"`
}

type webhookData struct {
	ID         string         `json:"id"`
	Org        webhookOrg     `json:"org"`
	Provider   string         `json:"provider"`
	Rule       string         `json:"rule"`
	Count      int            `json:"count"`
	Escalation int            `json:"escalation"`
	Alerts     []webhookAlert `json:"alerts"`
}

type webhookOrg struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type webhookAlert struct {
	ID                string `json:"id"`
	Title             string `json:"title"`
	Severity          string `json:"severity"`
	Category          string `json:"category"`
	Asset             string `json:"asset"`
	Indicator         string `json:"indicator"`
	RecommendedAction string `json:"recommended_action"`
	Events            int    `json:"events"`
	FirstSeen         any    `json:"first_seen"` // RFC 3339, or null
	Link              string `json:"link"`
}

// webhookTypes names each event as the envelope's type.
var webhookTypes = map[string]string{
	Trigger:     "alert.trigger",
	Resolve:     "alert.resolve",
	Acknowledge: "alert.acknowledge",
	Escalate:    "alert.escalate",
	Test:        "test",
}

func webhookBody(m Message, now time.Time) (webhookEnvelope, error) {
	typ, ok := webhookTypes[m.Event]
	if !ok {
		return webhookEnvelope{}, fmt.Errorf("unknown event %q", m.Event)
	}
	return webhookEnvelope{
		Type:      typ,
		Timestamp: now.UTC().Format(time.RFC3339),
		Data: webhookData{
			ID:         m.ID,
			Org:        webhookOrg{ID: line(m.OrgID, maxField), Name: line(m.OrgName, maxField)},
			Provider:   line(m.Provider, maxField),
			Rule:       line(m.Rule, maxField),
			Count:      m.count(),
			Escalation: m.Escalation,
			Alerts:     wireAlerts(m.Alerts),
		},
	}, nil
}

// wireAlerts are the alerts as the webhook and PagerDuty's details carry
// them, each field bounded.
func wireAlerts(list []Alert) []webhookAlert {
	out := make([]webhookAlert, 0, len(list)) // [] rather than null for a test
	for _, a := range list {
		out = append(out, webhookAlert{
			ID:                line(a.ID, maxField),
			Title:             line(a.Title, maxTitle),
			Severity:          line(a.Severity, maxField),
			Category:          line(a.Category, maxField),
			Asset:             line(a.Asset, maxField),
			Indicator:         line(a.Indicator, maxField),
			RecommendedAction: line(a.RecommendedAction, maxAction),
			Events:            a.Events,
			FirstSeen:         utc(a.FirstSeen),
			Link:              line(a.Link, maxLink),
		})
	}
	return out
}
