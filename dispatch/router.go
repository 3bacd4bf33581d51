package dispatch

import (
	"context"
	"fmt"
	"slices"
	"time"

	"garrison/contact"
	"garrison/event"
	"garrison/store"
)

// routeBatch is how many signals one routing transaction takes.
const routeBatch = 200

// route turns queued alert signals into deliveries until none is left,
// and reports whether it queued any.
func (d *Dispatcher) route(ctx context.Context) (bool, error) {
	queued := false
	for {
		signals, err := d.cfg.Store.AlertSignals(ctx, routeBatch)
		if err != nil || len(signals) == 0 {
			return queued, err
		}
		r := router{d: d, rules: map[string][]store.NotifyRule{}, channels: map[string]store.NotifyChannel{}}
		var deliveries []store.NewDelivery
		var escalations []store.Escalation
		for _, g := range signals {
			if g.AlertID == "" {
				continue // the alert went with its organization
			}
			nd, ne, err := r.decide(ctx, g)
			if err != nil {
				return queued, err
			}
			deliveries, escalations = append(deliveries, nd...), append(escalations, ne...)
		}
		if err := d.cfg.Store.RouteSignals(ctx, signals[len(signals)-1].Seq, deliveries, escalations); err != nil {
			return queued, err
		}
		queued = queued || len(deliveries) > 0
	}
}

// router decides one batch, reading each organization's rules and
// contact points once.
type router struct {
	d        *Dispatcher
	rules    map[string][]store.NotifyRule
	channels map[string]store.NotifyChannel // by id, of every organization read
}

func (r *router) orgRules(ctx context.Context, orgID string) ([]store.NotifyRule, error) {
	if orgID == "" {
		return nil, nil
	}
	if rules, ok := r.rules[orgID]; ok {
		return rules, nil
	}
	rules, err := r.d.cfg.Store.NotifyRules(ctx, orgID)
	if err != nil {
		return nil, err
	}
	channels, err := r.d.cfg.Store.NotifyChannels(ctx, orgID)
	if err != nil {
		return nil, err
	}
	for _, c := range channels {
		r.channels[c.ID] = c
	}
	r.rules[orgID] = rules
	return rules, nil
}

// decide is what one signal sends, and whether it starts an escalation.
func (r *router) decide(ctx context.Context, g store.AlertSignal) ([]store.NewDelivery, []store.Escalation, error) {
	own, err := r.orgRules(ctx, g.OrgID)
	if err != nil {
		return nil, nil, err
	}
	provider, err := r.orgRules(ctx, g.ProviderID)
	if err != nil {
		return nil, nil, err
	}
	switch g.Signal {
	case store.SignalOpened:
		return r.opened(ctx, g, own, provider)
	case store.SignalResolved, store.SignalAcknowledged:
		return r.followUp(ctx, g)
	}
	return nil, nil, nil
}

func (r *router) opened(ctx context.Context, g store.AlertSignal, own, provider []store.NotifyRule) ([]store.NewDelivery, []store.Escalation, error) {
	if g.Status != "open" {
		return nil, nil, nil // resolved before it was routed: nobody needs waking
	}
	sev := event.Severity(g.Severity)
	facts := Facts{OrgID: g.OrgID, Severity: sev, Category: g.Category, EventType: g.EventType, Asset: g.Asset, Source: g.Source}
	var out []store.NewDelivery
	var escalations []store.Escalation
	now := r.d.now()
	for _, rule := range Applicable(own, provider, facts) {
		due := now
		if sev < event.Critical { // quiet hours hold all but critical alerts until they end
			if until := QuietUntil(rule, now); !until.IsZero() {
				due = until
			}
		}
		for _, id := range rule.Channels {
			c, ok := r.channels[id]
			if !ok {
				continue // deleted since the rule was read
			}
			ds, err := deliveriesTo(ctx, r.d, g, rule, c, contact.Trigger, fmt.Sprintf("alert:%s:%s:%s", g.AlertID, rule.ID, id), 0)
			if err != nil {
				return nil, nil, err
			}
			for i := range ds {
				ds[i].NextAt = due
				if rule.GroupSeconds > 0 {
					ds[i].Group = &store.Group{Key: fmt.Sprintf("%s|%s|%s|%s", rule.ID, id, ds[i].Recipient, g.OrgID),
						Window: time.Duration(rule.GroupSeconds) * time.Second, Merge: mergeInto(r.d.alertOf(g))}
				}
			}
			out = append(out, ds...)
		}
		if sev == event.Critical && len(rule.EscalationChannels) > 0 && !g.Acknowledged {
			escalations = append(escalations, store.Escalation{AlertID: g.AlertID, RuleID: rule.ID,
				NextAt: now.Add(time.Duration(rule.EscalateMinutes) * time.Minute)})
		}
	}
	return out, escalations, nil
}

