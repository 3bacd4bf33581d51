package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

const wrkOutput = `Running 5s test @ https://127.0.0.1:40000/api/dashboard/health
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.81ms    2.40ms  40.04ms   87.66%
    Req/Sec    12.26k     1.07k   14.85k    70.00%
  Latency Distribution
     50%    2.26ms
     75%    3.31ms
     90%    5.32ms
     99%    1.43s
  121970 requests in 5.00s, 25.82MB read
  Socket errors: connect 0, read 3, write 0, timeout 2
  Non-2xx or 3xx responses: 17
Requests/sec:  24381.02
Transfer/sec:      5.16MB
`

func TestParseWrk(t *testing.T) {
	r, err := parseWrk(wrkOutput)
	if err != nil {
		t.Fatal(err)
	}
	want := wrkRun{Requests: 121970, ReqPerSec: 24381.02, P50ms: 2.26, P99ms: 1430, Non2xx: 17, SocketErrors: 5, Timeouts: 2}
	if r != want {
		t.Fatalf("got %+v\nwant %+v", r, want)
	}
	if _, err := parseWrk(strings.Replace(wrkOutput, "99%", "98%", 1)); err == nil {
		t.Fatal("a report without p99 parsed")
	}
}

func TestJWT(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	now := time.Unix(1_800_000_000, 0)
	tok, err := mintJWT(secret, claims{Sub: "u", Org: "org_1", Exp: now.Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := verifyJWT(secret, tok, now); err != nil || c.Org != "org_1" {
		t.Fatalf("verify: %+v %v", c, err)
	}
	for name, bad := range map[string]string{
		"expired":  tok,
		"tampered": tok[:len(tok)-2] + "AA",
		"padded":   tok + "=",
		"no dots":  strings.ReplaceAll(tok, ".", ""),
		"other key": func() string {
			s, _ := mintJWT([]byte("x"), claims{Org: "o", Exp: now.Add(time.Hour).Unix()})
			return s
		}(),
	} {
		at := now
		if name == "expired" {
			at = now.Add(2 * time.Hour)
		}
		if _, err := verifyJWT(secret, bad, at); err == nil {
			t.Errorf("%s token verified", name)
		}
	}
}

func TestGenerator(t *testing.T) {
	now := time.Now()
	body := newGenerator(1, now, 30*batchSize).appendBatch(nil, batchSize)
	var b struct {
		Events []struct {
			Type, Severity, Timestamp, Asset, Indicator, Message string
			Details                                              json.RawMessage
		}
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	if len(b.Events) != batchSize {
		t.Fatalf("%d events", len(b.Events))
	}
	high := 0
	for _, e := range b.Events {
		ts, err := time.Parse(time.RFC3339, e.Timestamp)
		if err != nil || ts.After(now) || ts.Before(now.Add(-spread-time.Second)) || !strings.HasSuffix(e.Timestamp, "Z") {
			t.Fatalf("timestamp %q", e.Timestamp)
		}
		if e.Severity == "high" || e.Severity == "critical" {
			high++
		}
		if e.Type == "" || e.Asset == "" || e.Indicator == "" || e.Message == "" {
			t.Fatalf("empty field in %+v", e)
		}
	}
	if high < 60 || high > 140 {
		t.Fatalf("%d of 1000 high or critical, want about 100", high)
	}
}

func TestEvaluate(t *testing.T) {
	run := func(rps, p99 float64) wrkRun {
		return wrkRun{Requests: 1, ReqPerSec: rps, P50ms: 1, P99ms: p99, IdleBefore: 1}
	}
	load := func(name string, runs ...wrkRun) *loadResult {
		l := &loadResult{target: target{Name: name}, Runs: runs}
		l.summarize()
		return l
	}
	r := &results{Load: []*loadResult{
		load("health", run(950, 1), run(950, 1)),
		load("stats-jwt", run(400, 1), run(200, 3)), // mean 300 = 0.30 × hello; p99 2 = 2 × hello
		load("hello", run(1000, 1), run(1000, 1)),
		load("events", run(100, 1), wrkRun{ReqPerSec: 0}), // a run without answers
		load("limit", run(50, 1), run(50, 1)),
	}}
	r.ColdStart.SeededMS = []float64{100, 200, 120}
	r.evaluate()
	got := map[string]string{}
	for _, c := range r.Checks {
		got[c.Target+" "+c.What] = c.Verdict
	}
	for k, want := range map[string]string{
		"health req/s ÷ hello":                                "PASS",
		"stats-jwt req/s ÷ hello":                             "PASS",
		"stats-jwt p99 ÷ hello p99 ÷ hello":                   "",
		"stats-jwt p99 ÷ hello p99":                           "FAIL", // not below 2×
		"stats-key req/s ÷ hello":                             "SKIP",
		"events req/s ÷ limit":                                "FAIL", // 1.0× but a run got no answer
		"cold-start cold start to healthy, 0 events (median)": "PASS",
	} {
		if got[k] != want {
			t.Errorf("%s: %q, want %q", k, got[k], want)
		}
	}
	if r.Load[3].MeanP99ms != 1 {
		t.Errorf("a run without answers counted in the mean p99: %v", r.Load[3].MeanP99ms)
	}
	var b strings.Builder
	r.printTables(&b)
	if !strings.Contains(b.String(), "stats-jwt") || r.Pass {
		t.Fatalf("table or verdict wrong:\n%s", b.String())
	}
	// stats-jwt's rounds (400 and 200) are 50 % apart; the others agree.
	if !strings.Contains(b.String(), "more than 20 % apart: stats-jwt (200 to 400 req/s). The machine") ||
		strings.Contains(b.String(), "health (") {
		t.Fatalf("unsteady rounds not named, or steady ones named:\n%s", b.String())
	}
}

// Every target's two runs are centred on the same moment, and each
// baseline runs right before or after the first target judged against it.
func TestRoundOrder(t *testing.T) {
	var loads []*loadResult
	for _, n := range targetNames {
		loads = append(loads, &loadResult{target: target{Name: n}})
	}
	at := map[string][2]int{}
	for round := 1; round <= 2; round++ {
		for i, l := range roundOrder(loads, round) {
			p := at[l.Name]
			p[round-1] = i
			at[l.Name] = p
		}
	}
	if len(at) != len(targetNames) {
		t.Fatalf("%d targets ran, want %d", len(at), len(targetNames))
	}
	for name, p := range at {
		if p[0]+p[1] != len(targetNames)-1 {
			t.Errorf("%s runs at %d and %d: not centred", name, p[0], p[1])
		}
	}
	for baseline, first := range map[string]string{"hello": "headers", "headers": "health", "limit": "events"} {
		if d := at[first][0] - at[baseline][0]; d != 1 {
			t.Errorf("%s runs %d places after its baseline %s, want 1", first, d, baseline)
		}
	}
	// clients is judged against limit and the events page: next to both.
	if at["clients"][0]-at["events"][0] != 1 {
		t.Errorf("clients runs at %d, events at %d: want clients right after", at["clients"][0], at["events"][0])
	}
}

// The clients' events are split evenly, every client gets a feed of its
// own with recent events, and no batch passes batchSize.
func TestProduceClients(t *testing.T) {
	if got := clientShares(10, 4); got[0] != 3 || got[1] != 3 || got[2] != 2 || got[3] != 2 {
		t.Fatalf("shares %v", got)
	}
	ids := []string{"a", "b", "c"}
	now := time.Now()
	per := map[string]int{}
	latest := map[string]time.Time{}
	var order []string
	reported := 0
	for b := range produceClients(t.Context(), ids, 5*batchSize+1, now, func(done int) { reported = done }) {
		var body struct{ Events []struct{ Timestamp string } }
		if err := json.Unmarshal(b.body, &body); err != nil {
			t.Fatal(err)
		}
		if len(body.Events) > batchSize {
			t.Fatalf("a batch of %d", len(body.Events))
		}
		per[b.org] += len(body.Events)
		order = append(order, b.org)
		for _, e := range body.Events {
			ts, _ := time.Parse(time.RFC3339, e.Timestamp)
			if ts.After(now) {
				t.Fatalf("an event in the future: %s", e.Timestamp)
			}
			if ts.After(latest[b.org]) {
				latest[b.org] = ts
			}
		}
	}
	if per["a"] != 1667 || per["b"] != 1667 || per["c"] != 1667 || reported != 5*batchSize+1 {
		t.Fatalf("events per client %v, reported %d", per, reported)
	}
	if strings.Join(order, "") != "abcabc" {
		t.Fatalf("batches sent in the order %v, want round by round", order)
	}
	for id, ts := range latest {
		if now.Sub(ts) > 24*time.Hour {
			t.Errorf("client %s's last event is %s old", id, now.Sub(ts))
		}
	}
}

func TestClientsGoals(t *testing.T) {
	run := func(rps, p99 float64) wrkRun {
		return wrkRun{Requests: 1, ReqPerSec: rps, P50ms: 1, P99ms: p99, IdleBefore: 1}
	}
	load := func(name string, rps, p99 float64) *loadResult {
		l := &loadResult{target: target{Name: name}, Runs: []wrkRun{run(rps, p99), run(rps, p99)}}
		l.summarize()
		return l
	}
	for _, c := range []struct {
		clientsRPS, clientsP99 float64
		p99, rps               string
	}{
		{500, 39, "PASS", "PASS"},  // 0.5 × limit, p99 just under 2 × events
		{499, 40, "FAIL", "FAIL"},  // under half of limit; p99 2 × events, not under
		{2000, 10, "PASS", "PASS"}, // faster than both
	} {
		r := &results{Load: []*loadResult{load("limit", 1000, 10), load("events", 900, 20), load("clients", c.clientsRPS, c.clientsP99)}}
		r.evaluate()
		got := map[string]string{}
		for _, ch := range r.Checks {
			if ch.Target == "clients" {
				got[ch.What] = ch.Verdict
			}
		}
		if got["p99 ÷ events p99"] != c.p99 || got["req/s ÷ limit"] != c.rps {
			t.Errorf("clients at %.0f req/s, p99 %.0f ms: %v, want p99 %s and req/s %s", c.clientsRPS, c.clientsP99, got, c.p99, c.rps)
		}
	}
}

// The scale run measures at 1M stored and at N, or, when N is under 1M
// and a phase, at half of it in phases of a tenth, in whole batches of
// 10,000.
func TestScalePoints(t *testing.T) {
	for _, c := range []struct {
		n, first, phase int
		half            bool
	}{
		{10_000_000, 1_000_000, 200_000, false}, {2_000_000, 1_000_000, 200_000, false},
		{1_200_000, 1_000_000, 200_000, false}, {1_190_000, 590_000, 110_000, true},
		{120_000, 60_000, 10_000, true}, {40_000, 20_000, 10_000, true},
	} {
		first, phase, half := scalePoints(c.n)
		if first != c.first || phase != c.phase || half != c.half {
			t.Errorf("scale %d: first at %d, phases of %d, half %v; want %d, %d, %v", c.n, first, phase, half, c.first, c.phase, c.half)
		}
	}
}

// The scale run's checks: the ingest ratio against 0.80 and the bytes a
// stored event against 300, SKIP when not measured; the usual run has none.
func TestScaleChecks(t *testing.T) {
	for _, c := range []struct {
		firstRate, lastRate, bytes float64
		stored                     int
		ratio, size                string
	}{
		{15000, 12000, 300, 10_200_000, "PASS", "PASS"}, // exactly at both goals
		{15000, 11900, 301, 10_200_000, "FAIL", "FAIL"},
		{0, 12000, 250, 10_200_000, "SKIP", "PASS"}, // the first phase did not run
		{15000, 16000, 0, 0, "PASS", "SKIP"},        // nothing stored recorded
	} {
		r := &results{}
		r.Scale.First, r.Scale.Last = scaleName(1_000_000), scaleName(10_000_000)
		r.Ingest = []ingestResult{{Phase: r.Scale.First, EventsPerSec: c.firstRate}, {Phase: r.Scale.Last, EventsPerSec: c.lastRate}}
		r.Storage.Events, r.Storage.BytesPerEvent = c.stored, c.bytes
		r.scaleChecks()
		if len(r.Checks) != 2 || r.Checks[0].Verdict != c.ratio || r.Checks[1].Verdict != c.size {
			t.Errorf("%+v: checks %+v, want ratio %s and bytes %s", c, r.Checks, c.ratio, c.size)
		}
	}
	r := &results{}
	r.scaleChecks()
	if len(r.Checks) != 0 {
		t.Errorf("a run without --scale has scale checks: %+v", r.Checks)
	}
}

// The scale run loads the clients and PocketBase only when --only names
// them; the usual run's empty --only is every target.
func TestWantTargets(t *testing.T) {
	for _, c := range []struct {
		o       options
		clients bool
		pb      bool
		events  bool
	}{
		{options{}, true, true, true},
		{options{scale: 10_000_000}, false, false, true},
		{options{scale: 10_000_000, only: "events,limit"}, false, false, true},
		{options{scale: 10_000_000, only: "events,clients,pb-total"}, true, true, true},
		{options{only: "clients"}, true, false, false},
	} {
		w := wantTargets(c.o)
		if w["clients"] != c.clients || w["pb-total"] != c.pb || w["events"] != c.events {
			t.Errorf("%+v: %v", c.o, w)
		}
	}
}
