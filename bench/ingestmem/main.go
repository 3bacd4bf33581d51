// Command ingestmem measures the resident memory of a real `garrison serve`
// while it receives hostile and valid ingest bodies on POST /api/events.
//
//	go run ./bench/ingestmem [--scenario all|hostile|hostile8|valid48] [--retry]
//	                         [--extra-flags "--ingest-inflight 64MiB"] [--json out.json]
//
// It builds the server from --repo, starts it on a free loopback port with a
// fresh data directory, registers an account, then runs the scenarios in
// order against that one process, sampling VmRSS every 5 ms. It prints a
// table and exits 1 if a target is missed (2 if the tool itself failed).
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// result is one table row.
type result struct {
	Scenario string         `json:"scenario"`
	Requests int            `json:"requests"`
	Statuses map[string]int `json:"statuses,omitempty"` // "201", "503", "error" (transport)
	Codes    map[string]int `json:"codes,omitempty"`    // "400 validation_error"
	Retries  int            `json:"retries,omitempty"`
	IdleMiB  float64        `json:"idle_rss_mib"`
	PeakMiB  float64        `json:"peak_rss_mib"`
	DeltaMiB float64        `json:"peak_minus_idle_mib"`
	HWMMiB   float64        `json:"vm_hwm_mib"`
	AfterMiB float64        `json:"after_rss_mib"` // after the settle pause
	Seconds  float64        `json:"seconds"`
	Target   string         `json:"target"`
	Verdict  string         `json:"verdict"`          // PASS, FAIL, or "-" when only reported
	Misses   []string       `json:"misses,omitempty"` // why the verdict is FAIL
	Notes    []string       `json:"notes,omitempty"`  // for information only
}

// scenario is a burst of identical requests and the check of its result.
type scenario struct {
	name, target string
	requests     int
	body         func() []byte
	check        func(*result) // appends to Misses; nil: report only
}

func main() { os.Exit(run()) }

