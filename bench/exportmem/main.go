// Command exportmem measures what GET /api/events/export costs a real
// `garrison serve` in memory as the number of events grows: it seeds
// --events events (in two steps, a tenth first), exports them all as CSV
// and as NDJSON after each step, and samples the server's VmRSS every
// 10 ms. Constant memory means the export's peak above the idle server is
// the same at a tenth and at all of them.
//
//	go run ./bench/exportmem [--events 1000000] [--repo .]
//
// Exit status: 0 when the peak at --events is at most 1.5 × the peak at a
// tenth plus 8 MiB and every event was exported, 1 otherwise, 2 when it
// could not run.
package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const limits = "jwt=1000000/1m,apikey=1000000/1m,auth=100000/1m,login=100000/1m,register=100000/1m"

func main() { os.Exit(run()) }

func run() int {
	events := flag.Int("events", 1_000_000, "events to seed and export")
	repo := flag.String("repo", ".", "the repository to build")
	flag.Parse()
	dir, err := os.MkdirTemp("", "exportmem-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "garrison")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Stderr = *repo, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		return 2
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(bin, "serve", "--data", filepath.Join(dir, "data"), "--addr", addr, "--http-addr", "", "--limits", limits,
		"--log-level", "warn", "--retention", "0")
	srv.Stderr = io.Discard
	if err := srv.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer func() { srv.Process.Signal(os.Interrupt); srv.Wait() }()
	base := "https://" + addr
	cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 4}}
	for i := 0; ; i++ {
		if r, err := cl.Get(base + "/api/dashboard/health"); err == nil && r.StatusCode == 200 {
			r.Body.Close()
			break
		}
		if i > 200 {
			fmt.Fprintln(os.Stderr, "the server did not start")
			return 2
		}
		time.Sleep(100 * time.Millisecond)
	}
	call := func(method, path, cred string, body any) map[string]any {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, base+"/api"+path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		if cred != "" {
			req.Header.Set("Authorization", "Bearer "+cred)
		}
		r, err := cl.Do(req)
		if err != nil {
			panic(err)
		}
		defer r.Body.Close()
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		return m
	}
	token := call("POST", "/auth/register", "", map[string]any{"email": "bench@example.test", "password": "correct horse battery", "name": "B"})["token"].(string)
	key := call("POST", "/api-keys", token, map[string]any{"name": "w", "scope": "write"})["data"].(map[string]any)["key"].(string)

	seeded := 0
	seed := func(n int) {
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now().Add(-29 * 24 * time.Hour)
		for range 2 {
			wg.Go(func() {
				for {
					b := int(next.Add(1)) - 1
					if b*10_000 >= n {
						return
					}
					var body bytes.Buffer
					body.WriteString(`{"events":[`)
					for i := range 10_000 {
						k := seeded + b*10_000 + i
						if i > 0 {
							body.WriteByte(',')
						}
						fmt.Fprintf(&body, `{"type":"policy_violation","severity":"low","timestamp":"%s","source":"fw","asset":"ws-%d","message":"=cmd|' /C calc'!A%d","src_ip":"10.0.%d.%d"}`,
							start.Add(time.Duration(k)*time.Second).UTC().Format(time.RFC3339), k%400, k, k/250%250, k%250+1)
					}
					body.WriteString(`]}`)
					req, _ := http.NewRequest("POST", base+"/api/events", &body)
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", "Bearer "+key)
					r, err := cl.Do(req)
					if err != nil || r.StatusCode != 201 {
						panic(fmt.Sprint("seed: ", err, r.Status))
					}
					io.Copy(io.Discard, r.Body)
					r.Body.Close()
				}
			})
		}
		wg.Wait()
		seeded += n
		time.Sleep(5 * time.Second) // the fold and checkpoints
	}
	type row struct {
		events              int
		format              string
		rows, bytes         int64
		seconds, idle, peak float64
	}
	var rows []row
	export := func(format string) row {
		idle := rss(srv.Process.Pid)
		var peak atomic.Uint64
		done := make(chan struct{})
		go func() {
			t := time.NewTicker(10 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					if v := uint64(rss(srv.Process.Pid) * 1024); v > peak.Load() {
						peak.Store(v)
					}
				}
			}
		}()
		began := time.Now()
		req, _ := http.NewRequest("GET", base+"/api/events/export?format="+format, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		r, err := cl.Do(req)
		if err != nil {
			panic(err)
		}
		var lines, size int64
		br := bufio.NewReaderSize(r.Body, 1<<20)
		neutral := true
		for {
			line, err := br.ReadSlice('\n')
			size += int64(len(line))
			if len(line) > 0 {
				lines++
				if format == "csv" && lines == 2 && !strings.Contains(string(line), `'=cmd|`) {
					neutral = false
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil && err != bufio.ErrBufferFull {
				panic(err)
			}
		}
		r.Body.Close()
		close(done)
		if format == "csv" {
			lines-- // the header
			if !neutral {
				fmt.Println("the CSV's formula cells were not neutralised")
				os.Exit(1)
			}
		}
		return row{events: seeded, format: format, rows: lines, bytes: size, seconds: time.Since(began).Seconds(), idle: idle / 1024,
			peak: float64(peak.Load()) / 1024 / 1024}
	}
	tenth := *events / 10 / 10_000 * 10_000
	for _, step := range []int{tenth, *events - tenth} {
		seed(step)
		rows = append(rows, export("csv"), export("ndjson"))
	}
	fmt.Printf("%-9s %-7s %10s %10s %8s %10s %10s %10s\n", "events", "format", "exported", "MiB", "seconds", "idle MiB", "peak MiB", "peak-idle")
	for _, r := range rows {
		fmt.Printf("%-9d %-7s %10d %10.1f %8.1f %10.1f %10.1f %10.1f\n", r.events, r.format, r.rows, float64(r.bytes)/(1<<20), r.seconds, r.idle, r.peak, r.peak-r.idle)
	}
	ok := true
	for i := 0; i < 2; i++ {
		small, big := rows[i], rows[i+2]
		if big.rows != int64(*events) || big.peak-big.idle > 1.5*(small.peak-small.idle)+8 {
			ok = false
		}
	}
	fmt.Println(map[bool]string{true: "PASS: constant memory", false: "FAIL"}[ok])
	if !ok {
		return 1
	}
	return 0
}

// rss is a process's VmRSS in KiB.
func rss(pid int) float64 {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			v, _ := strconv.ParseFloat(f[1], 64)
			return v
		}
	}
	return 0
}
