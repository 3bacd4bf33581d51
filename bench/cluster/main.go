// Command cluster measures Garrison's ingest and reads on one node on
// SQLite, one node on PostgreSQL and three nodes on PostgreSQL behind a
// round-robin client, in one run on this machine:
//
//	bash .ci/with-postgres go run ./bench/cluster [--events 200000] [--duration 10s] [--connections 16]
//	go run ./bench/cluster --database postgres://…/postgres   # an existing cluster's server; databases are made in it
//
// Each setup starts from an empty database: a fresh data directory, or a
// new PostgreSQL database migrated with garrison migrate. It makes an
// organization with garrison org create, a read and a write API key, then
// seeds --events events through POST /api/events in batches of 1,000 from
// 2 senders spread over the nodes (ingest: events a second), and loads the
// read targets of bench/suite (the events page, the stats panel, a text
// search) with --connections keep-alive connections spread over the nodes
// for --duration each (reads: requests a second). On a 2-core machine more
// nodes cannot add cores: the three-node figure measures what the nodes'
// coordination costs, not what separate machines would carry. It prints
// the figures, the ratios the issue sets goals for (one PostgreSQL node at
// least 0.5 of SQLite's ingest and 0.7 of its reads; three nodes at least
// 0.9 of one PostgreSQL node's), and writes them to
// bench/results/cluster-<UTC time>.json.
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // makes the setups' databases
)

type options struct {
	database    string
	events      int
	duration    time.Duration
	connections int
	repo        string
	only        string // setups to run, comma-separated
	extra       string // words appended to garrison serve
}

// readTargets are bench/suite's read targets this run loads.
var readTargets = []struct{ name, path string }{
	{"events", "/api/events?limit=50"},
	{"stats-key", "/api/dashboard/stats"},
	{"events-q", "/api/events?limit=50&q=1234"},
}

type setup struct {
	Name  string `json:"name"`
	nodes int
	pg    bool
}

type result struct {
	Setup         string             `json:"setup"`
	Nodes         int                `json:"nodes"`
	IngestPerSec  float64            `json:"ingest_events_per_sec"`
	ReadsPerSec   map[string]float64 `json:"reads_per_sec"`
	ReadsTotalSec float64            `json:"reads_per_sec_all_targets"`
	SettleSec     float64            `json:"settle_seconds"` // the background's catching up after ingest
	Errors        int64              `json:"errors"`
}

func main() {
	var o options
	flag.StringVar(&o.database, "database", os.Getenv("GARRISON_TEST_POSTGRES"), "URL of a PostgreSQL database to make the setups' databases from "+
		"(default $GARRISON_TEST_POSTGRES, which .ci/with-postgres sets)")
	flag.IntVar(&o.events, "events", 200_000, "events each setup seeds (its ingest figure)")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long each read target is loaded, per setup")
	flag.IntVar(&o.connections, "connections", 16, "connections loading the reads, spread over the nodes")
	flag.StringVar(&o.repo, "repo", ".", "repository root to build the server from")
	flag.StringVar(&o.only, "only", "", "comma list of setups to run (default all: sqlite-1,postgres-1,postgres-3); the ratios need all three")
	flag.StringVar(&o.extra, "extra-flags", "", `words appended to "garrison serve" (e.g. --cpu-profile /tmp/node.prof)`)
	flag.Parse()
	if !strings.HasPrefix(o.database, "postgres") {
		fmt.Fprintln(os.Stderr, "cluster: no PostgreSQL: run it through bash .ci/with-postgres, or give --database")
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(2)
	}
}

