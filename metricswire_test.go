package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"garrison/metrics"
	"garrison/ratelimit"
)

// TestMetricsEndpoint scrapes a server that has answered requests, taken
// events and run an agent, and checks the text strictly. Every series
// names the node (a cluster's are told apart wherever they are gathered).
func TestMetricsEndpoint(t *testing.T) {
	e := newTestEnv(t, func(c *config) { c.node = "soc-a" })
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	at := e.clock.Now().Add(-time.Minute).Format(time.RFC3339)
	e.Do("POST", "/api/events", key, map[string]any{"events": []map[string]any{{"type": "threat_detected", "severity": "low", "source": "ids",
		"asset": "web-01", "timestamp": at, "message": "probe"}}}).Must(t, http.StatusCreated)
	e.Do("GET", "/api/events", key, nil).Must(t, http.StatusOK)
	e.Do("GET", "/api/alerts/alr_nothing", key, nil).WantError(t, http.StatusNotFound, "not_found", "")
	run := e.Do("POST", "/api/agents/onboarding/execute", admin.Token, nil).Must(t, http.StatusAccepted).Str("data", "agent_run_id")
	deadline := time.Now().Add(10 * time.Second)
	for e.Do("GET", "/api/agents/onboarding/executions/"+run, admin.Token, nil).Must(t, http.StatusOK).Data()["status"] != "completed" {
		if time.Now().After(deadline) {
			t.Fatal("the run did not complete")
		}
		time.Sleep(10 * time.Millisecond)
	}

	srv := httptest.NewServer(metricsServer("", e.app.Metrics).Handler)
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	text := string(body)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("scrape: %d %v", res.StatusCode, res.Header)
	}
	if err := metrics.Check(text); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, want := range []string{
		`garrison_http_requests_total{node="soc-a",route="POST /api/events",status="201"} 1`,
		`garrison_http_requests_total{node="soc-a",route="GET /api/alerts/{id}",status="404"} 1`,
		`garrison_http_request_duration_seconds_count{node="soc-a",route="GET /api/events"} 1`,
		`garrison_ingest_events_total{node="soc-a"} 1`,
		`garrison_ingest_batches_total{node="soc-a"} 1`,
		`garrison_agent_runs_total{node="soc-a",agent="onboarding",status="completed"} 1`,
		`garrison_agent_queue_depth{node="soc-a"} `,
		`garrison_fold_lag_events{node="soc-a"} `,
		`garrison_database_bytes{node="soc-a",file="db"} `,
		`go_goroutines{node="soc-a"} `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q", want)
		}
	}
	if r, _ := srv.Client().Post(srv.URL+"/metrics", "text/plain", nil); r == nil || r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics answered %v", r)
	}
}

// TestRateLimitRefusalsCounted: refusals are counted by bucket whichever
// way the bucket refused, including the failed-credential bucket that is
// only looked at (Peek) before a credential is checked.
func TestRateLimitRefusalsCounted(t *testing.T) {
	e := newTestEnv(t, func(c *config) {
		jwt, err := ratelimit.ParseLimits("jwt=3/1m")
		if err != nil {
			t.Fatal(err)
		}
		c.limits["jwt"] = jwt["jwt"]
	})
	var statuses []int
	for range 6 {
		statuses = append(statuses, e.Do("GET", "/api/events", "not-a-token", nil).Status)
	}
	if statuses[0] != http.StatusUnauthorized || statuses[5] != http.StatusTooManyRequests {
		t.Fatalf("statuses %v: want 401s, then 429s", statuses)
	}
	var b strings.Builder
	e.app.Metrics.WriteTo(&b)
	if !strings.Contains(b.String(), `garrison_ratelimit_refusals_total{bucket="failures"} `) {
		t.Fatalf("the failed-credential refusals are not counted:\n%s", b.String())
	}
}
