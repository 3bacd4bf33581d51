package dispatch

import (
	"context"
	"fmt"
	"time"

	"garrison/contact"
	"garrison/store"
)

// escalate re-notifies the critical alerts whose wait for an
// acknowledgement ran out, through each rule's escalation contact points:
// every rule's N minutes, at most its K times, until acknowledged or
// resolved. It reports whether it queued anything.
func (d *Dispatcher) escalate(ctx context.Context) (bool, error) {
	due, err := d.cfg.Store.DueEscalations(ctx, d.now(), 100)
	if err != nil {
		return false, err
	}
	queued := false
	for _, e := range due {
		g, err := d.cfg.Store.EscalationAlert(ctx, e.AlertID)
		if err != nil {
			return queued, err
		}
		rules, err := d.cfg.Store.NotifyRules(ctx, g.OrgID, g.ProviderID)
		if err != nil {
			return queued, err
		}
		var rule store.NotifyRule
		for _, r := range rules {
			if r.ID == e.RuleID {
				rule = r
			}
		}
		channels, err := d.cfg.Store.NotifyChannels(ctx, rule.OrgID)
		if err != nil {
			return queued, err
		}
		n := e.Sent + 1
		var out []store.NewDelivery
		for _, c := range channels {
			if !containsID(rule.EscalationChannels, c.ID) {
				continue
			}
			ds, err := deliveriesTo(ctx, d, g, rule, c, contact.Escalate, fmt.Sprintf("escalate:%s:%s:%d:%s", e.AlertID, e.RuleID, n, c.ID), n)
			if err != nil {
				return queued, err
			}
			out = append(out, ds...)
		}
		next := e.NextAt.Add(time.Duration(max(rule.EscalateMinutes, 1)) * time.Minute)
		if err := d.cfg.Store.Escalate(ctx, store.Escalation{AlertID: e.AlertID, RuleID: e.RuleID, NextAt: next}, n >= rule.EscalateMax, out); err != nil {
			return queued, err
		}
		queued = queued || len(out) > 0
	}
	return queued, nil
}

func containsID(ids []string, id string) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}