func run() int {
	repo := flag.String("repo", ".", "repository root to build the server from")
	only := flag.String("scenario", "all", "scenario to run: hostile, hostile8, valid48 or all")
	extra := flag.String("extra-flags", "", `words appended to the serve command, e.g. "--ingest-inflight 64MiB"`)
	retry := flag.Bool("retry", false, "send requests answered 503 again after their Retry-After")
	jsonPath := flag.String("json", "", "also write the results as JSON to this file")
	settle := flag.Duration("settle", 2*time.Second, "pause before each idle RSS reading, for the heap to settle")
	flag.Parse()
	if !slices.Contains([]string{"all", "hostile", "hostile8", "valid48"}, *only) || flag.NArg() > 0 {
		flag.Usage()
		return 2
	}
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "ingestmem:", err); return 2 }

	// Ctrl-C cancels the requests; the deferred calls below stop the server
	// and remove the temporary directory.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	tmp, err := os.MkdirTemp("", "ingestmem-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)

	// The server's certificate is self-signed and we only talk to loopback.
	// A custom TLS config keeps the transport on HTTP/1.1: one connection
	// per request, as many independent senders would have.
	cl := &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true},
		MaxIdleConnsPerHost: 64,
	}}
	bin := filepath.Join(tmp, "garrison")
	fmt.Println("building the server …")
	if err := buildServer(ctx, *repo, bin); err != nil {
		return fail(err)
	}
	srv, err := startServer(ctx, cl, bin, tmp, strings.Fields(*extra))
	if err != nil {
		return fail(err)
	}
	defer srv.stop()
	fmt.Println("server:", srv.cmdline)
	token, err := srv.register(ctx, cl)
	if err != nil {
		return fail(err)
	}

	var hostile []byte // built once, shared by both hostile scenarios
	hostileOnce := func() []byte {
		if hostile == nil {
			hostile = hostileBody(5_500_000)
		}
		return hostile
	}
	scenarios := []scenario{
		{name: "hostile", requests: 1, body: hostileOnce, target: "peak-idle < 64 MiB, 4xx", check: func(r *result) {
			for s, n := range r.Statuses {
				if s < "400" || s >= "500" { // "error" sorts after "500"
					r.Misses = append(r.Misses, fmt.Sprintf("%d answered %s, not 4xx", n, s))
				}
			}
			if r.DeltaMiB >= 64 {
				r.Misses = append(r.Misses, fmt.Sprintf("grew %.0f MiB over idle (limit 64)", r.DeltaMiB))
			}
		}},
		{name: "hostile8", requests: 8, body: hostileOnce, target: "report only"},
		{name: "valid48", requests: 48, target: "peak < 400 MiB, 201/503",
			body: func() []byte { return validBody(10_000, ingestCap-1024, time.Now()) },
			check: func(r *result) {
				for s := range r.Statuses { // the only answers a valid batch may get
					if s != "201" && s != "503" && s != "error" { // errors are already a miss
						r.Misses = append(r.Misses, "unexpected status "+s)
					}
				}
				if r.PeakMiB >= 400 {
					r.Misses = append(r.Misses, fmt.Sprintf("peak %.0f MiB (limit 400)", r.PeakMiB))
				}
			}},
	}

	time.Sleep(*settle)
	results := []result{{Scenario: "idle", IdleMiB: srv.rssMiB(), Target: "report only", Verdict: "-"}}
	results[0].AfterMiB = results[0].IdleMiB
	for _, sc := range scenarios {
		if *only != "all" && *only != sc.name {
			continue
		}
		body := sc.body()
		fmt.Printf("%s: %d × %.1f MiB …\n", sc.name, sc.requests, float64(len(body))/(1<<20))
		r := measure(ctx, cl, srv, token, sc, body, *retry, *settle)
		if r.IdleMiB > results[0].IdleMiB+64 {
			r.Notes = append(r.Notes, fmt.Sprintf("started %.0f MiB above the first idle: earlier scenarios' memory "+
				"was not yet returned; run --scenario %s alone for a clean figure", r.IdleMiB-results[0].IdleMiB, sc.name))
		}
		results = append(results, r)
		if ctx.Err() != nil || !srv.alive() {
			break
		}
	}
	ok := !slices.ContainsFunc(results, func(r result) bool { return r.Verdict == "FAIL" })
	if !srv.alive() {
		fmt.Fprintf(os.Stderr, "server died (%v); its output:\n%s\n", srv.waitErr, srv.output())
	} else if out := strings.TrimSpace(srv.output()); out != "" && !ok { // the log may say why
		fmt.Printf("\nserver log (warnings and errors, last lines):\n%s\n", lastLines(out, 10))
	}
	printTable(results)
	if *jsonPath != "" {
		report := map[string]any{"server_command": srv.cmdline, "extra_flags": *extra, "retry": *retry,
			"time": time.Now().UTC().Format(time.RFC3339), "pass": ok, "results": results}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // keep "<" readable in the targets
		enc.SetIndent("", "  ")
		enc.Encode(report)
		if err := os.WriteFile(*jsonPath, []byte(b.String()), 0o644); err != nil {
			return fail(err)
		}
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(os.Stderr, "interrupted")
		return 130
	case !srv.alive():
		return 2
	case !ok:
		return 1
	}
	return 0
}