// followUp tells the receivers that track incidents (PagerDuty, webhooks)
// that an alert they were sent was resolved or acknowledged.
func (r *router) followUp(ctx context.Context, g store.AlertSignal) ([]store.NewDelivery, []store.Escalation, error) {
	sent, err := r.d.cfg.Store.AlertDeliveries(ctx, g.AlertID)
	if err != nil {
		return nil, nil, err
	}
	ev := contact.Resolve
	if g.Signal == store.SignalAcknowledged {
		ev = contact.Acknowledge
	}
	if g.Signal == store.SignalResolved && g.Status != "resolved" {
		return nil, nil, nil // reopened since
	}
	var out []store.NewDelivery
	done := map[string]bool{}
	for _, s := range sent {
		if s.Event != contact.Trigger || done[s.ChannelID] || (s.ChannelKind != contact.PagerDuty && s.ChannelKind != contact.Webhook) {
			continue
		}
		done[s.ChannelID] = true
		idem := fmt.Sprintf("%s:%s:%d", ev, s.ChannelID, g.Seq)
		m := r.d.message(g, ev, idem, "")
		out = append(out, store.NewDelivery{Delivery: store.Delivery{OrgID: s.OrgID, AlertOrgID: g.OrgID, ChannelID: s.ChannelID,
			RuleID: s.RuleID, IdemKey: idem, Event: ev, AlertID: g.AlertID, Message: encode(m)}})
	}
	return out, nil, nil
}

// deliveriesTo are one message to a contact point: one per address for
// e-mail (each address its own receiver, with its own key), one otherwise.
func deliveriesTo(ctx context.Context, d *Dispatcher, g store.AlertSignal, rule store.NotifyRule, c store.NotifyChannel, ev, idem string, escalation int) ([]store.NewDelivery, error) {
	recipients := []string{""}
	if c.Kind == contact.Email {
		var err error
		if recipients, err = Recipients(ctx, d.cfg.Store, c, g.OrgID); err != nil {
			return nil, err
		}
	}
	out := make([]store.NewDelivery, 0, len(recipients))
	for _, to := range recipients {
		key := idem
		if to != "" {
			key += ":" + to
		}
		m := d.message(g, ev, key, rule.Name)
		m.Escalation = escalation
		out = append(out, store.NewDelivery{Delivery: store.Delivery{OrgID: c.OrgID, AlertOrgID: g.OrgID, ChannelID: c.ID,
			RuleID: rule.ID, Recipient: to, IdemKey: key, Event: ev, AlertID: g.AlertID, Message: encode(m)}})
	}
	return out, nil
}

// Recipients are an e-mail contact point's addresses for an alert of
// alertOrg: its own addresses and the members with its roles who may act
// there.
func Recipients(ctx context.Context, st *store.Store, c store.NotifyChannel, alertOrg string) ([]string, error) {
	out := append([]string(nil), c.Addresses...)
	if len(c.Roles) > 0 {
		members, err := st.NotifyRecipients(ctx, c.OrgID, alertOrg, c.Roles)
		if err != nil {
			return nil, err
		}
		for _, m := range members {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out, nil
}
