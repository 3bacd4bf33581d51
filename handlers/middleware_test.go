package handlers

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/audit"
	"garrison/metrics"
)

func TestPanicBecomesInternalError(t *testing.T) {
	var logs bytes.Buffer
	registry := metrics.New()
	h := base(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		stateOf(r.Context()).route = registry.Route("GET /api/x") // as endpoint does
		panic("boom: SELECT * FROM users")
	}), slog.New(slog.NewJSONHandler(&logs, nil)), func() []netip.Prefix { return nil })
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/x", nil))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("not JSON: %q", rec.Body.String())
	}
	if rec.Code != 500 || body["code"] != "internal_error" || body["success"] != false || body["error"] != "Internal server error" {
		t.Fatalf("%d %v", rec.Code, body)
	}
	if strings.Contains(rec.Body.String(), "SELECT") || strings.Contains(rec.Body.String(), "goroutine") {
		t.Fatalf("body leaks the panic: %s", rec.Body.String())
	}
	if !strings.Contains(logs.String(), "boom") || !strings.Contains(logs.String(), rec.Header().Get("X-Request-Id")) {
		t.Fatalf("panic not logged with the request id: %s", logs.String())
	}
	var scrape strings.Builder
	registry.WriteTo(&scrape)
	if !strings.Contains(scrape.String(), `garrison_http_requests_total{route="GET /api/x",status="500"} 1`) {
		t.Fatalf("the panic is not counted as the 500 it answered:\n%s", scrape.String())
	}
}

func TestUnknownErrorsAreHidden(t *testing.T) {
	var logs bytes.Buffer
	rec := httptest.NewRecorder()
	writeError(rec, httptest.NewRequest("GET", "/api/x", nil), slog.New(slog.NewJSONHandler(&logs, nil)),
		errString("sqlite: constraint failed: users.email"))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "sqlite") || !strings.Contains(logs.String(), "sqlite") {
		t.Fatalf("%d %s / log %s", rec.Code, rec.Body.String(), logs.String())
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestAuditedRoutesNameLoggedActions: every audited row names an action
// the audit log holds (and its filter accepts).
func TestAuditedRoutesNameLoggedActions(t *testing.T) {
	audited := 0
	for _, rt := range New(Deps{Log: slog.New(slog.DiscardHandler), Now: time.Now}).Routes() {
		if rt.Audit == "" {
			continue
		}
		audited++
		if !slices.Contains(audit.Actions, rt.Audit) {
			t.Errorf("%s %s records %q, which is not an audit action", rt.Method, rt.Path, rt.Audit)
		}
	}
	if audited < 20 {
		t.Fatalf("only %d audited routes", audited)
	}
}
