// Command intelbounds measures what outsized intelligence records cost a
// real `garrison serve` (issue 28, item 3): the import of 20 CVE records
// with 15 MiB descriptions through POST /api/intel/import, one
// GET /api/cve-watchlist?limit=200 of them, six at once, and
// GET /api/dashboard/overview.
//
//	go run ./bench/intelbounds [--repo .] [--records 20] [--mib 15] [--json out.json]
//
// It builds the server from --repo, starts it on a free loopback port with a
// fresh data directory, registers the operator's account, then runs each
// step against that one process. For each step it reports the growth of the
// server's resident memory over its idle size just before (the peak of
// VmRSS sampled every 5 ms, and VmHWM, reset before the step where the
// kernel allows), the bytes answered and the statuses. Before the records
// were bounded (issue 28) the figures were +675 MiB for the import, +995 MiB
// and a 300 MiB answer for one watchlist read, +2.98 GiB for six (all
// failed), and +577 MiB for the overview.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"
)

// limits lifts the rate limits so they never refuse a measured request.
const limits = "jwt=1000000/1m,apikey=1000000/1m,auth=100000/1m,login=100000/1m,register=100000/1m"

type step struct {
	Name      string  `json:"step"`
	Requests  int     `json:"requests"`
	Statuses  string  `json:"statuses"`
	IdleMiB   float64 `json:"idle_rss_mib"`
	PeakMiB   float64 `json:"peak_rss_mib"`
	DeltaMiB  float64 `json:"peak_minus_idle_mib"`
	HWMDelta  float64 `json:"hwm_minus_idle_mib"`
	AnswerMiB float64 `json:"answer_mib"` // of one answer (the largest)
	Seconds   float64 `json:"seconds"`
	Before    string  `json:"before_issue_28"`
}

func main() { os.Exit(run()) }

func run() int {
	repo := flag.String("repo", ".", "repository root to build the server from")
	records := flag.Int("records", 20, "CVE records to import")
	mib := flag.Int("mib", 15, "MiB of description per record")
	jsonPath := flag.String("json", "", "also write the results as JSON to this file")
	settle := flag.Duration("settle", 3*time.Second, "pause before each idle reading, for the heap to settle")
	flag.Parse()
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "intelbounds:", err); return 2 }

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	tmp, err := os.MkdirTemp("", "intelbounds-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)
	cl := &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 16}}

	bin := filepath.Join(tmp, "garrison")
	fmt.Println("building the server …")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir, build.Stdout, build.Stderr = *repo, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fail(fmt.Errorf("go build in %s: %w", *repo, err))
	}
	srv, err := start(ctx, cl, bin, tmp)
	if err != nil {
		return fail(err)
	}
	defer srv.stop()
	fmt.Println("server:", strings.Join(srv.cmd.Args, " "))
	token, err := srv.register(ctx, cl)
	if err != nil {
		return fail(err)
	}
	fmt.Printf("building %d records of %d MiB (gzip) …\n", *records, *mib)
	body := hugeNVD(*records, *mib<<20)
	fmt.Printf("import body: %.2f MiB gzipped, %d MiB of descriptions\n", float64(len(body))/(1<<20), *records**mib)

	call := func(method, path string, b []byte) (int, int64, error) {
		req, err := http.NewRequestWithContext(ctx, method, srv.base+path, bytes.NewReader(b))
		if err != nil {
			return 0, 0, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		if b != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := cl.Do(req)
		if err != nil {
			return 0, 0, err
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, n, err
	}
	measure := func(name, before string, requests int, do func(i int) (int, int64, error)) step {
		time.Sleep(*settle)
		s := step{Name: name, Requests: requests, Before: before, IdleMiB: srv.kib("VmRSS") / 1024}
		srv.resetHWM()
		stop := srv.sample()
		t0 := time.Now()
		statuses := make([]string, requests)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range requests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, n, err := do(i)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					statuses[i] = "error: " + err.Error()
					return
				}
				statuses[i] = strconv.Itoa(code)
				s.AnswerMiB = max(s.AnswerMiB, float64(n)/(1<<20))
			}()
		}
		wg.Wait()
		s.Seconds = time.Since(t0).Seconds()
		s.PeakMiB = stop()
		s.DeltaMiB = s.PeakMiB - s.IdleMiB
		s.HWMDelta = srv.kib("VmHWM")/1024 - s.IdleMiB
		s.Statuses = strings.Join(statuses, " ")
		fmt.Printf("%s: %s, +%.0f MiB\n", name, s.Statuses, s.DeltaMiB)
		return s
	}

	steps := []step{measure("import", "+675 MiB", 1, func(int) (int, int64, error) {
		return call("POST", "/api/intel/import?name=huge.json.gz", body)
	})}
	for i := range *records {
		if code, _, err := call("POST", "/api/cve-watchlist", []byte(fmt.Sprintf(`{"cve_id":"CVE-2024-%d"}`, 10000+i))); err != nil || code != http.StatusCreated {
			return fail(fmt.Errorf("watch: %d %v", code, err))
		}
	}
	list := func(int) (int, int64, error) { return call("GET", "/api/cve-watchlist?limit=200", nil) }
	steps = append(steps,
		measure("GET /cve-watchlist?limit=200", "+995 MiB, 300 MiB answer", 1, list),
		measure("6 × GET /cve-watchlist?limit=200", "+2.98 GiB, all failed", 6, list),
		measure("GET /dashboard/overview", "+577 MiB", 1, func(int) (int, int64, error) { return call("GET", "/api/dashboard/overview", nil) }))

	tw := tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "\nstep\tstatuses\tidle MiB\tpeak−idle MiB\tVmHWM−idle MiB\tanswer MiB\tseconds\tbefore (issue 28)")
	for _, s := range steps {
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%+.0f\t%+.0f\t%.3f\t%.2f\t%s\n", s.Name, s.Statuses, s.IdleMiB, s.DeltaMiB, s.HWMDelta, s.AnswerMiB, s.Seconds, s.Before)
	}
	tw.Flush()
	if *jsonPath != "" {
		b, _ := json.MarshalIndent(map[string]any{"records": *records, "mib_each": *mib, "time": time.Now().UTC().Format(time.RFC3339),
			"steps": steps}, "", "  ")
		if err := os.WriteFile(*jsonPath, append(b, '\n'), 0o644); err != nil {
			return fail(err)
		}
	}
	if ctx.Err() != nil {
		return 130
	}
	return 0
}

