package handlers_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// fakeLLM is a local stand-in for an OpenAI-compatible chat completions
// server. block holds answers until released; answer is what it says.
type fakeLLM struct {
	srv      *httptest.Server
	mu       sync.Mutex
	answer   string
	block    chan struct{} // nil: answer at once
	requests int
	entered  chan struct{} // one value per request received
}

func newFakeLLM(t *testing.T, answer string) *fakeLLM {
	f := &fakeLLM{answer: answer, entered: make(chan struct{}, 100)}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct{ Role, Content string }
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "test-model" || len(req.Messages) < 2 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.requests++
		block, answer := f.block, f.answer
		f.mu.Unlock()
		f.entered <- struct{}{}
		if block != nil {
			select {
			case <-block:
			case <-r.Context().Done():
				return
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]string{"role": "assistant", "content": answer}}}})
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// awaitRequest waits for the next request to reach the fake model.
func (f *fakeLLM) awaitRequest(t *testing.T) {
	t.Helper()
	select {
	case <-f.entered:
	case <-time.After(20 * time.Second):
		t.Fatal("no request reached the language model")
	}
}

// blockAnswers makes requests wait until the returned release is called.
func (f *fakeLLM) blockAnswers() (release func()) {
	ch := make(chan struct{})
	f.mu.Lock()
	f.block = ch
	f.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			f.block = nil
			f.mu.Unlock()
			close(ch)
		})
	}
}

func withLLM(f *fakeLLM, timeout time.Duration) apitest.Option {
	return func(c *apitest.Config) {
		c.LLMURL, c.LLMModel, c.LLMTimeout = f.srv.URL+"/v1", "test-model", timeout
	}
}

func withWorkers(n int) apitest.Option { return func(c *apitest.Config) { c.Workers = n } }

// execute starts a run and returns the 202 answer's data.
func (e *env) execute(cred, agent string, body map[string]any) apitest.JSON {
	e.T.Helper()
	var b any // no body when body is nil: a JSON null is refused
	if body != nil {
		b = body
	}
	return e.Do("POST", "/api/agents/"+agent+"/execute", cred, b).Must(e.T, http.StatusAccepted).Get("data")
}

