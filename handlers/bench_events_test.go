package handlers_test

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
	"garrison/store/storetest"

	"garrison/event"
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
	stmt, err := tx.Prepare(`INSERT INTO events (org, ts, type, severity, source, asset, message, indicator, details, received_at)
		VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range events {
		ts, _ := time.Parse(time.RFC3339Nano, e["timestamp"].(string))
		details, _ := json.Marshal(e["details"])
		if _, err := stmt.Exec(ts.UnixMilli(), e["type"], 2, e["source"], e["asset"], e["message"],
			e["indicator"], string(details), now.UnixMilli()); err != nil {
			b.Fatal(err)
		}
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// rawTwin is a database with the API's schema that the baseline inserts
// into with a plain connection (foreign keys off: it checks nothing).
type rawTwin struct {
	db   *sql.DB
	time time.Duration
}

// newRawTwin opens a twin. With the store's set-up, its WAL is copied back
// by a background connection every 250 ms as the store's is; without, SQLite
// checkpoints in the commits that fill the WAL, its default.
func newRawTwin(b *testing.B, storeSetUp bool) *rawTwin {
	path := filepath.Join(b.TempDir(), "raw.db")
	twin, err := store.Open(context.Background(), store.Config{Path: path, Schema: storetest.Schema(b)})
	if err != nil {
		b.Fatal(err)
	}
	twin.Close()
	pragmas := "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)"
	if storeSetUp {
		pragmas += "&_pragma=wal_autocheckpoint(0)"
	}
	db, err := sql.Open("sqlite", "file:"+path+pragmas)
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	b.Cleanup(func() { db.Close() })
	if storeSetUp {
		checkpointer, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			b.Fatal(err)
		}
		stop, stopped := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(stopped)
			for t := time.NewTicker(250 * time.Millisecond); ; {
				select {
				case <-stop:
					t.Stop()
					return
				case <-t.C:
					checkpointer.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
				}
			}
		}()
		b.Cleanup(func() { close(stop); <-stopped; checkpointer.Close() })
	}
	return &rawTwin{db: db}
}

// BenchmarkIngestVsRawInsert posts batches of 1,000 events through the API
// (decode, validation, alerts, rollups) and inserts the same rows raw into
// two twin databases, in the same run, and reports the rates and ratios:
// "ratio" against raw SQLite with its default checkpoints, "ratio-same-setup"
// against raw inserts with the store's background checkpointer. Each
// iteration is a block of ten batches; the API's time for a block runs until
// the fold has added all of it to the rollups, so it is sustained
// throughput, not a backlog. Nothing of the API's is timed while
// the raw inserts run.
func BenchmarkIngestVsRawInsert(b *testing.B) {
	e := newEnv(b)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	plain, sameSetUp := newRawTwin(b, false), newRawTwin(b, true)
	const batch, block = 1000, 10
	var apiTime time.Duration
	rows, n := 0, 0
	for b.Loop() {
		blockEvents := make([][]map[string]any, block)
		bodies := make([][]byte, block)
		for j := range blockEvents {
			// One minute of a busy sensor per batch.
			blockEvents[j] = benchEvents(batch, e.Clock.Now().Add(time.Duration(n-10000)*time.Minute), time.Minute, uint64(n))
			bodies[j], _ = json.Marshal(map[string]any{"events": blockEvents[j]})
			n++
		}
		start := time.Now()
		for _, body := range bodies {
			req, _ := http.NewRequest("POST", e.Server.URL+"/api/events", strings.NewReader(string(body)))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			res, err := e.Server.Client().Do(req)
			if err != nil || res.StatusCode != http.StatusCreated {
				b.Fatalf("ingest: %v %v", err, res.Status)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		// Sustained throughput: the block is done once the fold has caught up.
		if err := e.Store.Fold(context.Background()); err != nil {
			b.Fatal(err)
		}
		apiTime += time.Since(start)
		for _, twin := range []*rawTwin{plain, sameSetUp} {
			start = time.Now()
			for _, events := range blockEvents {
				rawInsert(b, twin.db, "org_bench", events, e.Clock.Now())
			}
			twin.time += time.Since(start)
		}
		rows += batch * block
	}
	rate := func(d time.Duration) float64 { return float64(rows) / d.Seconds() }
	b.ReportMetric(rate(apiTime), "api-rows/s")
	b.ReportMetric(rate(plain.time), "raw-rows/s")
	b.ReportMetric(rate(apiTime)/rate(plain.time), "ratio")
	b.ReportMetric(rate(sameSetUp.time), "raw-same-setup-rows/s")
	b.ReportMetric(rate(apiTime)/rate(sameSetUp.time), "ratio-same-setup")
}

// seedMillion stores 1,000,000 events of thirty days in the organization,
// oldest first as they would have arrived, and folds them as the
// background fold would have by now on a real server.
func seedMillion(b *testing.B, e *env, orgID string) {
	ctx := context.Background()
	const total, batch = 1_000_000, 5000
	for i := 0; i < total/batch; i++ {
		var evs []store.NewEvent
		end := e.Clock.Now().Add(-30 * 24 * time.Hour).Add(time.Duration(i+1) * 30 * 24 * time.Hour / (total / batch))
		for _, m := range benchEvents(batch, end, 30*24*time.Hour/(total/batch), uint64(i)) {
			ts, _ := time.Parse(time.RFC3339Nano, m["timestamp"].(string))
			details, _ := json.Marshal(m["details"])
			sev, _ := event.ParseSeverity(m["severity"].(string))
			evs = append(evs, store.NewEvent{Type: m["type"].(string), Severity: sev,
				Timestamp: ts, Source: m["source"].(string), Asset: m["asset"].(string), Message: m["message"].(string),
				Indicator: m["indicator"].(string), Details: details})
		}
		if _, err := e.Store.Ingest(ctx, orgID, evs, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.Store.Fold(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDashboard1M seeds 1,000,000 events into one organization, then
// reports the p50 latency of the dashboard's hot endpoints over HTTP.
func BenchmarkDashboard1M(b *testing.B) {
	e := newEnv(b)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "read")
	seedStart := time.Now()
	seedMillion(b, e, admin.OrgID)
	b.Logf("seeded 1,000,000 events in %s", time.Since(seedStart).Round(time.Second))
	paths := map[string]string{
		"overview":       "/api/dashboard/overview",
		"stats":          "/api/dashboard/stats",
		"security-score": "/api/dashboard/security-score",
		"events-page":    "/api/events?severity=high,critical&type=threat_detected&limit=50",
	}
	get := func(path string) time.Duration {
		start := time.Now()
		req, _ := http.NewRequest("GET", e.Server.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := e.Server.Client().Do(req)
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
