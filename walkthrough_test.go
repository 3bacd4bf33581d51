package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// releaseBinary is Garrison built as the README's install section builds
// it, once per test binary.
var releaseBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "garrison-release-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "garrison")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

func buildRelease(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the release binary; skipped with -short")
	}
	bin, err := releaseBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestReleaseBinaryIsStatic: the README's build (CGO_ENABLED=0) makes a
// binary with no runtime dependencies, as the README says.
func TestReleaseBinaryIsStatic(t *testing.T) {
	bin := buildRelease(t)
	if _, err := exec.LookPath("ldd"); err != nil {
		t.Skip("ldd is not installed: cannot check the binary's dynamic dependencies")
	}
	out, _ := exec.Command("ldd", bin).CombinedOutput()
	if !strings.Contains(string(out), "not a dynamic executable") && !strings.Contains(string(out), "statically linked") {
		t.Fatalf("ldd %s:\n%s", bin, out)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("CGO_ENABLED=0 go build -trimpath -o garrison .")) {
		t.Error("the README does not document the static build")
	}
}

// TestReadmeWalkthroughIsTheScript: the README's curl walkthrough is
// scripts/walkthrough.sh, word for word, so the one CI runs is the one
// people read.
func TestReadmeWalkthroughIsTheScript(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("scripts/walkthrough.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## A curl walkthrough\n.*?```sh\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("no sh block under the README's walkthrough heading")
	}
	if string(m[1]) != string(script) {
		t.Fatal("the README's walkthrough and scripts/walkthrough.sh differ: copy the script into the README")
	}
}

// TestWalkthrough runs scripts/walkthrough.sh, as written, against the
// release binary serving a fresh data directory on loopback, then the
// verification mail's curl command as the server logged it.
func TestWalkthrough(t *testing.T) {
	bin := buildRelease(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed: the walkthrough is curl commands")
	}
	data := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	base := fmt.Sprintf("https://localhost:%d", port)
	var log serverLog
	srv := exec.Command(bin, "serve", "--data", data, "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--http-addr", "", "--base-url", base)
	srv.Stdout, srv.Stderr = &log, &log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	client := waitServing(t, base, filepath.Join(data, selfSignedCert))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	walk := exec.CommandContext(ctx, "bash", "scripts/walkthrough.sh")
	walk.Env = append(os.Environ(), "B="+base+"/api", "DATA="+data, "GARRISON="+bin)
	out, err := walk.CombinedOutput()
	if err != nil || !strings.HasSuffix(string(out), "Walkthrough complete.\n") {
		t.Fatalf("walkthrough: %v\n%s", err, out)
	}
	if bytes.Contains(out, []byte(`"success":false`)) != bytes.Contains(out, []byte("Required scope: admin")) {
		t.Errorf("an error other than the read key's expected 403:\n%s", out)
	}

	// The Suricata sample's events were moved to now: they stay.
	var events struct {
		Pagination struct{ Total int } `json:"pagination"`
	}
	res, err := client.Post(base+"/api/auth/login", "application/json",
		strings.NewReader(`{"email":"ann@acme.example","password":"correct horse battery"}`))
	if err != nil {
		t.Fatal(err)
	}
	var login struct{ Token string }
	json.NewDecoder(res.Body).Decode(&login)
	res.Body.Close()
	getJSON(t, client, base+"/api/events?from="+time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), login.Token, &events)
	if events.Pagination.Total < 41 {
		t.Errorf("%d events of the last hour, want the walkthrough's 41", events.Pagination.Total)
	}

	// The verification mail's command, as the log holds it, works as printed.
	cmd := loggedCommand(t, log.String(), "Confirm your Garrison e-mail address")
	if out, err := exec.Command("bash", "-c", cmd+" -sS").CombinedOutput(); err != nil || !bytes.Contains(out, []byte(`"success":true`)) {
		t.Fatalf("the logged command %q: %v\n%s", cmd, err, out)
	}
}

// serverLog holds a server's output while the process writes it: the test
// reads it while the server runs.
type serverLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *serverLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// loggedCommand is the curl command of the mail with the subject that the
// server wrote to its log, its continuation lines joined.
func loggedCommand(t *testing.T, log, subject string) string {
	t.Helper()
	for _, line := range strings.Split(log, "\n") {
		var entry struct{ Msg, Subject, Body string }
		if json.Unmarshal([]byte(line), &entry) != nil || entry.Subject != subject {
			continue
		}
		i := strings.Index(entry.Body, "  curl ")
		if i < 0 {
			break
		}
		cmd := entry.Body[i:]
		if j := strings.Index(cmd, "'\n"); j >= 0 {
			cmd = cmd[:j+1]
		}
		return strings.ReplaceAll(cmd, "\\\n", " ")
	}
	t.Fatalf("no mail %q with a curl command in the log:\n%s", subject, log)
	return ""
}

// waitServing waits for the server to answer its health check over TLS,
// trusting its own certificate, and returns a client that does.
func waitServing(t *testing.T, base, certFile string) *http.Client {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if pem, err := os.ReadFile(certFile); err == nil {
			pool := x509.NewCertPool()
			if pool.AppendCertsFromPEM(pem) {
				c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
				if res, err := c.Get(base + "/api/dashboard/health"); err == nil {
					res.Body.Close()
					if res.StatusCode == http.StatusOK {
						return c
					}
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the server did not start")
	return nil
}

func getJSON(t *testing.T, c *http.Client, url, cred string, v any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+cred)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
}