// awaitRun polls a run until its status is one of want, and returns it.
func (e *env) awaitRun(cred, agent, runID string, want ...string) apitest.JSON {
	e.T.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		run := e.Do("GET", "/api/agents/"+agent+"/executions/"+runID, cred, nil).Must(e.T, http.StatusOK).Get("data")
		for _, w := range want {
			if run.Get("status").Is(w) {
				return run
			}
		}
		if time.Now().After(deadline) {
			e.T.Fatalf("run %s is %v, want %v: %v", runID, run.Get("status"), want, run)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// runToEnd executes an agent and waits for it to complete.
func (e *env) runToEnd(cred, agent string, body map[string]any) apitest.JSON {
	e.T.Helper()
	id := e.execute(cred, agent, body).Get("agent_run_id").MustStr(e.T)
	run := e.awaitRun(cred, agent, id, "completed", "failed", "cancelled")
	if run.Get("status").Str() != "completed" {
		e.T.Fatalf("run %s ended %v: %v", id, run.Get("status"), run.Get("error"))
	}
	return run
}

func TestAgentsList(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	list := e.Do("GET", "/api/agents", admin.Token, nil).Must(t, http.StatusOK).Get("data").List()
	want := map[string]string{"msp-hunter": "pro", "threat-researcher": "starter", "tech-support": "starter",
		"compliance": "starter", "account-manager": "starter", "onboarding": "starter"}
	if len(list) != 6 {
		t.Fatalf("%d agents, want 6", len(list))
	}
	for _, a := range list {
		slug := a.Get("slug").MustStr(t)
		if !a.Get("plan_tier").Is(want[slug]) {
			t.Errorf("%s plan tier %v, want %s", slug, a.Get("plan_tier"), want[slug])
		}
		if a.Get("name").Is("") || a.Get("description").Is("") || a.Get("status").Str() != "idle" || !a.Get("last_execution_at").IsNull() {
			t.Errorf("agent %s: %v", slug, a)
		}
		if !a.Get("available").Is(slug != "msp-hunter") {
			t.Errorf("%s available %v on starter", slug, a.Get("available"))
		}
	}
	run := e.runToEnd(admin.Token, "onboarding", nil)
	for _, a := range e.Do("GET", "/api/agents", admin.Token, nil).Must(t, http.StatusOK).Get("data").List() {
		if a.Get("slug").Str() == "onboarding" && (!a.Get("last_execution_at").Equal(run.Get("queued_at")) || a.Get("last_status").Str() != "completed") {
			t.Errorf("onboarding after a run: %v", a)
		}
	}
}

func TestAgentRunBothFormsShareOnePath(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	forms := []struct {
		name, path string
		body       map[string]any
	}{
		{"execute", "/api/agents/threat-researcher/execute", map[string]any{"target": "evil.example", "options": map[string]bool{"include_cve": false}}},
		{"run", "/api/agents/run", map[string]any{"agent": "threat-researcher", "target": "evil.example", "options": map[string]bool{"include_cve": false}}},
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			r := e.Do("POST", f.path, key, f.body).Must(t, http.StatusAccepted)
			d := r.Get("data")
			if r.Body["success"] != true || !strings.HasPrefix(d.Get("agent_run_id").Str(), "run_") || len(d.Get("agent_run_id").Str()) != 30 ||
				d.Get("agent").Str() != "threat-researcher" || d.Get("status").Str() != "queued" {
				t.Fatalf("accept body: %s", r.Raw)
			}
			if est := d.Get("estimated_completion_seconds"); !est.IsFloat() || est.Float() < 1 || est.Float() != float64(est.Int()) {
				t.Fatalf("estimated_completion_seconds %v", d.Get("estimated_completion_seconds"))
			}
			run := e.awaitRun(key, "threat-researcher", d.Get("agent_run_id").Str(), "completed")
			var params map[string]any
			json.Unmarshal(mustJSON(run.Get("params").Any()), &params)
			if p := apitest.J(params); p.Get("target").Str() != "evil.example" || !p.Get("options").MustObject(t).Get("include_cve").Is(false) {
				t.Fatalf("stored params %v", params)
			}
			if run.Get("output").MustObject(t).Has("cves") {
				t.Fatalf("include_cve=false still reported CVEs")
			}
		})
	}
}

// TestAgentRunEstimateCountsTurns: organizations take turns at the workers,
// so a run queued behind another organization's long queue is estimated
// (and taken) after that organization's first run only.
func TestAgentRunEstimateCountsTurns(t *testing.T) {
	e := newEnv(t, withWorkers(1))
	e.StopRunner() // the runs stay queued, in the order of their turns
	busy := e.Register("ann@acme.test", "Acme")
	quiet := e.Register("zoe@other.test", "Other")
	estimate := func(token string) float64 {
		t.Helper()
		return e.Do("POST", "/api/agents/onboarding/execute", token, nil).Must(t, http.StatusAccepted).
			Get("data", "estimated_completion_seconds").MustFloat(t)
	}
	// No run has completed: 2 s each, one worker.
	for i, want := range []float64{2, 4, 6} {
		if got := estimate(busy.Token); got != want {
			t.Fatalf("busy organization's run %d: estimate %v, want %v", i+1, got, want)
		}
	}
	if got := estimate(quiet.Token); got != 4 {
		t.Fatalf("quiet organization's run: estimate %v, want 4 (after the busy one's first run only)", got)
	}
}

