package dispatch

import (
	"encoding/json"
	"fmt"

	"garrison/contact"
	"garrison/event"
	"garrison/store"
)

// MaxGroupListed bounds the alerts a group message lists; its count says
// how many it stands for.
const MaxGroupListed = 20

// alertOf is an alert as a message names it.
func (d *Dispatcher) alertOf(g store.AlertSignal) contact.Alert {
	link := ""
	if d.cfg.BaseURL != "" {
		link = d.cfg.BaseURL + "/alerts/" + g.AlertID
	}
	return contact.Alert{ID: g.AlertID, Title: g.Title, Severity: event.Severity(g.Severity).String(), Category: g.Category,
		Asset: g.Asset, Indicator: g.Indicator, RecommendedAction: g.Action, Events: g.Events, FirstSeen: g.FirstSeen, Link: link}
}

// message is what one delivery about an alert says.
func (d *Dispatcher) message(g store.AlertSignal, ev, idem, rule string) contact.Message {
	m := contact.Message{ID: idem, Event: ev, OrgID: g.OrgID, OrgName: g.OrgName, Rule: rule, DedupKey: g.AlertID,
		Alerts: []contact.Alert{d.alertOf(g)}, Count: 1, At: d.now()}
	if g.ProviderID != "" {
		m.Provider = g.ProviderName
	}
	return m
}

func encode(m contact.Message) []byte {
	b, err := json.Marshal(m)
	if err != nil { // a message of strings, numbers and times always encodes
		panic(fmt.Sprintf("encode message: %v", err))
	}
	return b
}

// mergeInto adds an alert to a queued group message.
func mergeInto(a contact.Alert) func([]byte) ([]byte, error) {
	return func(queued []byte) ([]byte, error) {
		var m contact.Message
		if err := json.Unmarshal(queued, &m); err != nil {
			return nil, fmt.Errorf("read the group's message: %w", err)
		}
		m.Count++
		if len(m.Alerts) < MaxGroupListed {
			m.Alerts = append(m.Alerts, a)
		}
		m.DedupKey = "" // a group stands for several alerts, each with its own incident
		return encode(m), nil
	}
}
