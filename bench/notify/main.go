// Command notify measures alert notification delivery on a real
// `garrison serve`: the latency from the ingest of a critical event to the
// receiver's request, and the delivery rate to a slow receiver.
//
//	go run ./bench/notify [--alerts 1000] [--rate 50] [--slow-alerts 400] [--slow-delay 250ms]
//
// It builds the server from the repository, starts it on a free loopback
// port with a fresh data directory (--notify-allow-loopback, the local
// receiver's certificate in --notify-ca-file), makes a webhook contact
// point and one rule (every critical alert, no grouping), then:
//
//  1. latency: posts --alerts critical events, each on its own asset (so
//     each opens an alert), one request at a time at --rate per second, and
//     times each from the moment its POST /api/events returned 201 to the
//     moment the receiver's handler saw the webhook naming that asset;
//  2. slow receiver: a second contact point whose receiver takes
//     --slow-delay to answer each request; --slow-alerts alerts are posted
//     in one batch, and the rate is alerts delivered per second from that
//     POST until the last delivery arrived.
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"
)

func main() {
	repo := flag.String("repo", ".", "the repository to build")
	alerts := flag.Int("alerts", 1000, "alerts for the latency measure")
	rate := flag.Float64("rate", 50, "critical events posted per second for the latency measure")
	slowAlerts := flag.Int("slow-alerts", 400, "alerts sent to the slow receiver")
	slowDelay := flag.Duration("slow-delay", 250*time.Millisecond, "how long the slow receiver takes to answer")
	flag.Parse()
	if err := run(*repo, *alerts, *rate, *slowAlerts, *slowDelay); err != nil {
		fmt.Fprintln(os.Stderr, "notify:", err)
		os.Exit(2)
	}
}

// receiver notes when each asset's webhook arrived.
type receiver struct {
	mu      sync.Mutex
	arrived map[string]time.Time
	delay   time.Duration
	srv     *httptest.Server
}

func newReceiver(delay time.Duration) *receiver {
	r := &receiver{arrived: map[string]time.Time{}, delay: delay}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		at := time.Now()
		var body struct {
			Data struct{ Alerts []struct{ Asset string } }
		}
		raw, _ := io.ReadAll(req.Body)
		json.Unmarshal(raw, &body)
		time.Sleep(r.delay)
		r.mu.Lock()
		for _, a := range body.Data.Alerts {
			if _, seen := r.arrived[a.Asset]; !seen {
				r.arrived[a.Asset] = at
			}
		}
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	return r
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.arrived)
}

