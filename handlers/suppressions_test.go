package handlers_test

import (
	"net/http"
	"testing"
	"time"
)

func TestAlertSuppressions(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	reader := e.APIKey(admin, "read")
	other := e.Register("eve@evil.test", "Evil")
	scan := func(asset string) map[string]any {
		return ev(e, "threat_detected", "high", asset, "ET SCAN Nmap Scripting Engine", e.Clock.Now())
	}

	sup := e.Do("POST", "/api/alert-suppressions", key, map[string]any{"signature": "ET SCAN Nmap Scripting Engine", "asset": "vuln-scanner",
		"duration": "8h", "reason": "our own weekly scan"}).Must(t, http.StatusCreated)
	id := sup.Str("data", "id")
	if sup.Get("data", "active").Any() != true || sup.Str("data", "expires_at") != e.Clock.Now().Add(8*time.Hour).Format(time.RFC3339) {
		t.Fatalf("suppression: %s", sup.Raw)
	}

	// Matching events are stored and counted; they open no alert. Others do.
	e.ingest(key, scan("vuln-scanner"), scan("vuln-scanner"), scan("dc-01")).Must(t, http.StatusCreated)
	alerts := e.alerts(key, "limit=200")
	if len(alerts) != 1 || alerts[0].Get("affected_asset").Str() != "dc-01" {
		t.Fatalf("alerts: %v", alerts)
	}
	if n := e.Do("GET", "/api/events?limit=10", key, nil).Must(t, http.StatusOK).Get("pagination", "total").Any(); n != float64(3) {
		t.Fatalf("%v events stored, want 3", n)
	}
	if got := e.Do("GET", "/api/alert-suppressions/"+id, reader, nil).Must(t, http.StatusOK); got.Get("data", "suppressed_events").Any() != float64(2) {
		t.Fatalf("hits: %s", got.Raw)
	}

	// It expires by itself.
	e.Clock.Advance(8*time.Hour + time.Second)
	e.ingest(key, scan("vuln-scanner")).Must(t, http.StatusCreated)
	if n := len(e.alerts(key, "limit=200")); n != 2 {
		t.Fatalf("%d alerts after the suppression expired, want 2", n)
	}
	if e.Do("GET", "/api/alert-suppressions", reader, nil).Must(t, http.StatusOK).Get("data").At(0).Get("active").Any() != false {
		t.Fatal("an expired suppression is active")
	}

	// Ended early.
	early := e.Do("POST", "/api/alert-suppressions", key, map[string]any{"source": "edr", "duration": "7d", "reason": "EDR migration"}).
		Must(t, http.StatusCreated).Str("data", "id")
	e.Do("DELETE", "/api/alert-suppressions/"+early, other.Token, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
	ended := e.Do("DELETE", "/api/alert-suppressions/"+early, key, nil).Must(t, http.StatusOK)
	if ended.Get("data", "active").Any() != false || ended.Get("data", "ended_at").Any() == nil {
		t.Fatalf("ended: %s", ended.Raw)
	}
	e.ingest(key, ev(e, "threat_detected", "critical", "ws-09", "Ransomware beacon", e.Clock.Now())).Must(t, http.StatusCreated)
	if n := len(e.alerts(key, "limit=200")); n != 3 {
		t.Fatalf("%d alerts after the suppression ended, want 3", n)
	}
	if entry := findAudit(t, e, admin.Token, "alert_suppression.create"); entry.Get("detail", "reason").Str() == "" {
		t.Fatalf("audit: %v", entry.Any())
	}
	findAudit(t, e, admin.Token, "alert_suppression.end")

	for _, tc := range []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"nothing to match", map[string]any{"duration": "1h", "reason": "x"}, []string{"signature"}},
		{"no reason", map[string]any{"asset": "a", "duration": "1h"}, []string{"reason"}},
		{"no period", map[string]any{"asset": "a", "reason": "x"}, []string{"duration"}},
		{"a period too long", map[string]any{"asset": "a", "reason": "x", "duration": "91d"}, []string{"duration"}},
		{"a period too short", map[string]any{"asset": "a", "reason": "x", "duration": "30s"}, []string{"duration"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.Do("POST", "/api/alert-suppressions", key, tc.body).WantFields(t, tc.fields...)
		})
	}
	e.Do("POST", "/api/alert-suppressions", reader, map[string]any{"asset": "a", "reason": "x", "duration": "1h"}).Must(t, http.StatusForbidden)
}