func TestAgentRunErrors(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	validNames := "Valid agents: msp-hunter, threat-researcher, tech-support, compliance, account-manager, onboarding"
	cases := []struct {
		name, method, path string
		body               any
		status             int
		code               string
		fields             []string
	}{
		{"unknown agent execute", "POST", "/api/agents/hacker/execute", map[string]any{}, 400, "validation_error", []string{"id"}},
		{"unknown agent run form", "POST", "/api/agents/run", map[string]any{"agent": "hacker"}, 400, "validation_error", []string{"agent"}},
		{"run form without agent", "POST", "/api/agents/run", map[string]any{"target": "x.example"}, 400, "validation_error", []string{"agent"}},
		{"run form agent not a string", "POST", "/api/agents/run", map[string]any{"agent": 7}, 400, "validation_error", []string{"agent"}},
		{"unknown agent executions", "GET", "/api/agents/hacker/executions", nil, 400, "validation_error", []string{"id"}},
		{"missing target", "POST", "/api/agents/threat-researcher/execute", map[string]any{}, 400, "validation_error", []string{"target"}},
		{"bad target", "POST", "/api/agents/threat-researcher/execute", map[string]any{"target": "<script>"}, 400, "validation_error", []string{"target"}},
		{"unknown parameter", "POST", "/api/agents/threat-researcher/execute", map[string]any{"target": "a.example", "vertical": "legal"}, 400, "validation_error", []string{"vertical"}},
		{"unknown option", "POST", "/api/agents/run", map[string]any{"agent": "threat-researcher", "target": "a.example", "options": map[string]any{"deep": true}}, 400, "validation_error", []string{"options.deep"}},
		{"option of the wrong type", "POST", "/api/agents/threat-researcher/execute", map[string]any{"target": "a.example", "options": map[string]any{"include_cve": "yes"}}, 400, "validation_error", []string{"options.include_cve"}},
		{"bad framework", "POST", "/api/agents/compliance/execute", map[string]any{"framework": "iso27001"}, 400, "validation_error", []string{"framework"}},
		{"support without input", "POST", "/api/agents/tech-support/execute", map[string]any{}, 400, "validation_error", []string{"ticket_id"}},
		{"support on an unknown ticket", "POST", "/api/agents/tech-support/execute", map[string]any{"ticket_id": "tkt_nope"}, 404, "not_found", nil},
		{"prompt too long", "POST", "/api/agents/onboarding/execute", map[string]any{"prompt": strings.Repeat("a", 4001)}, 400, "validation_error", []string{"prompt"}},
		{"body not an object", "POST", "/api/agents/onboarding/execute", "[1]", 400, "validation_error", []string{"body"}},
		{"hunter below pro", "POST", "/api/agents/msp-hunter/execute", map[string]any{"vertical": "legal"}, 403, "plan_upgrade_required", nil},
		{"hunter below pro, run form", "POST", "/api/agents/run", map[string]any{"agent": "msp-hunter"}, 403, "plan_upgrade_required", nil},
		{"unknown run", "GET", "/api/agents/onboarding/executions/run_00000000000000000000000000", nil, 404, "not_found", nil},
		{"cancel unknown run", "POST", "/api/agents/onboarding/executions/run_00000000000000000000000000/cancel", nil, 404, "not_found", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do(c.method, c.path, admin.Token, c.body)
			if c.fields != nil {
				r.WantFields(t, c.fields...)
			} else {
				r.WantError(t, c.status, c.code, "")
			}
			if strings.HasPrefix(c.name, "unknown agent") && !strings.HasSuffix(r.Str("error"), validNames) {
				t.Fatalf("error does not list the agents: %q", r.Str("error"))
			}
		})
	}
	if n := len(e.Do("GET", "/api/agents/threat-researcher/executions", admin.Token, nil).Must(t, 200).List()); n != 0 {
		t.Fatalf("refused requests queued %d runs", n)
	}
}

func TestAgentRunPlanGate(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.Do("POST", "/api/agents/msp-hunter/execute", admin.Token, map[string]any{"vertical": "legal"}).
		WantError(t, http.StatusForbidden, "plan_upgrade_required", "The msp-hunter agent is included in the pro and ultimate plans; this organization is on starter")
	if _, err := e.Store.SetPlanByAdmin(t.Context(), admin.Email, "pro"); err != nil {
		t.Fatal(err)
	}
	e.Do("POST", "/api/agents/msp-hunter/execute", admin.Token, map[string]any{"vertical": "bakery"}).WantFields(t, "vertical")
	run := e.runToEnd(admin.Token, "msp-hunter", map[string]any{"vertical": "legal", "region": "Leeds"})
	out2 := run.Get("output")
	if out2.Get("criteria", "vertical").Str() != "legal" || !strings.Contains(run.Get("output_summary").Str(), "legal vertical in Leeds") {
		t.Fatalf("hunter output: %v", run)
	}
}

