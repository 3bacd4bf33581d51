package handlers_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/store"
)

// BenchmarkAgentAccept measures accepting a run over HTTP (validation, the
// run budget, a durable insert, the estimate) with 1,000 runs already
// queued and no worker taking them, and reports p50 and p99.
func BenchmarkAgentAccept(b *testing.B) {
	e := newEnv(b)
	e.StopRunner() // the queue only grows
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	ctx := context.Background()
	for range 1000 {
		if _, err := e.Store.QueueRun(ctx, store.NewRun{OrgID: admin.OrgID, Agent: "onboarding", Params: json.RawMessage(`{}`), RequestedBy: admin.ID}); err != nil {
			b.Fatal(err)
		}
	}
	body := `{"target":"evil.example","options":{"include_cve":true}}`
	var samples []time.Duration
	for b.Loop() {
		start := time.Now()
		req, _ := http.NewRequest("POST", e.Server.URL+"/api/agents/threat-researcher/execute", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := e.Server.Client().Do(req)
		if err != nil || res.StatusCode != http.StatusAccepted {
			b.Fatalf("accept: %v %v", err, res.Status)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		samples = append(samples, time.Since(start))
	}
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(samples[len(samples)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkAgentRuns queues runs of the deterministic agents over seeded
// data and reports how many the default worker pool completes per second.
func BenchmarkAgentRuns(b *testing.B) {
	e := newEnv(b)
	admin := e.Register("ann@acme.test", "Acme")
	seedAgentData(b, e, admin)
	ctx := context.Background()
	mix := []struct{ agent, params string }{
		{"onboarding", `{}`}, {"compliance", `{}`}, {"account-manager", `{}`},
		{"threat-researcher", `{"target":"198.51.100.23"}`}, {"tech-support", `{"prompt":"My VPN keeps disconnecting"}`},
	}
	const perRound = 200
	var elapsed time.Duration
	runs := 0
	for b.Loop() {
		start := time.Now()
		for i := range perRound {
			m := mix[i%len(mix)]
			if _, err := e.Store.QueueRun(ctx, store.NewRun{OrgID: admin.OrgID, Agent: m.agent, Params: json.RawMessage(m.params), RequestedBy: admin.ID}); err != nil {
				b.Fatal(err)
			}
		}
		e.Runner.Notify()
		for {
			var open int
			if err := e.Store.DB().QueryRow(`SELECT COUNT(*) FROM agent_runs WHERE status IN ('queued', 'running')`).Scan(&open); err != nil {
				b.Fatal(err)
			}
			if open == 0 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		elapsed += time.Since(start)
		runs += perRound
	}
	var failed int
	e.Store.DB().QueryRow(`SELECT COUNT(*) FROM agent_runs WHERE status != 'completed'`).Scan(&failed)
	if failed > 0 {
		b.Fatalf("%d runs did not complete", failed)
	}
	b.ReportMetric(float64(runs)/elapsed.Seconds(), "runs/s")
}
