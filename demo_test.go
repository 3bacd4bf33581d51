package main

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"garrison/demo"
)

func TestDemo(t *testing.T) {
	e := newTestEnv(t)
	var out bytes.Buffer
	if err := demo.Create(context.Background(), e.app.store, e.clock.Now(), &out); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`password: (\S+)`).FindStringSubmatch(out.String())
	if m == nil || !strings.Contains(out.String(), demo.Email) {
		t.Fatalf("credentials not printed: %s", out.String())
	}
	token := e.login(demo.Email, m[1]).must(t, http.StatusOK).str("token")

	events := e.do("GET", "/api/events?limit=1", token, nil).must(t, http.StatusOK)
	if events.body["pagination"].(map[string]any)["total"].(float64) < 30*150 {
		t.Fatalf("too few demo events: %v", events.body["pagination"])
	}
	open, resolved := e.alerts(token, "status=open"), e.alerts(token, "status=resolved")
	if len(open) == 0 || len(resolved) == 0 {
		t.Fatalf("demo alerts: %d open, %d resolved", len(open), len(resolved))
	}
	nh := e.do("GET", "/api/dashboard/network-health", token, nil).must(t, http.StatusOK).data()
	if nh["dns"].(map[string]any)["7d"].(map[string]any)["blocked_trackers"].(float64) == 0 {
		t.Fatalf("no blocked trackers in the demo: %v", nh["dns"])
	}
	timeline := e.do("GET", "/api/dashboard/risk-timeline", token, nil).must(t, http.StatusOK).data()["points"].([]any)
	for _, p := range timeline {
		if p.(map[string]any)["events"].(float64) == 0 {
			t.Fatalf("a day of the demo month is empty: %v", p)
		}
	}
	e.app.runner.Notify()
	escalated := 0
	for _, item := range e.do("GET", "/api/tickets", token, nil).must(t, http.StatusOK).list() {
		tk := e.awaitTriage(token, item.(map[string]any)["id"].(string))
		if tk["status"] == "escalated" {
			escalated++
		}
	}
	if escalated != 1 {
		t.Fatalf("%d demo tickets escalated, want 1", escalated)
	}
	for _, agent := range []string{"threat-researcher", "onboarding"} {
		runs := e.do("GET", "/api/agents/"+agent+"/executions", token, nil).must(t, http.StatusOK).list()
		if len(runs) != 1 {
			t.Fatalf("%s demo runs: %v", agent, runs)
		}
		e.awaitRun(token, agent, runs[0].(map[string]any)["agent_run_id"].(string), "completed")
	}
	out.Reset()
	if err := demo.Create(context.Background(), e.app.store, e.clock.Now(), &out); err != nil || !strings.Contains(out.String(), "exists already") {
		t.Fatalf("second run: %v %s", err, out.String())
	}
	if again := e.do("GET", "/api/events?limit=1", token, nil).body["pagination"].(map[string]any)["total"]; again != events.body["pagination"].(map[string]any)["total"] {
		t.Fatal("second run added events")
	}
}