func TestAgentRunRateLimit(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	other := e.Register("zoe@other.test", "Other")
	e.UseLimits(strings.Replace(apitest.GenerousLimits, "agent-runs=100000/1m", "agent-runs=20/1m", 1), nil)
	for i := range 20 {
		r := e.Do("POST", "/api/agents/onboarding/execute", admin.Token, nil).Must(t, http.StatusAccepted)
		if got := r.Header.Get("X-RateLimit-Remaining"); got != fmt.Sprint(19-i) {
			t.Fatalf("run %d: remaining %q", i+1, got)
		}
	}
	// Invalid requests do not spend the budget, and are refused as invalid.
	e.Do("POST", "/api/agents/compliance/execute", admin.Token, map[string]any{"framework": "x"}).WantFields(t, "framework")
	r := e.Do("POST", "/api/agents/run", admin.Token, map[string]any{"agent": "onboarding"})
	r.WantError(t, http.StatusTooManyRequests, "rate_limited", "")
	if r.Header.Get("Retry-After") == "" || r.Header.Get("X-RateLimit-Limit") != "20" || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("429 headers: %v", r.Header)
	}
	e.Do("POST", "/api/agents/onboarding/execute", other.Token, nil).Must(t, http.StatusAccepted) // per organization
	e.Clock.Advance(time.Minute)
	e.Do("POST", "/api/agents/onboarding/execute", admin.Token, nil).Must(t, http.StatusAccepted)
}

func TestAgentRunLifecycleAndCancel(t *testing.T) {
	llm := newFakeLLM(t, "The organization's data was reviewed.")
	release := llm.blockAnswers()
	defer release()
	e := newEnv(t, withLLM(llm, time.Minute), withWorkers(1))
	admin := e.Register("ann@acme.test", "Acme")
	stranger := e.Register("zoe@other.test", "Other")

	first := e.execute(admin.Token, "onboarding", nil).Get("agent_run_id").MustStr(t)
	llm.awaitRequest(t) // the only worker is inside the first run
	running := e.awaitRun(admin.Token, "onboarding", first, "running")
	if running.Get("started_at").IsNull() || !running.Get("finished_at").IsNull() {
		t.Fatalf("running run: %v", running)
	}
	second := e.execute(admin.Token, "compliance", nil).Get("agent_run_id").MustStr(t)
	third := e.execute(admin.Token, "compliance", nil).Get("agent_run_id").MustStr(t)
	queued := e.awaitRun(admin.Token, "compliance", second, "queued")
	if !queued.Get("started_at").IsNull() || !queued.Get("output").IsNull() {
		t.Fatalf("queued run: %v", queued)
	}
	agentsNow := e.Do("GET", "/api/agents", admin.Token, nil).Must(t, 200).Get("data").List()
	for _, a := range agentsNow {
		if a.Get("slug").Str() == "compliance" && (a.Get("status").Str() != "queued" || a.Get("queued").Float() != 2) {
			t.Fatalf("compliance while queued: %v", a)
		}
	}

	ov := e.Do("GET", "/api/dashboard/overview", admin.Token, nil).Must(t, 200).Get("data", "agents")
	st := e.Do("GET", "/api/dashboard/stats", admin.Token, nil).Must(t, 200).Data()
	if ov.Get("active").Float() != 2 || ov.Get("queued").Float() != 2 || st["agents_active"] != 2.0 {
		t.Fatalf("overview agents %v, stats agents_active %v", ov, st["agents_active"])
	}

	// Another organization cannot see or cancel them.
	e.Do("GET", "/api/agents/compliance/executions/"+second, stranger.Token, nil).WantError(t, 404, "not_found", "")
	e.Do("POST", "/api/agents/compliance/executions/"+second+"/cancel", stranger.Token, nil).WantError(t, 404, "not_found", "")
	// The run id belongs to its agent.
	e.Do("GET", "/api/agents/onboarding/executions/"+second, admin.Token, nil).WantError(t, 404, "not_found", "")

	c := e.Do("POST", "/api/agents/compliance/executions/"+second+"/cancel", admin.Token, nil).Must(t, 200).Data()
	if c["status"] != "cancelled" || c["finished_at"] == nil || c["started_at"] != nil {
		t.Fatalf("cancelled queued run: %v", c)
	}
	c = e.Do("POST", "/api/agents/onboarding/executions/"+first+"/cancel", admin.Token, nil).Must(t, 200).Data()
	if c["status"] != "cancelled" {
		t.Fatalf("cancelled running run: %v", c)
	}
	// The cancel stopped the first run's goroutine: the only worker is free
	// and takes the third run while the model still holds every answer.
	llm.awaitRequest(t)
	e.awaitRun(admin.Token, "compliance", third, "running")
	release()
	done := e.awaitRun(admin.Token, "compliance", third, "completed")
	if done.Get("duration_ms").IsNull() || done.Get("finished_at").IsNull() || done.Get("output_summary").Str() != "The organization's data was reviewed." {
		t.Fatalf("completed run: %v", done)
	}
	narrative := done.Get("output", "narrative")
	if narrative.Get("source").Str() != "llm" || narrative.Get("model").Str() != "test-model" ||
		!strings.Contains(done.Get("output", "facts_summary").Str(), "applicable controls pass") {
		t.Fatalf("narrative: %v", done.Get("output"))
	}
	// Cancelled runs stay cancelled; ended runs cannot be cancelled.
	if got := e.awaitRun(admin.Token, "onboarding", first, "cancelled"); !got.Get("output").IsNull() {
		t.Fatalf("cancelled run got output: %v", got)
	}
	e.Do("POST", "/api/agents/compliance/executions/"+third+"/cancel", admin.Token, nil).
		WantError(t, http.StatusConflict, "conflict", "The run has already ended; only queued and running runs can be cancelled")

	list := e.Do("GET", "/api/agents/compliance/executions?limit=1", admin.Token, nil).Must(t, 200)
	page := list.Get("pagination")
	if page.Get("total").Float() != 2 || len(list.List()) != 1 || !list.Get("data", "0", "agent_run_id").Is(third) ||
		!list.Get("data", "0").MustObject(t).Get("output").IsNull() {
		t.Fatalf("executions list: %s", list.Raw)
	}
}

