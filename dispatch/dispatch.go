// Package dispatch routes alerts to the people who must act on them: an
// organization's contact points (e-mail, signed webhooks, Slack-compatible
// and Teams webhooks, PagerDuty), the routing rules that pick them (with
// quiet hours, grouping and escalation), and the delivery of the durable
// outbox those decisions fill: at least once, retried with backoff for a
// day, each message keyed so a receiver can drop a repeat.
//
// Three loops share the work (Run): the router turns the alert signals
// the store queues with each change into deliveries, the deliverer sends
// what is due, and the escalator re-notifies critical alerts nobody
// acknowledged. Each decision is committed before anything is sent, and
// each outcome after, so a crash repeats at most the attempt in flight.
package dispatch

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"garrison/contact"
	"garrison/store"
)

// Mailer sends one message to one address now, reporting whether the
// relay took it ("sent"), it went to the log ("logged"), or why not.
type Mailer interface {
	SendAlert(ctx context.Context, to string, m contact.Message) (outcome string, err error)
}

// Config is what the dispatcher needs.
type Config struct {
	Store  *store.Store
	Mailer Mailer
	Sender *contact.Sender
	Log    *slog.Logger
	Now    func() time.Time
	// BaseURL is the console's public URL, for the links in messages.
	BaseURL string
	// Observe, when set, hears each attempt's channel kind and outcome
	// ("delivered", "retry", "failed").
	Observe func(kind, outcome string)
	// Workers bounds the attempts in flight (default 16); PerChannel
	// those to one contact point (default 4), so one slow receiver does
	// not hold up the others.
	Workers, PerChannel int
}

// Dispatcher is the notification service: its contact points and rules
// for the API, and the loops that deliver.
type Dispatcher struct {
	cfg     Config
	wake    chan struct{} // something was queued: route and deliver now
	failing atomic.Int64  // contact points failing for FailingFor, at the last look
}

// New builds a dispatcher.
func New(cfg Config) *Dispatcher {
	if cfg.Workers <= 0 {
		cfg.Workers = 16
	}
	if cfg.PerChannel <= 0 {
		cfg.PerChannel = 4
	}
	d := &Dispatcher{cfg: cfg, wake: make(chan struct{}, 1)}
	if cfg.Store != nil {
		// Of a cluster's nodes, the one delivering notifications wakes.
		cfg.Store.OnChange(store.TopicAlertSignals, d.wakeUp)
	}
	return d
}

// Notify wakes the dispatcher after alerts changed, on whichever node of a
// cluster delivers notifications; it never waits for the delivery.
func (d *Dispatcher) Notify() {
	if d.cfg.Store == nil {
		d.wakeUp()
		return
	}
	d.cfg.Store.Announce(store.TopicAlertSignals)
}

func (d *Dispatcher) wakeUp() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *Dispatcher) now() time.Time { return d.cfg.Now() }