func run(repo string, alerts int, rate float64, slowAlerts int, slowDelay time.Duration) error {
	dir, err := os.MkdirTemp("", "garrison-notify-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "garrison")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Stdout, build.Stderr = repo, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	fast, slow := newReceiver(0), newReceiver(slowDelay)
	defer fast.srv.Close()
	defer slow.srv.Close()
	ca := filepath.Join(dir, "receivers.pem")
	var pems []byte
	for _, r := range []*receiver{fast, slow} {
		pems = append(pems, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.srv.Certificate().Raw})...)
	}
	if err := os.WriteFile(ca, pems, 0o600); err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := l.Addr().String()
	l.Close()
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return err
	}
	args := []string{"serve", "--data", filepath.Join(dir, "data"), "--addr", addr, "--http-addr", "", "--log-level", "warn",
		"--limits", "jwt=1000000/1m,apikey=1000000/1m", "--notify-allow-loopback", "--notify-ca-file", ca}
	srv := exec.Command(bin, args...)
	srv.Stdout, srv.Stderr = logFile, logFile
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()
	c := &client{base: "https://" + addr + "/api", http: &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 4}}}
	if err := c.waitHealthy(); err != nil {
		return err
	}
	var reg struct{ Token string }
	if err := c.call("POST", "/auth/register", map[string]any{"email": "bench@example.com", "password": "correct horse battery staple",
		"name": "Bench", "org": "Bench MSP"}, &reg); err != nil {
		return err
	}
	c.token = reg.Token
	var key struct{ Data struct{ Key string } }
	if err := c.call("POST", "/api-keys", map[string]any{"name": "sensor", "scope": "write"}, &key); err != nil {
		return err
	}
	var rules struct{ Data []struct{ ID string } }
	if err := c.call("GET", "/notification-rules", nil, &rules); err != nil {
		return err
	}
	for _, r := range rules.Data { // the default rule mails admins: not what is measured
		if err := c.call("DELETE", "/notification-rules/"+r.ID, nil, nil); err != nil {
			return err
		}
	}
	route := func(name, url string) error {
		var ch struct{ Data struct{ ID string } }
		if err := c.call("POST", "/notification-channels", map[string]any{"name": name, "kind": "webhook", "url": url}, &ch); err != nil {
			return err
		}
		return c.call("POST", "/notification-rules", map[string]any{"name": name, "min_severity": "critical", "channels": []string{ch.Data.ID},
			"assets": []string{}, "sources": []string{name}}, nil)
	}
	if err := route("fast", fast.srv.URL+"/in"); err != nil {
		return err
	}
	if err := route("slow", slow.srv.URL+"/in"); err != nil {
		return err
	}
	c.token = key.Data.Key
	event := func(source, asset string) map[string]any {
		return map[string]any{"type": "threat_detected", "severity": "critical", "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
			"source": source, "asset": asset, "message": "Ransomware beacon"}
	}

	// 1. Latency, one event at a time.
	posted := make(map[string]time.Time, alerts)
	every := time.Duration(float64(time.Second) / rate)
	next := time.Now()
	for i := range alerts {
		asset := "ws-" + strconv.Itoa(i)
		time.Sleep(time.Until(next))
		next = next.Add(every)
		if err := c.call("POST", "/events", map[string]any{"events": []any{event("fast", asset)}}, nil); err != nil {
			return err
		}
		posted[asset] = time.Now()
	}
	if err := waitFor(func() bool { return fast.count() >= alerts }, 2*time.Minute); err != nil {
		return fmt.Errorf("latency: %d of %d delivered: %w", fast.count(), alerts, err)
	}
	var lat []time.Duration
	fast.mu.Lock()
	for asset, at := range fast.arrived {
		lat = append(lat, at.Sub(posted[asset]))
	}
	fast.mu.Unlock()
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	fmt.Printf("latency, ingest 201 → receiver's request, %d alerts at %.0f/s: p50 %s  p90 %s  p99 %s  max %s\n",
		len(lat), rate, pct(0.50).Round(100*time.Microsecond), pct(0.90).Round(100*time.Microsecond),
		pct(0.99).Round(100*time.Microsecond), lat[len(lat)-1].Round(100*time.Microsecond))

	// 2. A slow receiver: one batch of alerts.
	batch := make([]any, slowAlerts)
	for i := range batch {
		batch[i] = event("slow", "srv-"+strconv.Itoa(i))
	}
	start := time.Now()
	if err := c.call("POST", "/events", map[string]any{"events": batch}, nil); err != nil {
		return err
	}
	if err := waitFor(func() bool { return slow.count() >= slowAlerts }, 10*time.Minute); err != nil {
		return fmt.Errorf("slow receiver: %d of %d delivered: %w", slow.count(), slowAlerts, err)
	}
	took := time.Since(start)
	fmt.Printf("slow receiver (%s an answer): %d alerts delivered in %s = %.1f deliveries/s (at most 4 in flight to one contact point: the bound is %.1f/s)\n",
		slowDelay, slowAlerts, took.Round(time.Millisecond), float64(slowAlerts)/took.Seconds(), 4/slowDelay.Seconds())
	return nil
}

func waitFor(done func() bool, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for !done() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not done after %s", limit)
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

type client struct {
	base, token string
	http        *http.Client
}

func (c *client) waitHealthy() error {
	return waitFor(func() bool {
		res, err := c.http.Get(c.base + "/dashboard/health")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}, 30*time.Second)
}

func (c *client) call(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequestWithContext(context.Background(), method, c.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %s %s", method, path, res.Status, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}
