package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"garrison/store"
)

// benchEvents makes n events as a live sensor sends them: spread over the
// span before end, mostly low severity (info 30%, low 35%, medium 25%,
// high 8%, critical 2%), from 200 assets and 500 detection rules.
func benchEvents(n int, end time.Time, span time.Duration, seed uint64) []map[string]any {
	r := rand.New(rand.NewPCG(seed, 7))
	types := []string{"threat_detected", "blocked_connection", "dns_anomaly", "policy_violation"}
	sevs := []string{}
	for sev, weight := range map[string]int{"info": 30, "low": 35, "medium": 25, "high": 8, "critical": 2} {
		for range weight {
			sevs = append(sevs, sev)
		}
	}
	slices.Sort(sevs) // map order must not change the stream between runs
	out := make([]map[string]any, n)
	for i := range out {
		at := end.Add(-time.Duration(r.Int64N(int64(span))))
		out[i] = map[string]any{
			"type": types[r.IntN(len(types))], "severity": sevs[r.IntN(len(sevs))],
			"timestamp": at.Format(time.RFC3339Nano), "source": "edr-" + fmt.Sprint(r.IntN(4)),
			"asset": fmt.Sprintf("ws-%03d.acme.local", r.IntN(200)), "message": "Suspicious activity detected by sensor rule " + fmt.Sprint(r.IntN(500)),
			"indicator": fmt.Sprintf("ET POLICY rule %d", r.IntN(500)), "details": map[string]any{"rule": r.IntN(500), "proto": "TCP"},
		}
	}
	return out
}

// rawInsert is the baseline: the same rows into the same events table, one
// prepared INSERT per row in one transaction, nothing else.
func rawInsert(b *testing.B, db *sql.DB, orgID string, events []map[string]any, now time.Time) {
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	stmt, err := tx.Prepare(`INSERT INTO events (id, org_id, ts, type, severity, source, asset, message, indicator, details, received_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range events {
		ts, _ := time.Parse(time.RFC3339Nano, e["timestamp"].(string))
		details, _ := json.Marshal(e["details"])
		if _, err := stmt.Exec(store.NewID("evt", now), orgID, ts.UnixMilli(), e["type"], 2, e["source"], e["asset"], e["message"],
			e["indicator"], string(details), now.UnixMilli()); err != nil {
			b.Fatal(err)
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkIngestVsRawInsert posts batches of 1,000 events through the API
// (decode, validation, rollups, alerts) and inserts the same rows raw into a
// twin database, in the same run; it reports both rates and their ratio.
func BenchmarkIngestVsRawInsert(b *testing.B) {
	e := newTestEnv(b)
	admin := e.register("ann@acme.test", "Acme")
	key := e.apiKey(admin, "write")
	// The twin gets the same schema, then a plain connection with the same
	// pragmas (foreign keys off: the baseline checks nothing).
	path := filepath.Join(b.TempDir(), "raw.db")
	twin, err := store.Open(context.Background(), path, schemaSQL)
	if err != nil {
		b.Fatal(err)
	}
	twin.Close()
	rawDBWriter, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer rawDBWriter.Close()
	rawDBWriter.SetMaxOpenConns(1)
	const batch = 1000
	var apiTime, rawTime time.Duration
	rows := 0
	for i := 0; b.Loop(); i++ {
		// One minute of a busy sensor per batch.
		events := benchEvents(batch, e.clock.Now().Add(time.Duration(i-1000)*time.Minute), time.Minute, uint64(i))
		body, _ := json.Marshal(map[string]any{"events": events})
		start := time.Now()
		req, _ := http.NewRequest("POST", e.srv.URL+"/api/events", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := e.srv.Client().Do(req)
		if err != nil || res.StatusCode != http.StatusCreated {
			b.Fatalf("ingest: %v %v", err, res.Status)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		apiTime += time.Since(start)
		start = time.Now()
		rawInsert(b, rawDBWriter, "org_bench", events, e.clock.Now())
		rawTime += time.Since(start)
		rows += batch
	}
	api, raw := float64(rows)/apiTime.Seconds(), float64(rows)/rawTime.Seconds()
	b.ReportMetric(api, "api-rows/s")
	b.ReportMetric(raw, "raw-rows/s")
	b.ReportMetric(api/raw, "ratio")
}

// BenchmarkDashboard1M seeds 1,000,000 events into one organization, then
// reports the p50 latency of the dashboard's hot endpoints over HTTP.
func BenchmarkDashboard1M(b *testing.B) {
	e := newTestEnv(b)
	admin := e.register("ann@acme.test", "Acme")
	key := e.apiKey(admin, "read")
	ctx := context.Background()
	const total, batch = 1_000_000, 5000
	seedStart := time.Now()
	for i := 0; i < total/batch; i++ {
		var evs []store.NewEvent
		// Thirty days of history, oldest first, as it would have arrived.
		end := e.clock.Now().Add(-30 * 24 * time.Hour).Add(time.Duration(i+1) * 30 * 24 * time.Hour / (total / batch))
		for _, m := range benchEvents(batch, end, 30*24*time.Hour/(total/batch), uint64(i)) {
			ts, _ := time.Parse(time.RFC3339Nano, m["timestamp"].(string))
			details, _ := json.Marshal(m["details"])
			evs = append(evs, store.NewEvent{Type: m["type"].(string), Severity: slices.Index([]string{"info", "low", "medium", "high", "critical"}, m["severity"].(string)),
				Timestamp: ts, Source: m["source"].(string), Asset: m["asset"].(string), Message: m["message"].(string),
				Indicator: m["indicator"].(string), Details: details})
		}
		if _, err := e.app.store.Ingest(ctx, admin.orgID, evs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d events in %s", total, time.Since(seedStart).Round(time.Second))
	paths := map[string]string{
		"overview":       "/api/dashboard/overview",
		"stats":          "/api/dashboard/stats",
		"security-score": "/api/dashboard/security-score",
		"events-page":    "/api/events?severity=high,critical&type=threat_detected&limit=50",
	}
	get := func(path string) time.Duration {
		start := time.Now()
		req, _ := http.NewRequest("GET", e.srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := e.srv.Client().Do(req)
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("%s: %v %v", path, err, res.Status)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return time.Since(start)
	}
	samples := map[string][]time.Duration{}
	for b.Loop() {
		for name, path := range paths {
			samples[name] = append(samples[name], get(path))
		}
	}
	for name, d := range samples {
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, name+"-p50-ms")
	}
}