func TestAgentLLMTimeoutFallsBack(t *testing.T) {
	llm := newFakeLLM(t, "never sent")
	defer llm.blockAnswers()()
	e := newEnv(t, withLLM(llm, 50*time.Millisecond))
	admin := e.Register("ann@acme.test", "Acme")
	run := e.runToEnd(admin.Token, "onboarding", nil)
	narrative := run.Get("output", "narrative")
	if narrative.Get("source").Str() != "deterministic" || !strings.Contains(narrative.Get("fallback_reason").Str(), "did not answer in time") ||
		!strings.HasPrefix(run.Get("output_summary").Str(), "Onboarding is ") {
		t.Fatalf("timeout fallback: %v", run)
	}
}

func TestAgentLLMInventedFactsFallBack(t *testing.T) {
	llm := newFakeLLM(t, "There were 987654 critical alerts today.")
	e := newEnv(t, withLLM(llm, time.Minute))
	admin := e.Register("ann@acme.test", "Acme")
	run := e.runToEnd(admin.Token, "onboarding", nil)
	narrative := run.Get("output", "narrative")
	if narrative.Get("source").Str() != "deterministic" || strings.Contains(run.Get("output_summary").MustStr(t), "987654") {
		t.Fatalf("invented number accepted: %v", run)
	}
	sum := e.Do("GET", "/api/dashboard/daily-summary", admin.Token, nil).Must(t, 200).Data()
	if sum["generated_by"] != "facts" || sum["narration_error"] == nil {
		t.Fatalf("daily summary took an invented number: %v", sum)
	}
	llm.mu.Lock()
	llm.answer = "A quiet day: nothing was recorded."
	llm.mu.Unlock()
	sum = e.Do("GET", "/api/dashboard/daily-summary", admin.Token, nil).Must(t, 200).Data()
	if sum["generated_by"] != "llm:test-model" || sum["summary"] != "A quiet day: nothing was recorded." || sum["facts_summary"] == nil {
		t.Fatalf("daily summary narration: %v", sum)
	}
	// The same facts are not sent again: the phrasing is remembered.
	llm.mu.Lock()
	asked := llm.requests
	llm.mu.Unlock()
	again := e.Do("GET", "/api/dashboard/daily-summary", admin.Token, nil).Must(t, 200).Data()
	llm.mu.Lock()
	defer llm.mu.Unlock()
	if llm.requests != asked || again["summary"] != sum["summary"] {
		t.Fatalf("the model was asked again for the same facts (%d, then %d)", asked, llm.requests)
	}
}

