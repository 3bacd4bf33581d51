package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"garrison/alerting"
	"garrison/blocklist"
	"garrison/detection"
	"garrison/eve"
	"garrison/intel"
	"garrison/mail"
	"garrison/store"
	"garrison/telemetry"
	"garrison/valid"
)

// Batch is what one body holds for the store.
type Batch struct {
	Events  []store.NewEvent
	DNS     []store.DNSQuery
	Skipped int // records Garrison does not use (EVE's http, Zeek's files, …)
	// Rejected are the records left out of a partial batch.
	Rejected []Rejection
}

// Rejection is a record of a partial batch that was not stored: its line
// (its element, in a JSON array) and why.
type Rejection struct {
	Line   int
	Reason string
}

// Kinds of body, by where they are sent.
const (
	KindEvents   = "events"   // POST /api/events: one event or {"events":[…]}
	KindNative   = "native"   // POST /api/webhooks/native: that, or {"events":[…],"dns":[…]}
	KindSuricata = "suricata" // POST /api/webhooks/suricata: EVE JSON
	KindWazuh    = telemetry.FormatWazuh
	KindZeek     = telemetry.FormatZeek
	KindWindows  = telemetry.FormatWindows
	KindSyslog   = telemetry.FormatSyslog
)

// Webhooks are the sources POST /api/webhooks/{source} takes.
var Webhooks = []string{KindNative, KindSuricata, KindWazuh, KindZeek, KindWindows, KindSyslog}

// CheckWebhook refuses a webhook source Garrison does not take.
func CheckWebhook(source string) error {
	if !slices.Contains(Webhooks, source) {
		return valid.Field("source", "must be one of "+strings.Join(Webhooks, ", "))
	}
	return nil
}

// Options are how a body is judged.
type Options struct {
	Now time.Time
	// Oldest is the earliest time a record may have: the organization's
	// retention would delete an older one at once (zero: no limit).
	Oldest time.Time
	// Partial keeps the good records of a body with bad ones (Rejected);
	// otherwise one bad record refuses the body.
	Partial bool
	// Blocked classifies DNS queries (nil: no lists).
	Blocked *blocklist.List
	// Detect returns the detection rules a record fires (nil: none run).
	Detect func(*telemetry.Raw) []*alerting.Rule
	// TargetRuns says whether the host an exploit attempt aims at runs
	// what it targets, and why (nil: the table's cap stays).
	TargetRuns func(eve.Target) (string, bool)
}

func (o Options) classify(domain string) string {
	if o.Blocked == nil {
		return ""
	}
	category, _ := o.Blocked.Match(domain)
	return category
}

// Parse turns a body of the kind into a batch, checking every record's
// time against the options. An unknown kind is refused as the webhook
// source.
func Parse(kind string, body []byte, o Options) (Batch, error) {
	switch kind {
	case KindEvents:
		return parseNative(body, shape{}, o)
	case KindNative:
		return parseNative(body, shape{dns: true, defaultSource: SourceNative}, o)
	case KindSuricata:
		return parseEVE(body, o)
	case KindWazuh, KindZeek, KindWindows, KindSyslog:
		return parseTelemetry(kind, body, o)
	}
	return Batch{}, CheckWebhook(kind)
}

// Detected reports whether detection rules read records of the kind.
func Detected(kind string) bool {
	return kind == KindWindows || kind == KindZeek || kind == KindSyslog || kind == KindWazuh
}

// Receipt is what a stored body added.
type Receipt struct {
	IDs        []string // the new events, in body order
	DNSQueries int
	Skipped    int
	Rejected   []Rejection // a partial batch's records left out
}

// Ingester parses bodies and stores them, all or nothing.
type Ingester struct {
	store     *store.Store
	now       func() time.Time
	blocked   *blocklist.List
	mail      *mail.Mailer
	log       *slog.Logger
	turns     *turns
	retention time.Duration
	detection *detection.Service
}

// Config is what an Ingester needs.
type Config struct {
	Store *store.Store
	Now   func() time.Time
	// Blocklist classifies DNS queries (nil: no lists).
	Blocklist *blocklist.List
	// Mailer words the warning an organization's admins get when its
	// storage passes WarnAt of its quota (nil: no warning).
	Mailer *mail.Mailer
	Log    *slog.Logger
	// Retention is the appliance's --retention (0: for good); an
	// organization may have its own.
	Retention time.Duration
	// Detection runs each organization's detection rules on its records
	// (nil: none run).
	Detection *detection.Service
}

