package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"time"
)

// wrkRun is what one wrk run reported.
type wrkRun struct {
	Requests     int64   `json:"requests"`
	ReqPerSec    float64 `json:"req_per_sec"`
	P50ms        float64 `json:"p50_ms"`
	P99ms        float64 `json:"p99_ms"`
	Non2xx       int64   `json:"non_2xx"` // wrk counts statuses ≥ 400
	SocketErrors int64   `json:"socket_errors"`
	Timeouts     int64   `json:"timeouts"`
	IdleBefore   float64 `json:"idle_before"` // machine idle fraction in the second before
	// Cores busy on average during the run: the server, and user time of
	// programs other than the server and wrk (another build or test on this
	// machine disturbs the figure).
	ServerCores float64 `json:"server_cores"`
	OtherCores  float64 `json:"other_user_cores"`
	wrkUser     time.Duration
}

// ensureWrk finds wrk, installing Debian's package when running as root.
func ensureWrk(ctx context.Context) error {
	if _, err := exec.LookPath("wrk"); err == nil {
		return nil
	}
	if os.Geteuid() != 0 {
		return errors.New("wrk is not installed and this is not root: install it (apt-get install wrk) and run again")
	}
	fmt.Println("installing wrk (apt-get install -y wrk) …")
	install := func() error {
		cmd := exec.CommandContext(ctx, "apt-get", "install", "-y", "wrk")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("apt-get install -y wrk: %w\n%s", err, lastLines(string(out), 5))
		}
		return nil
	}
	if install() != nil { // a fresh machine may have no package lists yet
		if out, err := exec.CommandContext(ctx, "apt-get", "update").CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get update: %w\n%s", err, lastLines(string(out), 5))
		}
		if err := install(); err != nil {
			return err
		}
	}
	_, err := exec.LookPath("wrk")
	return err
}

// runWrk loads url for d with conns connections on 2 threads.
func runWrk(ctx context.Context, url, bearer string, conns int, d time.Duration) (wrkRun, string, error) {
	args := []string{"-t2", "-c" + strconv.Itoa(conns), "-d" + strconv.Itoa(int(d.Seconds())) + "s", "--latency", "--timeout", "5s"}
	if bearer != "" {
		args = append(args, "-H", "Authorization: Bearer "+bearer)
	}
	cmd := exec.CommandContext(ctx, "wrk", append(args, url)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return wrkRun{}, string(out), fmt.Errorf("wrk: %w\n%s", err, out)
	}
	r, err := parseWrk(string(out))
	r.wrkUser = cmd.ProcessState.UserTime()
	return r, string(out), err
}

var (
	reqPerSec = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)`)
	requests  = regexp.MustCompile(`(?m)^\s*(\d+) requests in`)
	pct       = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([0-9.]+)(us|ms|s|m)\s*$`)
	non2xx    = regexp.MustCompile(`(?m)Non-2xx or 3xx responses:\s+(\d+)`)
	sockErrs  = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// parseWrk reads wrk 4.1's --latency report.
func parseWrk(out string) (wrkRun, error) {
	var r wrkRun
	m := reqPerSec.FindStringSubmatch(out)
	if m == nil {
		return r, errors.New("no Requests/sec in wrk output")
	}
	r.ReqPerSec, _ = strconv.ParseFloat(m[1], 64)
	if m := requests.FindStringSubmatch(out); m != nil {
		r.Requests, _ = strconv.ParseInt(m[1], 10, 64)
	}
	seen := 0
	for _, m := range pct.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		v *= map[string]float64{"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[m[3]]
		if m[1] == "50" {
			r.P50ms = v
		} else {
			r.P99ms = v
		}
		seen++
	}
	if seen != 2 {
		return r, errors.New("no 50% and 99% latency in wrk output (was --latency given?)")
	}
	if m := non2xx.FindStringSubmatch(out); m != nil {
		r.Non2xx, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := sockErrs.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.ParseInt(s, 10, 64)
			r.SocketErrors += n
		}
		r.Timeouts, _ = strconv.ParseInt(m[4], 10, 64)
	}
	return r, nil
}

// disturbed is whether other programs may have slowed this run: they used
// more than a tenth of a core during it, or the machine never became 90 %
// idle before it.
func (r wrkRun) disturbed() bool { return r.OtherCores > 0.1 || r.IdleBefore < 0.9 }

// wrkSummary is "12345 req/s" for progress lines.
func (r wrkRun) summary() string {
	s := fmt.Sprintf("%.0f req/s, p50 %.2f ms, p99 %.2f ms", r.ReqPerSec, r.P50ms, r.P99ms)
	if r.Non2xx > 0 || r.SocketErrors > 0 {
		s += fmt.Sprintf(", %d non-2xx, %d socket errors", r.Non2xx, r.SocketErrors)
	}
	return s + fmt.Sprintf(" (idle before %.0f%%; server %.2f cores, others %.2f)", 100*r.IdleBefore, r.ServerCores, r.OtherCores)
}