func run(o options) error {
	work, err := os.MkdirTemp("", "garrison-cluster-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "garrison")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = o.repo
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v\n%s", err, out)
	}
	setups := []setup{{"sqlite-1", 1, false}, {"postgres-1", 1, true}, {"postgres-3", 3, true}}
	var results []result
	for i, s := range setups {
		if o.only != "" && !slices.Contains(strings.Split(o.only, ","), s.Name) {
			continue
		}
		r, err := measure(o, bin, filepath.Join(work, fmt.Sprint(i)), s)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		fmt.Printf("%-11s ingest %9.0f events/s   reads %8.0f req/s  %v  (errors %d; background settled in %.0f s)\n", s.Name, r.IngestPerSec,
			r.ReadsTotalSec, r.ReadsPerSec, r.Errors, r.SettleSec)
		results = append(results, r)
	}
	if len(results) < len(setups) {
		return nil
	}
	sq, pg1, pg3 := results[0], results[1], results[2]
	ratios := map[string]float64{
		"postgres-1 ingest / sqlite-1":   pg1.IngestPerSec / sq.IngestPerSec,
		"postgres-1 reads / sqlite-1":    pg1.ReadsTotalSec / sq.ReadsTotalSec,
		"postgres-3 ingest / postgres-1": pg3.IngestPerSec / pg1.IngestPerSec,
		"postgres-3 reads / postgres-1":  pg3.ReadsTotalSec / pg1.ReadsTotalSec,
	}
	goals := map[string]float64{
		"postgres-1 ingest / sqlite-1": 0.5, "postgres-1 reads / sqlite-1": 0.7,
		"postgres-3 ingest / postgres-1": 0.9, "postgres-3 reads / postgres-1": 0.9,
	}
	fmt.Println()
	for _, name := range []string{"postgres-1 ingest / sqlite-1", "postgres-1 reads / sqlite-1", "postgres-3 ingest / postgres-1", "postgres-3 reads / postgres-1"} {
		verdict := "met"
		if ratios[name] < goals[name] {
			verdict = "MISSED"
		}
		fmt.Printf("%-32s %.2f  (goal ≥ %.1f: %s)\n", name, ratios[name], goals[name], verdict)
	}
	out := filepath.Join(o.repo, "bench", "results", "cluster-"+time.Now().UTC().Format("20060102T150405Z")+".json")
	os.MkdirAll(filepath.Dir(out), 0o755)
	b, _ := json.MarshalIndent(map[string]any{"options": map[string]any{"events": o.events, "duration": o.duration.String(),
		"connections": o.connections}, "results": results, "ratios": ratios, "goals": goals}, "", "  ")
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Println("\nwritten to", out)
	return nil
}