// WarnAt is the share of its storage quota past which an organization's
// admins are told, once until it falls back under 70%.
const WarnAt = 0.8

// New builds an Ingester.
func New(c Config) *Ingester {
	if c.Blocklist == nil {
		c.Blocklist = blocklist.New()
	}
	return &Ingester{store: c.Store, now: c.Now, blocked: c.Blocklist, mail: c.Mailer, log: c.Log, turns: newTurns(), retention: c.Retention,
		detection: c.Detection}
}

// Ingest parses a body of the kind and stores it for the organization,
// when its turn comes (turns); partial keeps a body's good records when
// some are bad.
func (in *Ingester) Ingest(ctx context.Context, orgID, kind string, body []byte, partial bool) (Receipt, error) {
	now := in.now()
	o := Options{Now: now, Partial: partial, Blocked: in.blocked}
	keep, _, err := in.store.OrgRetention(ctx, orgID, in.retention)
	if err != nil {
		return Receipt{}, err
	}
	if keep > 0 {
		o.Oldest = now.Add(-keep)
	}
	if in.detection != nil && Detected(kind) {
		d, err := in.detection.For(ctx, orgID)
		if err != nil {
			return Receipt{}, fmt.Errorf("detection rules: %w", err)
		}
		if !d.Empty() {
			o.Detect = d.Match
		}
	}
	var targetErr error
	if kind == KindSuricata {
		o.TargetRuns = in.targetRuns(ctx, orgID, &targetErr)
	}
	b, err := Parse(kind, body, o)
	if err == nil {
		err = targetErr
	}
	if err != nil {
		return Receipt{}, err
	}
	if len(b.Events) == 0 && len(b.DNS) == 0 {
		return Receipt{IDs: []string{}, Skipped: b.Skipped, Rejected: b.Rejected}, nil
	}
	release, err := in.turns.take(ctx, orgID)
	if err != nil {
		return Receipt{}, err
	}
	ids, err := in.store.Ingest(ctx, orgID, b.Events, b.DNS)
	release()
	if err != nil {
		return Receipt{}, err
	}
	if len(ids) > 0 {
		in.warnStorage(ctx, orgID)
	}
	return Receipt{IDs: ids, DNSQueries: len(b.DNS), Skipped: b.Skipped, Rejected: b.Rejected}, nil
}

// targetRuns answers for an EVE body whether an exploit attempt's host
// runs what it targets, reading the inventory on the first attempt that
// asks (most bodies hold none); a failure is kept in *failed.
func (in *Ingester) targetRuns(ctx context.Context, orgID string, failed *error) func(eve.Target) (string, bool) {
	var finder *intel.TargetFinder
	return func(t eve.Target) (string, bool) {
		if *failed != nil {
			return "", false
		}
		if finder == nil {
			if finder, *failed = intel.NewTargetFinder(ctx, in.store, orgID); *failed != nil {
				*failed = fmt.Errorf("exploit targets: %w", *failed)
				return "", false
			}
		}
		why, ok, err := finder.Runs(ctx, t.Host.String(), t.CVEs, t.Products)
		if err != nil {
			*failed = fmt.Errorf("exploit targets: %w", err)
		}
		return why, ok
	}
}

// warnStorage tells the organization's admins, once, that its storage
// passed WarnAt of its quota. The batch is stored whatever happens here.
func (in *Ingester) warnStorage(ctx context.Context, orgID string) {
	if in.mail == nil {
		return
	}
	u, err := in.store.Usage(ctx, orgID)
	if err != nil || u.Full() < WarnAt || u.WarnedAt != nil {
		return
	}
	warned, err := in.store.WarnStorage(context.WithoutCancel(ctx), orgID, WarnAt, func(u store.Usage, admins []string) []store.Mail {
		out := make([]store.Mail, len(admins))
		for i, to := range admins {
			out[i] = in.mail.StorageWarning(to, u.Bytes, u.Quota)
		}
		return out
	})
	if err != nil && in.log != nil {
		in.log.Warn("storage warning", "org", orgID, "err", err)
	}
	if warned {
		in.mail.Notify()
	}
}
