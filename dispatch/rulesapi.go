package dispatch

import (
	"context"
	"errors"

	"garrison/actor"
	"garrison/store"
	"garrison/valid"
)

// Rules lists the organization's routing rules, oldest first.
func (d *Dispatcher) Rules(ctx context.Context, who actor.Actor) ([]store.NotifyRule, error) {
	return d.cfg.Store.NotifyRules(ctx, who.OrgID)
}

// Rule is one routing rule of the organization.
func (d *Dispatcher) Rule(ctx context.Context, who actor.Actor, id string) (store.NotifyRule, error) {
	return d.cfg.Store.NotifyRule(ctx, who.OrgID, id)
}

// CreateRule adds a routing rule.
func (d *Dispatcher) CreateRule(ctx context.Context, who actor.Actor, in RuleInput) (store.NotifyRule, error) {
	r, err := d.judge(ctx, who, in)
	if err != nil {
		return r, err
	}
	return d.cfg.Store.CreateNotifyRule(ctx, r)
}

// UpdateRule replaces a routing rule.
func (d *Dispatcher) UpdateRule(ctx context.Context, who actor.Actor, id string, in RuleInput) (store.NotifyRule, error) {
	if _, err := d.cfg.Store.NotifyRule(ctx, who.OrgID, id); err != nil {
		return store.NotifyRule{}, err
	}
	r, err := d.judge(ctx, who, in)
	if err != nil {
		return r, err
	}
	r.ID = id
	return d.cfg.Store.UpdateNotifyRule(ctx, r)
}

// DeleteRule removes a routing rule.
func (d *Dispatcher) DeleteRule(ctx context.Context, who actor.Actor, id string) error {
	return d.cfg.Store.DeleteNotifyRule(ctx, who.OrgID, id)
}

// judge checks a rule as given and against the organization: clients are
// a provider's, each one of its clients; overriding the provider is a
// client's choice.
func (d *Dispatcher) judge(ctx context.Context, who actor.Actor, in RuleInput) (store.NotifyRule, error) {
	r, err := in.rule(who.OrgID)
	if err != nil {
		return r, err
	}
	org, err := d.cfg.Store.Org(ctx, who.OrgID)
	if err != nil {
		return r, err
	}
	if len(in.Clients) > 0 && org.Kind != store.OrgProvider {
		return r, valid.Field("clients", "are named only in a provider's rules")
	}
	for _, id := range in.Clients {
		_, err := d.cfg.Store.Client(ctx, store.ClientScope{ProviderID: who.OrgID}, id)
		if errors.Is(err, store.ErrNotFound) {
			return r, valid.Field("clients", "must be ids of this provider's clients")
		}
		if err != nil {
			return r, err
		}
	}
	if in.OverridesProvider && org.Kind != store.OrgClient {
		return r, valid.Field("overrides_provider", "is set only in a client's rules")
	}
	return r, nil
}