// measure runs one setup from an empty database.
func measure(o options, bin, dir string, s setup) (result, error) {
	res := result{Setup: s.Name, Nodes: s.nodes, ReadsPerSec: map[string]float64{}}
	database := ""
	if s.pg {
		var err error
		if database, err = newDatabase(o.database); err != nil {
			return res, err
		}
		defer dropDatabase(o.database, database)
		if out, err := exec.Command(bin, "migrate", "--database", database).CombinedOutput(); err != nil {
			return res, fmt.Errorf("migrate: %v\n%s", err, out)
		}
	}
	secret := strings.Repeat("5e", 32) + "\n"
	var nodes []string
	var procs []*exec.Cmd
	defer func() {
		for _, p := range procs {
			p.Process.Signal(os.Interrupt)
			p.Wait()
		}
	}()
	for n := range s.nodes {
		data := filepath.Join(dir, fmt.Sprint("node", n))
		os.MkdirAll(data, 0o700)
		os.WriteFile(filepath.Join(data, "jwt.key"), []byte(secret), 0o600)
		addr, err := freeAddr()
		if err != nil {
			return res, err
		}
		args := []string{"serve", "--data", data, "--addr", addr, "--http-addr", "", "--node", fmt.Sprint("node-", n), "--log-level", "warn",
			"--limits", "auth=100000/1m,login=100000/1m,register=100000/1m,jwt=1000000/1m,apikey=1000000/1m,apikey-key=1000000/1m"}
		if database != "" {
			args = append(args, "--database", database)
		}
		args = append(args, strings.Fields(o.extra)...)
		cmd := exec.Command(bin, args...)
		logFile, _ := os.Create(filepath.Join(dir, fmt.Sprint("node", n, ".log")))
		cmd.Stdout, cmd.Stderr = logFile, logFile
		if err := cmd.Start(); err != nil {
			return res, err
		}
		procs = append(procs, cmd)
		nodes = append(nodes, "https://"+addr)
	}
	cl := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // loopback, self-signed
		MaxIdleConnsPerHost: 64}}
	for _, n := range nodes {
		if err := waitHealthy(cl, n); err != nil {
			return res, err
		}
	}
	// The organization and its keys, through the first node.
	create := []string{"org", "create", "--name", "Bench MSP", "--admin-email", "bench@msp.test", "--password-stdin"}
	if database != "" {
		create = append(create, "--database", database)
	} else {
		create = append(create, "--data", filepath.Join(dir, "node0"))
	}
	cmd := exec.Command(bin, create...)
	cmd.Stdin = strings.NewReader("a long benchmark passphrase\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		return res, fmt.Errorf("org create: %v\n%s", err, out)
	}
	var login struct{ Token string }
	if err := call(cl, "POST", nodes[0]+"/api/auth/login", "", map[string]string{"email": "bench@msp.test", "password": "a long benchmark passphrase"}, &login); err != nil {
		return res, err
	}
	keys := map[string]string{}
	for _, scope := range []string{"read", "write"} {
		var k struct{ Data struct{ Key string } }
		if err := call(cl, "POST", nodes[0]+"/api/api-keys", login.Token, map[string]string{"name": scope, "scope": scope}, &k); err != nil {
			return res, err
		}
		keys[scope] = k.Data.Key
	}

	// Ingest: 2 senders, batches of 1,000, spread over the nodes.
	var errs atomic.Int64
	batches := make(chan []byte, 4)
	go func() {
		defer close(batches)
		r := rand.New(rand.NewPCG(1, 2))
		for sent := 0; sent < o.events; sent += 1000 {
			batches <- eventBatch(r, min(1000, o.events-sent))
		}
	}()
	start := time.Now()
	var wg sync.WaitGroup
	var failed atomic.Bool
	for sender := range 2 {
		wg.Go(func() {
			i := sender
			for b := range batches {
				for try := 0; ; try++ {
					status, err := post(cl, nodes[i%len(nodes)]+"/api/events", keys["write"], b)
					i++
					if err == nil && status == http.StatusCreated {
						break
					}
					if errs.Add(1) == 1 {
						fmt.Fprintf(os.Stderr, "ingest: %d %v\n", status, err)
					}
					if try > 20 {
						failed.Store(true)
						for range batches { // let the producer finish
						}
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		return res, fmt.Errorf("ingest failed 20 times in a row: %d errors", errs.Load())
	}
	res.IngestPerSec = float64(o.events) / time.Since(start).Seconds()
	// What ingest left to the background (the fold, routing the alerts'
	// notifications, matching) is done before the reads are loaded: they
	// would share the cores with it.
	var pids []int
	for _, p := range procs {
		pids = append(pids, p.Process.Pid)
	}
	res.SettleSec = waitQuiet(pids, 3*time.Minute).Seconds()
	if database != "" {
		// A seed this fast outruns autovacuum: the planner would read
		// the tables by statistics of when they were nearly empty. On a
		// live cluster autovacuum keeps them; here they are taken now.
		if err := analyze(database); err != nil {
			return res, err
		}
	}

	// Reads, each target in turn, the connections spread over the nodes.
	for _, t := range readTargets {
		var done atomic.Int64
		ctx, cancel := context.WithTimeout(context.Background(), o.duration)
		var wg sync.WaitGroup
		for c := range o.connections {
			wg.Go(func() {
				base := nodes[c%len(nodes)]
				for ctx.Err() == nil {
					req, _ := http.NewRequestWithContext(ctx, "GET", base+t.path, nil)
					req.Header.Set("Authorization", "Bearer "+keys["read"])
					r, err := cl.Do(req)
					if err != nil {
						if ctx.Err() == nil {
							errs.Add(1)
						}
						continue
					}
					io.Copy(io.Discard, r.Body)
					r.Body.Close()
					if r.StatusCode == http.StatusOK {
						done.Add(1)
					} else if errs.Add(1) == 1 {
						fmt.Fprintf(os.Stderr, "%s: %s answered %d\n", t.name, base, r.StatusCode)
					}
				}
			})
		}
		wg.Wait()
		cancel()
		res.ReadsPerSec[t.name] = float64(done.Load()) / o.duration.Seconds()
		res.ReadsTotalSec += res.ReadsPerSec[t.name] / float64(len(readTargets))
	}
	res.Errors = errs.Load()
	return res, nil
}

// waitQuiet waits until the processes pids together use under a twentieth
// of a core for two half-seconds in a row (their background work done), or
// until at most, and says how long it waited.
func waitQuiet(pids []int, at time.Duration) time.Duration {
	start := time.Now()
	last, quiet := cpuTicks(pids), 0
	for time.Since(start) < at && quiet < 2 {
		time.Sleep(500 * time.Millisecond)
		now := cpuTicks(pids)
		if float64(now-last)/100 < 0.025 { // clock ticks of 10 ms: under 25 ms of CPU in 500 ms
			quiet++
		} else {
			quiet = 0
		}
		last = now
	}
	return time.Since(start)
}

// cpuTicks is the user and system clock ticks the processes used so far
// (Linux's /proc/PID/stat).
func cpuTicks(pids []int) int64 {
	var sum int64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(fields) > 12 {
			var u, k int64
			fmt.Sscan(fields[11], &u)
			fmt.Sscan(fields[12], &k)
			sum += u + k
		}
	}
	return sum
}

// eventBatch is a POST /api/events body of n events: bench/suite's mix,
// about 10 % high or critical, over 400 hosts, as a live feed sends
// them: each from the last hour.
func eventBatch(r *rand.Rand, n int) []byte {
	types := []string{"threat_detected", "blocked_connection", "dns_anomaly", "policy_violation", "activity"}
	events := make([]map[string]any, n)
	now := time.Now()
	for i := range events {
		sev := "low"
		switch x := r.IntN(100); {
		case x < 2:
			sev = "critical"
		case x < 10:
			sev = "high"
		case x < 40:
			sev = "medium"
		}
		events[i] = map[string]any{"type": types[r.IntN(len(types))], "severity": sev, "source": "sensor-" + fmt.Sprint(r.IntN(8)),
			"asset":     fmt.Sprintf("host-%03d", r.IntN(400)),
			"timestamp": now.Add(-time.Duration(r.Int64N(int64(time.Hour)))).UTC().Format(time.RFC3339),
			"message":   fmt.Sprintf("probe %d from 10.20.%d.%d", r.IntN(4000), r.IntN(256), r.IntN(256))}
	}
	b, _ := json.Marshal(map[string]any{"events": events})
	return b
}

func post(cl *http.Client, u, key string, body []byte) (int, error) {
	req, _ := http.NewRequest("POST", u, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	r, err := cl.Do(req)
	if err != nil {
		return 0, err
	}
	defer r.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 512))
	if r.StatusCode != http.StatusCreated {
		return r.StatusCode, fmt.Errorf("%s", raw)
	}
	return r.StatusCode, nil
}

func call(cl *http.Client, method, u, token string, body, out any) error {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, u, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	r, err := cl.Do(req)
	if err != nil {
		return err
	}
	defer r.Body.Close()
	raw, _ := io.ReadAll(r.Body)
	if r.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, u, r.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

func waitHealthy(cl *http.Client, base string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := cl.Get(base + "/api/dashboard/health"); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer its health check", base)
}

// newDatabase makes a new database beside the one base names.
func newDatabase(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		return "", err
	}
	defer db.Close()
	name := fmt.Sprintf("garrison_bench_%d", time.Now().UnixNano())
	if _, err := db.Exec(`CREATE DATABASE ` + name); err != nil {
		return "", fmt.Errorf("create the bench database: %w", err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// analyze takes the planner's statistics of the setup's database.
func analyze(database string) error {
	db, err := sql.Open("pgx", database)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(`ANALYZE`); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

// dropDatabase drops a setup's database once its nodes stopped.
func dropDatabase(base, database string) {
	u, err := url.Parse(database)
	if err != nil {
		return
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		return
	}
	defer db.Close()
	db.Exec(`DROP DATABASE IF EXISTS ` + strings.TrimPrefix(u.Path, "/") + ` WITH (FORCE)`)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
