package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// child is a server the suite started: Garrison or a baseline.
type child struct {
	name    string
	cmd     *exec.Cmd
	cmdline string
	logPath string
	exited  chan struct{} // closed when the process has ended
	waitErr error
}

// children is every child still running, so one deferred call stops them
// all however the run ends.
var children struct {
	sync.Mutex
	list []*child
}

// startChild runs bin with args, its output appended to logPath (so a
// restarted server's log keeps what the earlier process said).
func startChild(name, bin string, args []string, logPath string) (*child, error) {
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
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
	c := &child{name: name, cmd: cmd, cmdline: shellLine(bin, args), logPath: logPath, exited: make(chan struct{})}
	go func() { c.waitErr = cmd.Wait(); close(c.exited) }()
	children.Lock()
	children.list = append(children.list, c)
	children.Unlock()
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

func (c *child) alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM, gives the graceful shutdown 60 s (Garrison folds and
// checkpoints on the way out), then kills.
func (c *child) stop() {
	if c.alive() {
		c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.exited:
		case <-time.After(60 * time.Second):
			c.cmd.Process.Kill()
			<-c.exited
		}
	}
	children.Lock()
	defer children.Unlock()
	for i, o := range children.list {
		if o == c {
			children.list = append(children.list[:i], children.list[i+1:]...)
			break
		}
	}
}

// stopAll stops every child still running, newest first.
func stopAll() {
	for {
		children.Lock()
		n := len(children.list)
		var c *child
		if n > 0 {
			c = children.list[n-1]
		}
		children.Unlock()
		if c == nil {
			return
		}
		c.stop()
	}
}

// output is what the child wrote to stdout and stderr so far.
func (c *child) output() string {
	b, _ := os.ReadFile(c.logPath)
	return string(b)
}

// insecureClient talks HTTPS to loopback servers with self-signed
// certificates. A custom TLS config keeps it on HTTP/1.1, as wrk is.
func insecureClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true},
		MaxIdleConnsPerHost: 16,
	}}
}

// waitHealthy polls url every 2 ms until it answers 200 and returns the
// time since the child was started (began), which is the cold start.
func (c *child) waitHealthy(ctx context.Context, cl *http.Client, url, bearer string, began time.Time, limit time.Duration) (time.Duration, error) {
	deadline := began.Add(limit)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		if resp, err := cl.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(began), nil
			}
		}
		select {
		case <-c.exited:
			return 0, fmt.Errorf("%s exited early (%v); its output:\n%s", c.name, c.waitErr, lastLines(c.output(), 20))
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%s not healthy after %s; its output:\n%s", c.name, limit, lastLines(c.output(), 20))
		}
	}
}

// freeAddr asks the kernel for a loopback port nobody uses right now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
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

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("… %d earlier lines", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
