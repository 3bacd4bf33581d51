package handlers

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"garrison/fault"
)

// TestChargeAgentRun: the agents' execute endpoints get 20 runs a minute per
// organization, all agents together, with the headers of that bucket.
func TestChargeAgentRun(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := New(Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return now },
		Limits: NewRateLimits(LimitsConfig{Now: func() time.Time { return now }})})
	run := func(org string) (*httptest.ResponseRecorder, error) {
		rec := httptest.NewRecorder()
		return rec, a.ChargeAgentRun(rec, httptest.NewRequest("POST", "/api/agents/run", nil), org)
	}
	for i := range 20 {
		rec, err := run("org_a")
		if err != nil || rec.Header().Get("X-RateLimit-Limit") != "20" {
			t.Fatalf("run %d: %v %v", i+1, err, rec.Header())
		}
	}
	rec, err := run("org_a")
	if !fault.Has(err, fault.RateLimited) || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("21st run: %v %v", err, rec.Header())
	}
	if _, err := run("org_b"); err != nil {
		t.Fatalf("another organization shares the bucket: %v", err)
	}
}
