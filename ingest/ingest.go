package ingest

import (
	"context"
	"log/slog"
	"time"

	"garrison/blocklist"
	"garrison/mail"
	"garrison/store"
	"garrison/valid"
)

// Batch is what one body holds for the store.
type Batch struct {
	Events  []store.NewEvent
	DNS     []store.DNSQuery
	Skipped int // EVE records Garrison does not use (http, tls, stats, …)
}

// Kinds of body, by where they are sent.
const (
	KindEvents   = "events"   // POST /api/events: one event or {"events":[…]}
	KindNative   = "native"   // POST /api/webhooks/native: that, or {"events":[…],"dns":[…]}
	KindSuricata = "suricata" // POST /api/webhooks/suricata: EVE JSON
)

// CheckWebhook refuses a webhook source Garrison does not take.
func CheckWebhook(source string) error {
	if source != KindNative && source != KindSuricata {
		return valid.Field("source", "must be native or suricata")
	}
	return nil
}

// Parse turns a body of the kind into a batch, checking every record
// against now; blocked (nil: none) classifies DNS queries. An unknown kind
// is refused as the webhook source.
func Parse(kind string, body []byte, now time.Time, blocked *blocklist.List) (Batch, error) {
	classify := func(domain string) string {
		if blocked == nil {
			return ""
		}
		category, _ := blocked.Match(domain)
		return category
	}
	switch kind {
	case KindEvents:
		return parseNative(body, shape{}, now, classify)
	case KindNative:
		return parseNative(body, shape{dns: true, defaultSource: SourceNative}, now, classify)
	case KindSuricata:
		return parseEVE(body, now, classify)
	}
	return Batch{}, CheckWebhook(kind)
}

// Receipt is what a stored body added.
type Receipt struct {
	IDs        []string // the new events, in body order
	DNSQueries int
	Skipped    int
}

// Ingester parses bodies and stores them, all or nothing.
type Ingester struct {
	store   *store.Store
	now     func() time.Time
	blocked *blocklist.List
	mail    *mail.Mailer
	log     *slog.Logger
	turns   *turns
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
}

// WarnAt is the share of its storage quota past which an organization's
// admins are told, once until it falls back under 70%.
const WarnAt = 0.8

// New builds an Ingester.
func New(c Config) *Ingester {
	if c.Blocklist == nil {
		c.Blocklist = blocklist.New()
	}
	return &Ingester{store: c.Store, now: c.Now, blocked: c.Blocklist, mail: c.Mailer, log: c.Log, turns: newTurns()}
}

// Ingest parses a body of the kind and stores it for the organization,
// when its turn comes (turns).
func (in *Ingester) Ingest(ctx context.Context, orgID, kind string, body []byte) (Receipt, error) {
	b, err := Parse(kind, body, in.now(), in.blocked)
	if err != nil {
		return Receipt{}, err
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
	return Receipt{IDs: ids, DNSQueries: len(b.DNS), Skipped: b.Skipped}, nil
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
