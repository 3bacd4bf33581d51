package dispatch

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"garrison/actor"
	"garrison/contact"
	"garrison/store"
	"garrison/valid"
)

// MaxAddresses bounds an e-mail contact point's own addresses.
const MaxAddresses = 20

// ChannelInput is a contact point as an admin writes it. The kind cannot
// change once made.
type ChannelInput struct {
	Name       string
	Kind       string
	URL        string   // webhook, slack, teams; pagerduty: "" for PagerDuty's own Events API
	Addresses  []string // email
	Roles      []string // email: members with these roles
	RoutingKey string   // pagerduty: required when made, kept when "" later
	// RotateSecret gives a webhook a new signing secret, shown once.
	RotateSecret bool
}

// channel judges an input for a contact point of kind.
func (in ChannelInput) channel(orgID, kind string, creating bool) (store.NotifyChannel, error) {
	var p valid.Problems
	c := store.NotifyChannel{OrgID: orgID, Name: in.Name, Kind: kind, URL: in.URL}
	p.Check(valid.Name(in.Name), "name", fmt.Sprintf("must be 1 to %d printable characters", valid.MaxName))
	if creating {
		p.Check(slices.Contains(contact.Kinds, kind), "kind", "must be one of "+strings.Join(contact.Kinds, ", "))
	}
	p.Check(kind == contact.Email || (len(in.Addresses) == 0 && len(in.Roles) == 0), "addresses", "are given only for an email contact point")
	p.Check(kind == contact.PagerDuty || in.RoutingKey == "", "routing_key", "is given only for a pagerduty contact point")
	p.Check(kind == contact.Webhook || !in.RotateSecret, "rotate_secret", "is given only for a webhook contact point")
	switch kind {
	case contact.Email:
		p.Check(in.URL == "", "url", "is not given for an email contact point")
		p.Check(len(in.Addresses)+len(in.Roles) > 0, "addresses", "or roles must name at least one recipient")
		p.Check(len(in.Addresses) <= MaxAddresses, "addresses", fmt.Sprintf("must hold at most %d addresses", MaxAddresses))
		seen := map[string]bool{}
		for _, a := range in.Addresses {
			n := valid.NormalEmail(a)
			if !valid.Email(a) || seen[n] {
				p.Add("addresses", "must be distinct e-mail addresses")
				break
			}
			seen[n] = true
			c.Addresses = append(c.Addresses, n)
		}
		checkList(&p, "roles", in.Roles, func(r string) bool { return slices.Contains(actor.Roles, r) }, "roles: "+strings.Join(actor.Roles, ", "))
		c.Roles = in.Roles
	case contact.PagerDuty:
		if in.URL != "" {
			if msg := contact.CheckURL(in.URL); msg != "" {
				p.Add("url", msg)
			}
		}
		p.Check(in.RoutingKey != "" || !creating, "routing_key", "is required: the 32-character integration key of a PagerDuty service")
		p.Check(in.RoutingKey == "" || routingKey(in.RoutingKey), "routing_key", "must be the 32-character integration key of a PagerDuty service")
		c.Secret = in.RoutingKey
	case contact.Webhook, contact.Slack, contact.Teams:
		if msg := contact.CheckURL(in.URL); msg != "" {
			p.Add("url", msg)
		}
	}
	return c, p.Err()
}

// routingKey accepts PagerDuty's 32 letters and digits.
func routingKey(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Channels lists the organization's contact points.
func (d *Dispatcher) Channels(ctx context.Context, who actor.Actor) ([]store.NotifyChannel, error) {
	return d.cfg.Store.NotifyChannels(ctx, who.OrgID)
}

// Channel is one contact point of the organization.
func (d *Dispatcher) Channel(ctx context.Context, who actor.Actor, id string) (store.NotifyChannel, error) {
	return d.cfg.Store.NotifyChannel(ctx, who.OrgID, id)
}

// CreateChannel adds a contact point; a webhook's signing secret is
// returned this once.
func (d *Dispatcher) CreateChannel(ctx context.Context, who actor.Actor, in ChannelInput) (store.NotifyChannel, string, error) {
	c, err := in.channel(who.OrgID, in.Kind, true)
	if err != nil {
		return c, "", err
	}
	secret := ""
	if c.Kind == contact.Webhook {
		secret = contact.NewSecret()
		c.Secret = secret
	}
	c, err = d.cfg.Store.CreateNotifyChannel(ctx, c)
	return c, secret, err
}

// ChannelPatch is a change to a contact point: nil fields stay as they are.
type ChannelPatch struct {
	Name, Kind, URL, RoutingKey *string
	Addresses, Roles            *[]string
	RotateSecret                bool
}

// UpdateChannel changes a contact point's settings; a rotated webhook
// secret is returned this once.
func (d *Dispatcher) UpdateChannel(ctx context.Context, who actor.Actor, id string, patch ChannelPatch) (store.NotifyChannel, string, error) {
	old, err := d.cfg.Store.NotifyChannel(ctx, who.OrgID, id)
	if err != nil {
		return old, "", err
	}
	if patch.Kind != nil && *patch.Kind != old.Kind {
		return old, "", valid.Field("kind", "cannot change; make a new contact point instead")
	}
	in := ChannelInput{Name: old.Name, URL: old.URL, Addresses: old.Addresses, Roles: old.Roles, RotateSecret: patch.RotateSecret}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&in.Name, patch.Name)
	set(&in.URL, patch.URL)
	set(&in.RoutingKey, patch.RoutingKey)
	if patch.Addresses != nil {
		in.Addresses = *patch.Addresses
	}
	if patch.Roles != nil {
		in.Roles = *patch.Roles
	}
	c, err := in.channel(who.OrgID, old.Kind, false)
	if err != nil {
		return c, "", err
	}
	c.ID = id
	secret := ""
	if in.RotateSecret {
		secret = contact.NewSecret()
		c.Secret = secret
	}
	c, err = d.cfg.Store.UpdateNotifyChannel(ctx, c)
	return c, secret, err
}

// DeleteChannel removes a contact point no rule names.
func (d *Dispatcher) DeleteChannel(ctx context.Context, who actor.Actor, id string) error {
	return d.cfg.Store.DeleteNotifyChannel(ctx, who.OrgID, id)
}
