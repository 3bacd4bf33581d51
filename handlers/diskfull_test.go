package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// TestDiskFull: with the database unable to grow, writes answer 503 with
// Retry-After and change nothing, reads answer, health says degraded and
// why; when space comes back everything recovers without a restart.
// (fulldisk_test.go fills a real file system.)
func TestDiskFull(t *testing.T) {
	apitest.SQLiteOnly(t, "it fills the disk through SQLite's page limit (PRAGMA max_page_count); PostgreSQL's disk-full error (53100) is mapped to 503 the same way, but this harness cannot fill its disk")
	e := newEnv(t)
	key := e.APIKey(e.Register("ann@acme.test", "Acme"), "write")
	at := e.Clock.Now().Add(-time.Minute).Format(time.RFC3339)
	batch := func(n int) map[string]any {
		evs := make([]map[string]any, n)
		for i := range evs {
			evs[i] = map[string]any{"type": "threat_detected", "severity": "low", "source": "ids", "asset": "web-01", "timestamp": at,
				"message": strings.Repeat("a fairly long message to fill pages ", 20)}
		}
		return map[string]any{"events": evs}
	}
	e.Do("POST", "/api/events", key, batch(10)).Must(t, http.StatusCreated)
	total := func() float64 {
		return e.Do("GET", "/api/events?limit=1", key, nil).Must(t, http.StatusOK).Get("pagination", "total").MustFloat(t)
	}
	before := total()

	ctx := context.Background()
	if err := e.Store.LimitPages(ctx, 1); err != nil {
		t.Fatal(err)
	}
	r := e.Do("POST", "/api/events", key, batch(500))
	r.WantError(t, http.StatusServiceUnavailable, "unavailable", "")
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("no Retry-After: %v", r.Header)
	}
	if got := total(); got != before {
		t.Fatalf("a refused batch was stored: %v events, were %v", got, before)
	}
	h := e.Do("GET", "/api/dashboard/health", "", nil)
	if h.Status != http.StatusServiceUnavailable || h.Body["status"] != "degraded" || h.Body["reason"] != "the disk is full" {
		t.Fatalf("health on a full disk: %d %s", h.Status, h.Raw)
	}
	e.Do("GET", "/api/dashboard/stats", key, nil).Must(t, http.StatusOK)

	// Space comes back: within a second the server says so (it makes its
	// disk reserve again) and takes events.
	if err := e.Store.LimitPages(ctx, 0); err != nil {
		t.Fatal(err)
	}
	eventually(t, "health ok once space is back", func() bool {
		return e.Do("GET", "/api/dashboard/health", "", nil).Status == http.StatusOK
	})
	e.Do("POST", "/api/events", key, batch(500)).Must(t, http.StatusCreated)
	if got := total(); got != before+500 {
		t.Fatalf("after recovery: %v events, want %v", got, before+500)
	}
	e.Do("GET", "/api/dashboard/health", "", nil).Must(t, http.StatusOK)
}
