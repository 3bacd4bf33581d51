package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// watch runs the watchdog until cond holds: the event sources it reads
// are kept by the fold, which runs behind ingest.
func (e *env) watch(cond func() bool) {
	e.T.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := e.App.Watchdog.Check(context.Background()); err != nil {
			e.T.Fatal(err)
		}
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			e.T.Fatal("the watchdog did not see it")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *env) alertsOf(key, category string) []apitest.JSON {
	var out []apitest.JSON
	for _, a := range e.alerts(key, "limit=200") {
		if a.Get("category").Str() == category {
			out = append(out, a)
		}
	}
	return out
}

func TestSilentSensor(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	e.ingest(key, ev(e, "policy_violation", "low", "fw-01", "allowed", e.Clock.Now())).Must(t, http.StatusCreated)
	e.watch(func() bool { return true })
	if got := e.alertsOf(key, "sensor_silent"); len(got) != 0 {
		t.Fatalf("a speaking sensor is silent: %v", got)
	}

	// Silent past the hour: an alert naming the source.
	e.Clock.Advance(61 * time.Minute)
	e.watch(func() bool { return len(e.alertsOf(key, "sensor_silent")) == 1 })
	a := e.alertsOf(key, "sensor_silent")[0]
	if a.Get("status").Str() != "open" || a.Get("affected_asset").Str() != "edr" || a.Get("severity").Str() != "high" ||
		!strings.Contains(a.Get("title").Str(), "Sensor edr silent since") {
		t.Fatalf("silent alert: %v", a.Any())
	}
	e.watch(func() bool { return true }) // looking again opens no second alert
	if n := len(e.alertsOf(key, "sensor_silent")); n != 1 {
		t.Fatalf("%d silent alerts", n)
	}

	// Its events return: the alert resolves itself.
	e.ingest(key, ev(e, "policy_violation", "low", "fw-01", "allowed", e.Clock.Now())).Must(t, http.StatusCreated)
	e.watch(func() bool { return e.alertsOf(key, "sensor_silent")[0].Get("status").Str() == "resolved" })
	d := e.Do("GET", "/api/alerts/"+a.Get("id").Str(), key, nil).Must(t, http.StatusOK)
	if d.Str("data", "resolved_by") != "garrison" || d.Str("data", "disposition") != "benign" {
		t.Fatalf("settled: %s", d.Raw)
	}
}

func TestKeyExpiryNotices(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.Verify(admin)
	reader := e.APIKey(admin, "read") // the session ends before the key does
	expires := e.Clock.Now().Add(10 * 24 * time.Hour)
	sensor := e.Do("POST", "/api/api-keys", admin.Token, map[string]any{"name": "Sensor fw-01", "scope": "write",
		"expires_at": expires.Format(time.RFC3339)}).Must(t, http.StatusCreated).Str("data", "key")
	notices := func() []string {
		var out []string
		for _, m := range e.Mails(admin.Email) {
			if strings.HasPrefix(m.Subject, "Garrison API key") {
				out = append(out, m.Subject)
			}
		}
		return out
	}
	for _, step := range []struct {
		advance time.Duration
		want    int
		subject string
	}{
		{0, 1, `Garrison API key "Sensor fw-01" expires in 14 days`},
		{time.Hour, 1, ""}, // once each
		{7*24*time.Hour + 12*time.Hour, 2, `Garrison API key "Sensor fw-01" expires in 3 days`},
		{2 * 24 * time.Hour, 3, `Garrison API key "Sensor fw-01" expires in 1 day`},
	} {
		e.Clock.Advance(step.advance)
		e.watch(func() bool { return len(notices()) >= step.want })
		if got := notices(); len(got) != step.want || (step.subject != "" && got[0] != step.subject) {
			t.Fatalf("after %s: %v", step.advance, got)
		}
	}

	// Used, then expired: an alert, since whatever holds it is now refused.
	e.ingest(sensor, ev(e, "policy_violation", "low", "fw-01", "allowed", e.Clock.Now())).Must(t, http.StatusCreated)
	if err := e.App.KeyUse.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(13 * time.Hour)
	e.watch(func() bool { return len(e.alertsOf(reader, "credential_expired")) == 1 })
	a := e.alertsOf(reader, "credential_expired")[0]
	if !strings.Contains(a.Get("title").Str(), `API key "Sensor fw-01" expired`) {
		t.Fatalf("expired key alert: %v", a.Any())
	}
}

func TestFailingContactPoint(t *testing.T) {
	n := newNotifyEnv(t)
	var recovered atomic.Bool
	n.hook.Respond = func(int, apitest.Request) (int, map[string]string) {
		if !recovered.Load() {
			return http.StatusBadGateway, nil
		}
		return http.StatusOK, nil
	}
	hookID, _ := n.channel(map[string]any{"name": "SIEM", "kind": "webhook", "url": n.hook.URL("/in")})
	n.onlyRule(map[string]any{"name": "All", "min_severity": "high", "channels": []string{hookID}})
	n.critical("ws-01", "Ransomware beacon")
	n.hook.Wait(t, 1, 10*time.Second)
	n.settle()
	ch := n.Do("GET", "/api/notification-channels/"+hookID, n.admin.Token, nil).Must(t, http.StatusOK)
	if ch.Get("data", "failing_since").Any() == nil {
		t.Fatalf("failing: %s", ch.Raw)
	}

	// An hour of failures: an alert of its own, and the health check says so.
	for range 7 {
		n.advance(10 * time.Minute)
		n.settle()
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(n.alertsOf(n.key, "notification_failing")) == 0 && time.Now().Before(deadline) {
		n.advance(time.Minute)
		n.settle()
	}
	alerts := n.alertsOf(n.key, "notification_failing")
	if len(alerts) != 1 || !strings.Contains(alerts[0].Get("title").Str(), `Contact point "SIEM" has failed every delivery since`) {
		t.Fatalf("failing alert: %v", alerts)
	}
	health := n.Do("GET", "/api/dashboard/health", "", nil).Must(t, http.StatusOK)
	if health.Str("data", "status") != "degraded" || !strings.Contains(health.Str("data", "reason"), "1 contact point") {
		t.Fatalf("health: %s", health.Raw)
	}

	// The receiver recovers: the next attempt delivers, and the alert and
	// the degraded health go.
	recovered.Store(true)
	deadline = time.Now().Add(20 * time.Second)
	for n.alertsOf(n.key, "notification_failing")[0].Get("status").Str() != "resolved" && time.Now().Before(deadline) {
		n.advance(time.Hour)
		n.settle()
	}
	if got := n.alertsOf(n.key, "notification_failing")[0].Get("status").Str(); got != "resolved" {
		t.Fatalf("failing alert after recovery: %s", got)
	}
	if s := n.Do("GET", "/api/dashboard/health", "", nil).Must(t, http.StatusOK).Str("data", "status"); s != "ok" {
		t.Fatalf("health after recovery: %s", s)
	}
}
