package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// startTargets starts the baselines --only asks for and returns every
// target to load, in the order of targetNames.
func startTargets(ctx context.Context, o options, g *garrison, creds credentials, limitDB, tmp string, res *results) ([]*loadResult, error) {
	want := wantTargets(o)
	byName := map[string]target{}
	for _, t := range garrisonTargets {
		bearer := map[string]string{"none": "", "jwt": creds.JWT, "read key": creds.ReadKey}[t.auth]
		byName[t.name] = target{Name: t.name, URL: g.base() + t.path, bearer: bearer, Auth: t.auth, pid: g.proc.pid()}
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"hello", "headers"} {
		if want[name] {
			t, err := startBaseline(ctx, self, tmp, name, "/", nil)
			if err != nil {
				return nil, err
			}
			byName[name] = t
		}
	}
	if want["limit"] {
		t, err := startBaseline(ctx, self, tmp, "limit", "/events", []string{"--db", limitDB, "--org", creds.OrgID})
		if err != nil {
			return nil, err
		}
		byName["limit"] = t
	}
	if want["pb-total"] || want["pb-skiptotal"] {
		pbDB := limitDB
		if res.Clients != nil { // PocketBase holds the events the events target reads, not the clients'
			pbDB = filepath.Join(tmp, "pb-source", "garrison.db")
			if err := ownEvents(ctx, limitDB, pbDB, creds.OrgID); err != nil {
				return nil, fmt.Errorf("the PocketBase baseline's events: %w", err)
			}
		}
		ts, skipped := startPocketBase(ctx, o, tmp, pbDB, res)
		if skipped != "" {
			msg := "PocketBase skipped: " + skipped
			fmt.Println(msg)
			res.Skipped = append(res.Skipped, msg)
		}
		for _, t := range ts {
			byName[t.Name] = t
		}
	}
	if want["clients"] && res.Clients != nil {
		// The server has just restarted: this read computes every score.
		if err := clientsFirstReads(ctx, g, creds, res.Clients); err != nil {
			return nil, err
		}
	}
	var loads []*loadResult
	for _, n := range targetNames {
		if t, ok := byName[n]; ok && want[n] {
			l := &loadResult{target: t}
			if err := l.preflight(ctx); err != nil {
				res.Notes = append(res.Notes, err.Error())
			}
			loads = append(loads, l)
		}
	}
	return loads, nil
}

// preflight asks a target once, so the table can say what one answer is
// (its size, how many items) and a wrong credential shows before the load.
func (l *loadResult) preflight(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.URL, nil)
	if err != nil {
		return err
	}
	if l.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+l.bearer)
	}
	resp, err := insecureClient(time.Minute).Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", l.Name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s: %w", l.Name, err)
	}
	l.ResponseBytes = len(body)
	var list struct {
		Data  json.RawMessage `json:"data"`
		Items json.RawMessage `json:"items"` // PocketBase's list
	}
	json.Unmarshal(body, &list)
	var items []json.RawMessage
	if json.Unmarshal(list.Data, &items) == nil || json.Unmarshal(list.Items, &items) == nil {
		l.Items = len(items)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s before the load: %s", l.Name, resp.Status, lastLines(string(body), 2))
	}
	return nil
}

