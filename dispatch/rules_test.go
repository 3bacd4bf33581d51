package dispatch

import (
	"errors"
	"testing"
	"time"

	"garrison/contact"
	"garrison/event"
	"garrison/store"
)

func minutes(h, m int) *int { v := h*60 + m; return &v }

func TestMatches(t *testing.T) {
	base := store.NotifyRule{Enabled: true, MinSeverity: event.High}
	facts := Facts{OrgID: "org_c", Severity: event.Critical, Category: "malware", EventType: "threat_detected", Asset: "ws-1", Source: "edr"}
	for _, tc := range []struct {
		name string
		edit func(*store.NotifyRule)
		want bool
	}{
		{"any critical or high", func(*store.NotifyRule) {}, true},
		{"disabled", func(r *store.NotifyRule) { r.Enabled = false }, false},
		{"severity below", func(r *store.NotifyRule) { r.MinSeverity = event.Critical + 1 }, false},
		{"its category", func(r *store.NotifyRule) { r.Categories = []string{"reconnaissance", "malware"} }, true},
		{"another category", func(r *store.NotifyRule) { r.Categories = []string{"reconnaissance"} }, false},
		{"another event type", func(r *store.NotifyRule) { r.EventTypes = []string{"dns_anomaly"} }, false},
		{"its asset", func(r *store.NotifyRule) { r.Assets = []string{"ws-1"} }, true},
		{"another asset", func(r *store.NotifyRule) { r.Assets = []string{"ws-2"} }, false},
		{"another source", func(r *store.NotifyRule) { r.Sources = []string{"suricata"} }, false},
		{"its client", func(r *store.NotifyRule) { r.Clients = []string{"org_c"} }, true},
		{"another client", func(r *store.NotifyRule) { r.Clients = []string{"org_d"} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := base
			tc.edit(&r)
			if got := Matches(r, facts); got != tc.want {
				t.Fatalf("Matches = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestApplicable(t *testing.T) {
	rule := func(id string, edit func(*store.NotifyRule)) store.NotifyRule {
		r := store.NotifyRule{ID: id, Enabled: true, MinSeverity: event.High}
		edit(&r)
		return r
	}
	facts := Facts{OrgID: "org_c", Severity: event.Critical, Category: "malware"}
	own := []store.NotifyRule{rule("own", func(*store.NotifyRule) {})}
	overriding := []store.NotifyRule{rule("own-override", func(r *store.NotifyRule) { r.OverridesProvider = true })}
	provider := []store.NotifyRule{rule("all-clients", func(*store.NotifyRule) {}), rule("dental-only", func(r *store.NotifyRule) { r.Clients = []string{"org_d"} }),
		rule("this-client", func(r *store.NotifyRule) { r.Clients = []string{"org_c"} })}
	for _, tc := range []struct {
		name          string
		own, provider []store.NotifyRule
		want          []string
	}{
		{"own and provider's", own, provider, []string{"own", "all-clients", "this-client"}},
		{"a client rule overrides", overriding, provider, []string{"own-override"}},
		{"an override that does not match leaves the provider's", []store.NotifyRule{rule("x", func(r *store.NotifyRule) {
			r.OverridesProvider, r.Categories = true, []string{"reconnaissance"}
		})}, provider, []string{"all-clients", "this-client"}},
		{"a provider's own alert", []store.NotifyRule{rule("p-clients", func(r *store.NotifyRule) { r.Clients = []string{"org_d"} }),
			rule("p-all", func(*store.NotifyRule) {})}, nil, []string{"p-all"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range Applicable(tc.own, tc.provider, facts) {
				got = append(got, r.ID)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestQuietUntil(t *testing.T) {
	night := store.NotifyRule{QuietStart: minutes(22, 0), QuietEnd: minutes(7, 0), QuietZone: "Europe/Berlin"}
	day := store.NotifyRule{QuietStart: minutes(9, 30), QuietEnd: minutes(17, 0), QuietZone: "UTC"}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, tc := range []struct {
		name string
		rule store.NotifyRule
		at   time.Time
		want time.Time
	}{
		{"before the night", night, time.Date(2026, 11, 28, 21, 59, 0, 0, berlin), time.Time{}},
		{"at its start", night, time.Date(2026, 11, 28, 22, 0, 0, 0, berlin), time.Date(2026, 11, 29, 7, 0, 0, 0, berlin)},
		{"after midnight", night, time.Date(2026, 11, 29, 3, 15, 0, 0, berlin), time.Date(2026, 11, 29, 7, 0, 0, 0, berlin)},
		{"at its end", night, time.Date(2026, 11, 29, 7, 0, 0, 0, berlin), time.Time{}},
		{"in another zone's words", night, time.Date(2026, 11, 28, 22, 30, 0, 0, time.UTC), time.Date(2026, 11, 29, 7, 0, 0, 0, berlin)},
		{"inside a day span", day, time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)},
		{"after a day span", day, time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC), time.Time{}},
		{"none set", store.NotifyRule{}, time.Date(2026, 11, 28, 23, 0, 0, 0, time.UTC), time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := QuietUntil(tc.rule, tc.at); !got.Equal(tc.want) {
				t.Fatalf("QuietUntil = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRetryDelay(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 10 * time.Second, 2: 20 * time.Second, 3: 40 * time.Second, 9: 2560 * time.Second, 10: time.Hour, 40: time.Hour} {
		if got := RetryDelay(n); got != want {
			t.Errorf("RetryDelay(%d) = %s, want %s", n, got, want)
		}
	}
	for range 1000 {
		if j := jitter(time.Minute); j < 30*time.Second || j > time.Minute {
			t.Fatalf("jitter(1m) = %s", j)
		}
	}
}

func TestOutcome(t *testing.T) {
	now := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	d := New(Config{Now: func() time.Time { return now }})
	fresh := store.Delivery{CreatedAt: now.Add(-time.Minute), Attempts: 0}
	old := store.Delivery{CreatedAt: now.Add(-23*time.Hour - 59*time.Minute), Attempts: 30}
	for _, tc := range []struct {
		name     string
		dl       store.Delivery
		res      contact.Result
		status   string
		earliest time.Duration // the next attempt no sooner than this after now
	}{
		{"2xx", fresh, contact.Result{Status: 204}, store.DeliveryDelivered, 0},
		{"a mail the relay took", fresh, contact.Result{Status: smtpOK}, store.DeliveryDelivered, 0},
		{"500", fresh, contact.Result{Status: 500, Retry: true, Err: errors.New("500")}, store.DeliveryPending, 5 * time.Second},
		{"429 with Retry-After", fresh, contact.Result{Status: 429, Retry: true, RetryAfter: 2 * time.Minute, Err: errors.New("429")}, store.DeliveryPending, 2 * time.Minute},
		{"no answer", fresh, contact.Result{Retry: true, Err: errors.New("refused")}, store.DeliveryPending, 5 * time.Second},
		{"400", fresh, contact.Result{Status: 400, Err: errors.New("400")}, store.DeliveryFailed, 0},
		{"a day of failures", old, contact.Result{Status: 503, Retry: true, Err: errors.New("503")}, store.DeliveryFailed, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := d.outcome(tc.dl, tc.res)
			if a.Status != tc.status {
				t.Fatalf("status %s, want %s (%+v)", a.Status, tc.status, a)
			}
			if tc.status == store.DeliveryPending && a.NextAt.Sub(now) < tc.earliest {
				t.Fatalf("next attempt after %s, want at least %s", a.NextAt.Sub(now), tc.earliest)
			}
			if tc.status != store.DeliveryDelivered && a.Error == "" {
				t.Fatal("no error recorded")
			}
		})
	}
}
