package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// limits lifts the rate limits so they never refuse a measured request.
const limits = "jwt=1000000/1m,apikey=1000000/1m,auth=100000/1m,login=100000/1m,register=100000/1m"

// server is a running `garrison serve` child process.
type server struct {
	cmd     *exec.Cmd
	cmdline string
	base    string // https://127.0.0.1:port
	logPath string
	exited  chan struct{} // closed when the process has ended
	waitErr error
}

// buildServer compiles the repository's main package into bin.
func buildServer(ctx context.Context, repo, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = repo
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build in %s: %w", repo, err)
	}
	return nil
}

// startServer runs bin serve in dir and waits until its health check answers 200.
func startServer(ctx context.Context, cl *http.Client, bin, dir string, extra []string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	args := append([]string{"serve", "--data", filepath.Join(dir, "data"), "--addr", addr, "--http-addr", "",
		"--limits", limits, "--log-level", "warn"}, extra...)
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child keeps its own descriptor
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Own process group: a Ctrl-C at the terminal reaches only us, and we
	// stop the server with SIGTERM, as an operator would.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, cmdline: shellLine(bin, args), base: "https://" + addr, logPath: logPath, exited: make(chan struct{})}
	go func() { s.waitErr = cmd.Wait(); close(s.exited) }()

	deadline := time.Now().Add(20 * time.Second)
	for {
		if resp, err := cl.Get(s.base + "/api/dashboard/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("server exited early (%v); its output:\n%s", s.waitErr, s.output())
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("server not healthy after 20 s; its output:\n%s", s.output())
		}
	}
}

// freePort asks the kernel for a port nobody uses right now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// shellLine renders a command so it can be pasted into a shell.
func shellLine(bin string, args []string) string {
	words := []string{bin}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$\\") {
			a = strconv.Quote(a)
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

func (s *server) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM, gives the graceful shutdown 30 s, then kills.
func (s *server) stop() {
	if !s.alive() {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// output is what the server wrote to stdout and stderr so far.
func (s *server) output() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

// register creates an account and returns its session token.
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
	var out struct {
		Token string `json:"token"`
	}
	raw := new(bytes.Buffer)
	raw.ReadFrom(resp.Body)
	if err := json.Unmarshal(raw.Bytes(), &out); err != nil || resp.StatusCode != http.StatusCreated || out.Token == "" {
		return "", fmt.Errorf("register: %s %s", resp.Status, raw.String())
	}
	return out.Token, nil
}

// procStatus reads one kB field (VmRSS, VmHWM) of /proc/<pid>/status.
func procStatus(pid int, field string) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if ok && name == field {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no " + field + " in /proc/" + strconv.Itoa(pid) + "/status")
}

// rssMiB is the server's resident set size now.
func (s *server) rssMiB() float64 {
	kb, _ := procStatus(s.cmd.Process.Pid, "VmRSS")
	return float64(kb) / 1024
}

// resetHWM restarts VmHWM so it covers one scenario, not the whole run
// (Linux 4.0+); false if the kernel refused, and VmHWM is then since start.
func (s *server) resetHWM() bool {
	return os.WriteFile("/proc/"+strconv.Itoa(s.cmd.Process.Pid)+"/clear_refs", []byte("5"), 0) == nil
}

func (s *server) hwmMiB() float64 {
	kb, _ := procStatus(s.cmd.Process.Pid, "VmHWM")
	return float64(kb) / 1024
}

// sampleRSS reads VmRSS every 5 ms until the returned function is called,
// which gives the highest value seen in MiB.
func (s *server) sampleRSS() (stop func() float64) {
	quit, res := make(chan struct{}), make(chan int64)
	go func() {
		var peak int64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if kb, err := procStatus(s.cmd.Process.Pid, "VmRSS"); err == nil && kb > peak {
				peak = kb
			}
			select {
			case <-quit:
				res <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() float64 { close(quit); return float64(<-res) / 1024 }
}
