package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"garrison/contact"
	"garrison/store"
)

// Retry schedule: the first retry after about FirstRetry, doubling to at
// most MaxRetryDelay, each delay drawn between half and all of it (so
// receivers recovering from an outage are not hit by every sender at
// once); after GiveUpAfter a message fails for good.
const (
	FirstRetry    = 10 * time.Second
	MaxRetryDelay = time.Hour
	GiveUpAfter   = 24 * time.Hour
	dueBatch      = 200
	idleCheck     = 30 * time.Second // the longest sleep: escalations and quiet hours come due
	attemptBudget = 30 * time.Second // one attempt, for the SMTP dialogue or the HTTP request
)

// RetryDelay is the wait after the n-th failed attempt, before jitter.
func RetryDelay(n int) time.Duration {
	d := FirstRetry
	for i := 1; i < n && d < MaxRetryDelay; i++ {
		d *= 2
	}
	return min(d, MaxRetryDelay)
}

// jitter draws a delay between half and all of d.
func jitter(d time.Duration) time.Duration {
	return d/2 + rand.N(d/2+1)
}

// Run routes, escalates and delivers until ctx is done. Attempts in
// flight at the stop are recorded before Run returns.
func (d *Dispatcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	// inflight holds the deliveries being attempted, and those attempted
	// since the last read of what is due: a delivery read as due before its
	// attempt was recorded must not be taken again from that stale list.
	inflight := map[string]bool{}
	var finished []string
	perChannel := map[string]int{}
	var mu sync.Mutex
	slots := make(chan struct{}, d.cfg.Workers)
	done := make(chan struct{}, 1)
	var watched time.Time
	for {
		if now := d.now(); now.Sub(watched) >= time.Minute || now.Before(watched) {
			watched = now
			if err := d.watchChannels(ctx); err != nil && ctx.Err() == nil {
				d.cfg.Log.Warn("watch failing contact points", "err", err)
			}
		}
		mu.Lock()
		for _, id := range finished {
			delete(inflight, id)
		}
		finished = finished[:0]
		mu.Unlock()
		if _, err := d.route(ctx); err != nil && ctx.Err() == nil {
			d.cfg.Log.Warn("route alert notifications", "err", err)
		}
		if _, err := d.escalate(ctx); err != nil && ctx.Err() == nil {
			d.cfg.Log.Warn("escalate unacknowledged alerts", "err", err)
		}
		due, err := d.cfg.Store.DueDeliveries(ctx, d.now(), dueBatch)
		if err != nil && ctx.Err() == nil {
			d.cfg.Log.Warn("read due notifications", "err", err)
		}
		for _, dl := range due {
			mu.Lock()
			skip := inflight[dl.ID] || perChannel[dl.ChannelID] >= d.cfg.PerChannel
			if !skip {
				inflight[dl.ID] = true
				perChannel[dl.ChannelID]++
			}
			mu.Unlock()
			if skip {
				continue
			}
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			wg.Go(func() {
				d.attempt(ctx, dl)
				mu.Lock()
				finished = append(finished, dl.ID)
				perChannel[dl.ChannelID]--
				mu.Unlock()
				<-slots
				select {
				case done <- struct{}{}:
				default:
				}
			})
		}
		wait := idleCheck
		if next, err := d.cfg.Store.NextDeliveryAt(ctx); err == nil && !next.IsZero() {
			wait = min(wait, max(next.Sub(d.now()), 10*time.Millisecond))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-d.wake:
		case <-done:
		case <-t.C:
		}
		t.Stop()
	}
}

// attempt makes one attempt and records it, even when the stop came
// during it: a receiver that took the message must not get it again.
func (d *Dispatcher) attempt(ctx context.Context, dl store.Delivery) {
	res := d.send(ctx, dl)
	if ctx.Err() != nil && !delivered(res) {
		return // cut short by the stop: not one of its attempts; it stays due
	}
	rec, recCancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer recCancel()
	a := d.outcome(dl, res)
	if err := d.cfg.Store.RecordAttempt(rec, dl.ID, a); err != nil {
		d.cfg.Log.Warn("record notification attempt", "delivery", dl.ID, "err", err)
		return
	}
	if dl.Event != contact.Test {
		if _, err := d.cfg.Store.RecordChannelOutcome(rec, dl.ChannelID, delivered(res)); err != nil {
			d.cfg.Log.Warn("record contact point outcome", "channel", dl.ChannelID, "err", err)
		}
	}
	if d.cfg.Observe != nil {
		outcome := "delivered"
		switch a.Status {
		case store.DeliveryPending:
			outcome = "retry"
		case store.DeliveryFailed:
			outcome = "failed"
		}
		d.cfg.Observe(dl.ChannelKind, outcome)
	}
}

// outcome is what an attempt leaves: delivered; pending until the next
// try; or failed, when the receiver refused it for good or a day passed.
func (d *Dispatcher) outcome(dl store.Delivery, res contact.Result) store.Attempt {
	a := store.Attempt{Status: store.DeliveryDelivered, HTTPStatus: res.Status, NextAt: dl.NextAt}
	if delivered(res) {
		return a
	}
	a.Error = "no answer"
	if res.Err != nil {
		a.Error = res.Err.Error()
	}
	now := d.now()
	next := now.Add(max(jitter(RetryDelay(dl.Attempts+1)), res.RetryAfter))
	switch {
	case !res.Retry:
		a.Status = store.DeliveryFailed
	case next.Sub(dl.CreatedAt) > GiveUpAfter:
		a.Status, a.Error = store.DeliveryFailed, a.Error+fmt.Sprintf(" (gave up after %d attempts over %s)", dl.Attempts+1, GiveUpAfter)
	default:
		a.Status, a.NextAt = store.DeliveryPending, next
	}
	return a
}

// send makes one attempt at a delivery.
func (d *Dispatcher) send(ctx context.Context, dl store.Delivery) contact.Result {
	var m contact.Message
	if err := json.Unmarshal(dl.Message, &m); err != nil {
		return contact.Result{Err: fmt.Errorf("read the queued message: %w", err)}
	}
	ctx, cancel := context.WithTimeout(ctx, attemptBudget)
	defer cancel()
	if dl.ChannelKind == contact.Email {
		return d.mail(ctx, dl.Recipient, m)
	}
	ep := contact.Endpoint{Kind: dl.ChannelKind, URL: dl.ChannelURL}
	switch dl.ChannelKind {
	case contact.Webhook:
		ep.Secret = dl.ChannelSecret
	case contact.PagerDuty:
		ep.RoutingKey = dl.ChannelSecret
	}
	return d.cfg.Sender.Send(ctx, ep, m, d.now())
}

var (
	errNoAddress = errors.New("no address to mail")
	errNoMailer  = errors.New("this server sends no mail")
)

// mail sends one alert mail; an SMTP failure is retried like a 5xx.
func (d *Dispatcher) mail(ctx context.Context, to string, m contact.Message) contact.Result {
	if to == "" {
		return contact.Result{Err: errNoAddress}
	}
	if d.cfg.Mailer == nil {
		return contact.Result{Err: errNoMailer}
	}
	outcome, err := d.cfg.Mailer.SendAlert(ctx, to, m)
	if err != nil {
		return contact.Result{Retry: true, Err: err}
	}
	return contact.Result{Status: smtpOK, Body: outcome}
}

// smtpOK is the status an e-mail delivery records: SMTP's "250 OK" to the
// end of the message.
const smtpOK = 250

// delivered says whether the receiver took the message.
func delivered(res contact.Result) bool {
	return res.Err == nil && (res.OK() || res.Status == smtpOK)
}