// measure runs one scenario: idle RSS after a pause, peak while the burst
// is answered, RSS again after a pause. The delta to idle is what counts,
// since Go hands freed memory back to the kernel only lazily.
func measure(ctx context.Context, cl *http.Client, srv *server, token string, sc scenario, body []byte, retry bool, settle time.Duration) result {
	r := result{Scenario: sc.name, Requests: sc.requests, Target: sc.target, Statuses: map[string]int{}, Codes: map[string]int{}}
	time.Sleep(settle)
	r.IdleMiB = srv.rssMiB()
	if !srv.resetHWM() {
		r.Notes = append(r.Notes, "VmHWM could not be reset: it covers the whole run")
	}
	stop := srv.sampleRSS()
	began := time.Now()
	outs := fire(ctx, cl, srv.base+"/api/events", token, body, sc.requests, retry)
	r.Seconds = time.Since(began).Seconds()
	r.PeakMiB = stop()
	r.HWMMiB = srv.hwmMiB()
	r.DeltaMiB = r.PeakMiB - r.IdleMiB

	var errs []string
	errMin, errMax := math.Inf(1), 0.0
	for _, o := range outs {
		r.Retries += o.retries
		switch {
		case o.status == 0:
			r.Statuses["error"]++
			errs = append(errs, o.err.Error())
			errMin, errMax = min(errMin, o.seconds), max(errMax, o.seconds)
			continue
		case o.status == http.StatusCreated && o.count != 10_000:
			r.Misses = append(r.Misses, fmt.Sprintf("201 stored %d events, not 10000", o.count))
		case o.status == http.StatusServiceUnavailable && o.retryAfter == "":
			r.Misses = append(r.Misses, "503 without Retry-After")
		case o.status == http.StatusServiceUnavailable && o.code != "service_unavailable" && o.code != "unavailable":
			r.Misses = append(r.Misses, "503 with code "+o.code)
		}
		r.Statuses[fmt.Sprint(o.status)]++
		if o.code != "" {
			r.Codes[fmt.Sprintf("%d %s", o.status, o.code)]++
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		// The time tells a server timeout (e.g. its 60 s WriteTimeout) from a refusal.
		r.Misses = append(r.Misses, fmt.Sprintf("%d transport errors %.1f–%.1f s after sending, e.g. %s",
			len(errs), errMin, errMax, errs[0]))
	}
	r.Verdict = "-"
	if sc.check != nil {
		sc.check(&r)
		r.Verdict = "PASS"
		if len(r.Misses) > 0 {
			r.Verdict = "FAIL"
		}
	} else { // nothing to miss: keep what was seen as information
		r.Notes, r.Misses = append(r.Notes, r.Misses...), nil
	}
	if srv.alive() && ctx.Err() == nil {
		time.Sleep(settle)
		r.AfterMiB = srv.rssMiB()
	}
	return r
}

func printTable(results []result) {
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\trequests\tstatuses\tidle MiB\tpeak MiB\tpeak-idle MiB\tVmHWM MiB\tafter MiB\tseconds\ttarget\tresult\t")
	for _, r := range results {
		if r.Scenario == "idle" {
			fmt.Fprintf(tw, "idle\t-\t-\t%.1f\t-\t-\t-\t%.1f\t-\t%s\t-\t\n", r.IdleMiB, r.AfterMiB, r.Target)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%s\t\n", r.Scenario, r.Requests,
			statusLine(r.Statuses), r.IdleMiB, r.PeakMiB, r.DeltaMiB, r.HWMMiB, r.AfterMiB, r.Seconds, r.Target, r.Verdict)
	}
	tw.Flush()
	for _, r := range results {
		if len(r.Codes) > 0 {
			fmt.Printf("%s codes: %s\n", r.Scenario, statusLine(r.Codes))
		}
		if r.Retries > 0 {
			fmt.Printf("%s: %d retries after 503\n", r.Scenario, r.Retries)
		}
		for _, m := range slices.Compact(slices.Sorted(slices.Values(r.Misses))) {
			fmt.Printf("%s: MISS %s\n", r.Scenario, m)
		}
		for _, n := range slices.Compact(slices.Sorted(slices.Values(r.Notes))) {
			fmt.Printf("%s: note: %s\n", r.Scenario, n)
		}
	}
}

// statusLine renders counts as "201×4 503×44".
func statusLine(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	if parts == nil {
		return "-"
	}
	return strings.Join(parts, " ")
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("… %d earlier lines", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