// TestAgentRunsSurviveRestart stops the server with runs running and queued
// and starts it again: every run finishes. A run a crash left running is
// queued again once; one interrupted a second time fails with the reason.
func TestAgentRunsSurviveRestart(t *testing.T) {
	apitest.SQLiteOnly(t, "it restarts the app on the same SQLite file and edits it to simulate a crash; on PostgreSQL nodes taking over runs is the cluster test's (issue 34)")
	dir := t.TempDir()
	llm := newFakeLLM(t, "Reviewed.")
	release := llm.blockAnswers()
	first := newEnv(t, func(c *apitest.Config) { c.DataDir = dir }, withLLM(llm, time.Minute), withWorkers(1))
	admin := first.Register("ann@acme.test", "Acme")
	var ids []string
	for range 3 {
		ids = append(ids, first.execute(admin.Token, "onboarding", nil).Get("agent_run_id").MustStr(t))
	}
	llm.awaitRequest(t)
	first.awaitRun(admin.Token, "onboarding", ids[0], "running")
	first.StopRunner() // a graceful stop puts the running run back in the queue
	if got := first.awaitRun(admin.Token, "onboarding", ids[0], "queued"); !got.Get("recoveries").Is(0) {
		t.Fatalf("gracefully stopped run: %v", got)
	}
	// Simulate a crash: one run left running, another already recovered once.
	db, err := sql.Open("sqlite", filepath.Join(dir, "garrison.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, `UPDATE agent_runs SET status = 'running', started_at = 1 WHERE id = ?`, ids[1])
	mustExec(t, db, `UPDATE agent_runs SET status = 'running', started_at = 1, recoveries = 1 WHERE id = ?`, ids[2])
	release()

	second := newEnv(t, func(c *apitest.Config) { c.DataDir = dir }, withLLM(llm, time.Minute), withWorkers(2))
	for i, id := range ids[:2] {
		run := second.awaitRun(admin.Token, "onboarding", id, "completed")
		if want := float64(i); !run.Get("recoveries").Is(want) {
			t.Fatalf("run %d recoveries %v, want %v", i, run.Get("recoveries"), want)
		}
	}
	failed := second.awaitRun(admin.Token, "onboarding", ids[2], "failed")
	if !strings.Contains(failed.Get("error").Str(), "stopped twice") {
		t.Fatalf("twice-interrupted run: %v", failed)
	}
}

func mustExec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatal(err)
	}
}

func TestAgentRunTimeout(t *testing.T) {
	llm := newFakeLLM(t, "unused")
	defer llm.blockAnswers()()
	e := newEnv(t, withLLM(llm, time.Minute), func(c *apitest.Config) { c.AgentTimeout = 100 * time.Millisecond })
	admin := e.Register("ann@acme.test", "Acme")

	id := e.execute(admin.Token, "onboarding", nil).Get("agent_run_id").MustStr(t)
	run := e.awaitRun(admin.Token, "onboarding", id, "completed", "failed")
	if run.Get("status").Str() != "failed" || run.Get("error").Str() != "The run did not finish within 100ms and was stopped." || !run.Get("output").IsNull() ||
		run.Get("finished_at").IsNull() || run.Get("duration_ms").IsNull() {
		t.Fatalf("timed-out run: %v", run)
	}
	// A triage that fails leaves the ticket to a human.
	tk := e.submitTicket(admin.Token, "Locked out", "My account is locked out after too many password attempts.", "")
	got := e.awaitTriage(admin.Token, tk.Get("id").MustStr(t))
	log := got.Get("escalation_log").List()
	if got.Get("status").Str() != "escalated" || got.Get("triage_status").Str() != "failed" || len(log) != 1 ||
		log[0].Get("reason").Str() != "Automatic triage failed; a technician needs to review this ticket." {
		t.Fatalf("ticket after a failed triage: %v", got)
	}
	list := e.Do("GET", "/api/tickets", admin.Token, nil).Must(t, 200).Get("data").MustList(t)
	if list[0].Get("triage_status").Str() != "failed" {
		t.Fatalf("list shows triage %v", list[0].Get("triage_status"))
	}
}
