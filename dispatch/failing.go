package dispatch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"garrison/alerting"
	"garrison/event"
	"garrison/store"
)

// FailingFor is how long a contact point's deliveries fail before that is
// an alert of its own and a reason the health check names.
const FailingFor = time.Hour

const failingPrefix = "notification_failing|"

// FailingAlert is the alert of a contact point failing since the time.
func FailingAlert(c store.NotifyChannel, since time.Time) alerting.Spec {
	return alerting.Spec{Fingerprint: failingPrefix + c.ID, Severity: event.High, Category: event.CategoryNotifyFailing,
		Title: fmt.Sprintf("Contact point %q has failed every delivery since %s", c.Name, since.UTC().Format("2006-01-02 15:04 UTC")),
		Asset: c.Name, RecommendedAction: fmt.Sprintf("Alerts routed to %q are not reaching it: read the delivery log's last error "+
			"(GET /api/notifications/deliveries?channel_id=%s), fix the receiver or its settings, and send a test message. "+
			"This alert resolves itself after the next delivery that succeeds.", c.Name, c.ID)}
}

// watchChannels raises an alert for each contact point failing for
// FailingFor, resolves those that recovered, and counts the failing ones
// for the health check.
func (d *Dispatcher) watchChannels(ctx context.Context) error {
	now := d.now()
	failing, err := d.cfg.Store.FailingChannels(ctx, now.Add(-FailingFor))
	if err != nil {
		return err
	}
	for _, c := range failing {
		if _, _, err := d.cfg.Store.RaiseAlert(ctx, c.OrgID, FailingAlert(c, *c.FailingSince), now); err != nil {
			return err
		}
	}
	d.failing.Store(int64(len(failing)))
	open, err := d.cfg.Store.OpenSystemAlerts(ctx, event.CategoryNotifyFailing)
	if err != nil {
		return err
	}
	for _, a := range open {
		c, err := d.cfg.Store.NotifyChannel(ctx, a.OrgID, strings.TrimPrefix(a.Fingerprint, failingPrefix))
		switch {
		case errors.Is(err, store.ErrNotFound): // deleted: nothing fails any more
		case err != nil:
			return err
		case c.FailingSince != nil:
			continue
		}
		if _, err := d.cfg.Store.SettleAlert(ctx, a.OrgID, a.Fingerprint, "The contact point delivered again (or was deleted); resolved by Garrison."); err != nil {
			return err
		}
	}
	return nil
}

// Degraded names why notification delivery is degraded, "" when it is not.
func (d *Dispatcher) Degraded() string {
	if n := d.failing.Load(); n > 0 {
		return fmt.Sprintf("notification delivery to %d contact point(s) has failed for over %s", n, FailingFor)
	}
	return ""
}
