// Package watchdog notices what stopped watching: an event source that
// fell silent, an API key about to expire (its organization's admins are
// mailed 14, 3 and 1 days before) or expired while still in use. What it
// notices becomes an alert like any other, routed to the people who act
// on it, and a silent source's alert resolves itself when its events
// return.
package watchdog

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"garrison/alerting"
	"garrison/event"
	"garrison/store"
)

// Defaults.
const (
	// DefaultSilence is the shortest silence that is noticed.
	DefaultSilence = time.Hour
	// Lookback: a source that sent nothing for this long is retired, not silent.
	Lookback = 7 * 24 * time.Hour
	// usualGaps: a source is silent past this many of its average gaps.
	usualGaps = 3
	// checkEvery is how often the watchdog looks.
	checkEvery = time.Minute
)

// KeyNotices are the days before an expiry when admins are mailed.
var KeyNotices = []int{1, 3, 14}

// Mailer writes the mail of a key's expiry.
type Mailer interface {
	KeyExpiry(to, keyName string, expiresAt time.Time, days int) store.Mail
}

// Config is what the watchdog needs.
type Config struct {
	Store  *store.Store
	Mailer Mailer
	Log    *slog.Logger
	Now    func() time.Time
	// Silence is the shortest silence noticed (DefaultSilence when 0).
	Silence time.Duration
	// Queued wakes the mailer after notices were queued.
	Queued func()
}

// Watchdog looks every minute.
type Watchdog struct{ cfg Config }

// New builds a watchdog.
func New(cfg Config) *Watchdog {
	if cfg.Silence <= 0 {
		cfg.Silence = DefaultSilence
	}
	return &Watchdog{cfg: cfg}
}

// Run checks until ctx is done.
func (w *Watchdog) Run(ctx context.Context) {
	t := time.NewTicker(checkEvery)
	defer t.Stop()
	for {
		if err := w.Check(ctx); err != nil && ctx.Err() == nil {
			w.cfg.Log.Warn("watchdog", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Check looks once: silent sources, and keys near or past their expiry.
func (w *Watchdog) Check(ctx context.Context) error {
	if err := w.sources(ctx); err != nil {
		return err
	}
	return w.keys(ctx)
}

// Threshold is how long a source may stay quiet before it is silent: three
// of its average gaps between events, and at least min.
func Threshold(a store.SourceActivity, min time.Duration) time.Duration {
	if a.N < 2 {
		return min
	}
	gap := a.LastSeen.Sub(a.FirstSeen) / time.Duration(a.N-1)
	return max(min, usualGaps*gap)
}

func silentFingerprint(source string) string { return "sensor_silent|" + source }

// SilentAlert is the alert of a source silent since last.
func SilentAlert(source string, last time.Time) alerting.Spec {
	return alerting.Spec{Fingerprint: silentFingerprint(source), Severity: event.High, Category: event.CategorySilent,
		Title: fmt.Sprintf("Sensor %s silent since %s", source, last.UTC().Format("2006-01-02 15:04 UTC")), Asset: source,
		RecommendedAction: fmt.Sprintf("Check that %s is running and can reach Garrison: its process, its ingest key (expired or revoked keys "+
			"are refused), and the network path. This alert resolves itself when its events return.", source)}
}

func (w *Watchdog) sources(ctx context.Context) error {
	now := w.cfg.Now()
	active, err := w.cfg.Store.ActiveSources(ctx, now.Add(-Lookback))
	if err != nil {
		return err
	}
	type key struct{ org, source string }
	speaking := map[key]bool{}
	for _, a := range active {
		if now.Sub(a.LastSeen) <= Threshold(a, w.cfg.Silence) {
			speaking[key{a.OrgID, a.Source}] = true
			continue
		}
		if _, _, err := w.cfg.Store.RaiseAlert(ctx, a.OrgID, SilentAlert(a.Source, a.LastSeen), now); err != nil {
			return err
		}
	}
	open, err := w.cfg.Store.OpenSystemAlerts(ctx, event.CategorySilent)
	if err != nil {
		return err
	}
	for _, a := range open {
		if speaking[key{a.OrgID, a.Asset}] {
			note := fmt.Sprintf("Events from %s returned; resolved by Garrison.", a.Asset)
			if _, err := w.cfg.Store.SettleAlert(ctx, a.OrgID, a.Fingerprint, note); err != nil {
				return err
			}
		}
	}
	return nil
}

// ExpiredKeyAlert is the alert of a key that expired while in use: the
// sensor or integration holding it is now refused.
func ExpiredKeyAlert(k store.ExpiringKey) alerting.Spec {
	return alerting.Spec{Fingerprint: "credential_expired|" + k.ID, Severity: event.High, Category: event.CategoryKeyExpired,
		Title: fmt.Sprintf("API key %q expired at %s while still in use", k.Name, k.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC")),
		Asset: k.Name, RecommendedAction: fmt.Sprintf("Whatever uses the key %q (a sensor, a SIEM export) is refused since its expiry: "+
			"create a new key, put it where the old one was, and revoke the old one.", k.Name)}
}

func (w *Watchdog) keys(ctx context.Context) error {
	now := w.cfg.Now()
	keys, err := w.cfg.Store.KeysExpiringBy(ctx, now.Add(time.Duration(KeyNotices[len(KeyNotices)-1])*24*time.Hour))
	if err != nil {
		return err
	}
	queued := false
	for _, k := range keys {
		if !k.ExpiresAt.After(now) {
			if k.Notices[0] || k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) > 24*time.Hour {
				continue
			}
			if _, _, err := w.cfg.Store.RaiseAlert(ctx, k.OrgID, ExpiredKeyAlert(k), now); err != nil {
				return err
			}
			if _, err := w.cfg.Store.RecordKeyNotice(ctx, k.ID, 0, nil); err != nil {
				return err
			}
			continue
		}
		notice := Notice(k.ExpiresAt.Sub(now))
		if notice == 0 || k.Notices[notice] {
			continue
		}
		admins, err := w.cfg.Store.AdminAddresses(ctx, k.OrgID)
		if err != nil {
			return err
		}
		var mails []store.Mail
		for _, to := range admins {
			mails = append(mails, w.cfg.Mailer.KeyExpiry(to, k.Name, k.ExpiresAt, notice))
		}
		// Every notice the key is past is given with this one, so a key made
		// two days before its expiry gets the 3-day mail, not the 14-day one after.
		for _, n := range KeyNotices {
			if n >= notice && !k.Notices[n] {
				given, err := w.cfg.Store.RecordKeyNotice(ctx, k.ID, n, mailsIf(n == notice, mails))
				if err != nil {
					return err
				}
				queued = queued || (given && n == notice && len(mails) > 0)
			}
		}
	}
	if queued && w.cfg.Queued != nil {
		w.cfg.Queued()
	}
	return nil
}

func mailsIf(ok bool, mails []store.Mail) []store.Mail {
	if ok {
		return mails
	}
	return nil
}

// Notice is the notice due for a key expiring in left: the fewest days of
// KeyNotices that left is within, 0 when none is.
func Notice(left time.Duration) int {
	for _, n := range KeyNotices {
		if left <= time.Duration(n)*24*time.Hour {
			return n
		}
	}
	return 0
}