// startBaseline runs this program's subcommand name as its own process
// and waits until path answers 200. The limit server writes the token it
// minted to a file; the others need none.
func startBaseline(ctx context.Context, self, tmp, name, path string, args []string) (target, error) {
	addr, err := freeAddr()
	if err != nil {
		return target{}, err
	}
	tokenFile := filepath.Join(tmp, name+".token")
	args = append([]string{name, "--addr", addr}, args...)
	if name == "limit" {
		args = append(args, "--token-file", tokenFile)
	}
	began := time.Now()
	c, err := startChild(name, self, args, filepath.Join(tmp, name+".log"))
	if err != nil {
		return target{}, err
	}
	var token string
	if name == "limit" {
		for token == "" {
			b, _ := os.ReadFile(tokenFile)
			token = strings.TrimSpace(string(b))
			if token == "" {
				if !c.alive() || time.Since(began) > time.Minute {
					return target{}, fmt.Errorf("limit server wrote no token; its output:\n%s", lastLines(c.output(), 20))
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	url := "https://" + addr + path
	if _, err := c.waitHealthy(ctx, insecureClient(10*time.Second), url, token, began, time.Minute); err != nil {
		return target{}, err
	}
	auth := "none"
	if token != "" {
		auth = "own jwt"
	}
	return target{Name: name, URL: url, bearer: token, Auth: auth, pid: c.pid()}, nil
}

// loadAll runs wrk on every target, twice, interleaved: round 1 loads the
// targets in order, round 2 in reverse. Then every target's two runs are
// centred on the same moment, so a machine that speeds up or slows down
// steadily through the rounds moves a target and its baseline alike
// (loaded in one order both times, the baseline loaded last was measured
// minutes after the target judged against it).
func loadAll(ctx context.Context, o options, g *garrison, smp *sampler, loads []*loadResult, res *results) error {
	isGarrison := map[string]bool{}
	for _, t := range garrisonTargets {
		isGarrison[t.name] = true
	}
	for round := 1; round <= 2; round++ {
		for _, l := range roundOrder(loads, round) {
			idle := waitIdle(ctx, 20*time.Second)
			phase := "load, baselines" // Garrison idles meanwhile
			if isGarrison[l.Name] {
				phase = "load, " + l.Name
			}
			smp.watch(g.proc.pid(), phase)
			m0, _ := readMachineCPU()
			su0, ss0, _ := procCPU(l.pid)
			r, out, err := runWrk(ctx, l.URL, l.bearer, o.connections, o.duration)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				return fmt.Errorf("%s: %w", l.Name, err)
			}
			m1, _ := readMachineCPU()
			su1, ss1, _ := procCPU(l.pid)
			r.IdleBefore = idle
			r.ServerCores, r.OtherCores = cpuShares(m0, m1, su1-su0, ss1-ss0, r.wrkUser, runtime.NumCPU())
			if r.Requests == 0 {
				res.Notes = append(res.Notes, fmt.Sprintf("round %d %s: no request completed in %s (wrk: %s)",
					round, l.Name, o.duration, strings.Join(strings.Fields(lastLines(out, 3)), " ")))
			}
			l.Runs = append(l.Runs, r)
			if isGarrison[l.Name] {
				l.PeakRSSMiB = smp.get(phase).RSSMiB
			}
			fmt.Printf("round %d  %-15s %s\n", round, l.Name, r.summary())
			if !g.proc.alive() {
				return fmt.Errorf("garrison exited during %s (%v); its output:\n%s", l.Name, g.proc.waitErr, lastLines(g.proc.output(), 20))
			}
		}
	}
	for _, l := range loads {
		l.summarize()
	}
	return nil
}

// roundOrder is the order of a round's loads: as given in round 1,
// reversed in round 2.
func roundOrder(loads []*loadResult, round int) []*loadResult {
	if round%2 == 1 {
		return loads
	}
	reversed := slices.Clone(loads)
	slices.Reverse(reversed)
	return reversed
}

// cpuShares turns the CPU ticks of one run into cores: the server's, and
// the user time of every other program but the load generator, whose own
// user time is given.
func cpuShares(m0, m1 machineCPU, serverUser, serverSys int64, loaderUser time.Duration, cpus int) (server, others float64) {
	if m1.total <= m0.total {
		return 0, 0
	}
	seconds := float64(m1.total-m0.total) / ticksPerSecond / float64(cpus) // wall time
	server = float64(serverUser+serverSys) / ticksPerSecond / seconds
	// User time only: the kernel's share of loopback traffic is charged
	// unevenly, but a compiler or a test runs in user space.
	o := float64(m1.user-m0.user-serverUser)/ticksPerSecond - loaderUser.Seconds()
	return server, max(0, o/seconds)
}