// hugeNVD is a gzipped NVD page of n records (CVE-2024-10000 on), each
// with a description of size bytes.
func hugeNVD(n, size int) []byte {
	desc := strings.Repeat("A flaw lets a remote attacker run code. ", size/40+1)[:size]
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	fmt.Fprint(zw, `{"format":"NVD_CVE","version":"2.0","vulnerabilities":[`)
	for i := range n {
		if i > 0 {
			fmt.Fprint(zw, ",")
		}
		fmt.Fprintf(zw, `{"cve":{"id":"CVE-2024-%d","published":"2024-03-01T10:00:00.000","lastModified":"2024-06-01T10:00:00.000",`+
			`"vulnStatus":"Analyzed","descriptions":[{"lang":"en","value":"%s"}],"metrics":{"cvssMetricV31":[{"source":"nvd@nist.gov",`+
			`"type":"Primary","cvssData":{"version":"3.1","vectorString":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H","baseScore":9.8,`+
			`"baseSeverity":"CRITICAL"}}]},"references":[{"url":"https://example.com/advisory","tags":["Patch"]}]}}`, 10000+i, desc)
	}
	fmt.Fprint(zw, "]}")
	zw.Close()
	return buf.Bytes()
}

// server is a running `garrison serve` child process.
type server struct {
	cmd    *exec.Cmd
	base   string
	exited chan struct{}
}

func start(ctx context.Context, cl *http.Client, bin, dir string) (*server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve", "--data", filepath.Join(dir, "data"), "--addr", addr, "--http-addr", "",
		"--limits", limits, "--log-level", "warn")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a Ctrl-C reaches only us; we stop it with SIGTERM
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, base: "https://" + addr, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(s.exited) }()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if resp, err := cl.Get(s.base + "/api/dashboard/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-s.exited:
			return nil, errors.New("the server exited early")
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	s.stop()
	return nil, errors.New("the server was not healthy after 20 s")
}

func (s *server) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// register creates the operator's account (the appliance's first
// organization, whose admins may import) and returns its session token.
func (s *server) register(ctx context.Context, cl *http.Client) (string, error) {
	body := `{"email":"bench@example.com","password":"correct horse battery staple","name":"Bench"}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/api/auth/register", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := cl.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Token string `json:"token"`
	}
	if json.Unmarshal(raw, &out) != nil || resp.StatusCode != http.StatusCreated || out.Token == "" {
		return "", fmt.Errorf("register: %s %s", resp.Status, raw)
	}
	return out.Token, nil
}

// kib reads one kB field (VmRSS, VmHWM) of the server's /proc status.
func (s *server) kib(field string) float64 {
	f, err := os.Open("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, value, ok := strings.Cut(sc.Text(), ":"); ok && name == field {
			n, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 64)
			return n
		}
	}
	return 0
}

// resetHWM restarts VmHWM so that it covers one step (Linux 4.0+).
func (s *server) resetHWM() {
	os.WriteFile("/proc/"+strconv.Itoa(s.cmd.Process.Pid)+"/clear_refs", []byte("5"), 0)
}

// sample reads VmRSS every 5 ms until the returned function is called,
// which gives the highest value seen, in MiB.
func (s *server) sample() (stop func() float64) {
	quit, res := make(chan struct{}), make(chan float64)
	go func() {
		var peak float64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, s.kib("VmRSS"))
			select {
			case <-quit:
				res <- peak / 1024
				return
			case <-tick.C:
			}
		}
	}()
	return func() float64 { close(quit); return <-res }
}
