package dispatch

import (
	"context"
	"fmt"
	"net/url"

	"garrison/actor"
	"garrison/contact"
	"garrison/store"
)

// TestResult is what a contact point's receivers answered a test message.
type TestResult struct {
	Receiver  string // the URL's host or the address
	Delivered bool
	Status    int    // HTTP status (250 for a mail the relay took); 0 when no answer came
	Answer    string // the start of the receiver's answer
	Error     string
}

// TestChannel sends a test message now, to every receiver of the contact
// point (each address of an e-mail one), and reports each answer; the
// attempts are in the delivery log.
func (d *Dispatcher) TestChannel(ctx context.Context, who actor.Actor, id string) ([]TestResult, error) {
	c, err := d.cfg.Store.NotifyChannel(ctx, who.OrgID, id)
	if err != nil {
		return nil, err
	}
	org, err := d.cfg.Store.Org(ctx, who.OrgID)
	if err != nil {
		return nil, err
	}
	recipients := []string{""}
	if c.Kind == contact.Email {
		if recipients, err = Recipients(ctx, d.cfg.Store, c, who.OrgID); err != nil {
			return nil, err
		}
	}
	now := d.now()
	out := make([]TestResult, 0, len(recipients))
	for _, to := range recipients {
		idem := "test:" + store.NewID("tst", now)
		m := contact.Message{ID: idem, Event: contact.Test, OrgID: org.ID, OrgName: org.Name, DedupKey: idem, At: now}
		dl := store.Delivery{ID: store.NewID("dlv", now), OrgID: c.OrgID, AlertOrgID: c.OrgID, ChannelID: c.ID, Recipient: to, IdemKey: idem, Event: contact.Test,
			Message: encode(m), NextAt: now.Add(GiveUpAfter)} // never due: this attempt is its only one
		if err := d.cfg.Store.QueueDeliveries(ctx, []store.NewDelivery{{Delivery: dl}}); err != nil {
			return nil, err
		}
		dl.ChannelKind, dl.ChannelURL, dl.ChannelSecret, dl.CreatedAt = c.Kind, c.URL, c.Secret, now
		res := d.send(ctx, dl)
		a := store.Attempt{Status: store.DeliveryDelivered, HTTPStatus: res.Status}
		r := TestResult{Receiver: to, Delivered: delivered(res), Status: res.Status, Answer: res.Body}
		if r.Receiver == "" {
			r.Receiver = receiverOf(c)
		}
		if !r.Delivered {
			a.Status, a.Error = store.DeliveryFailed, "no answer"
			if res.Err != nil {
				a.Error = res.Err.Error()
			}
			r.Error = a.Error
		}
		if err := d.cfg.Store.RecordAttempt(context.WithoutCancel(ctx), dl.ID, a); err != nil {
			return nil, fmt.Errorf("record the test: %w", err)
		}
		out = append(out, r)
	}
	return out, nil
}

// receiverOf names a web contact point's receiver by its host, not its
// URL: a webhook URL often carries its secret in the path.
func receiverOf(c store.NotifyChannel) string {
	if c.URL == "" && c.Kind == contact.PagerDuty {
		return "events.pagerduty.com"
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return ""
	}
	return u.Host
}

// MaskURL is what the API shows of a receiver's URL: its scheme and host.
// The path and query of chat and workflow URLs are their secret (Slack's
// /services/T…/B…/…, a Teams workflow's sig=), so they are write-only.
func MaskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	masked := u.Scheme + "://" + u.Host
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		masked += "/…"
	}
	return masked
}
