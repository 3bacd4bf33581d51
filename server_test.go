package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// liveServer is `garrison serve` on loopback ports chosen by the kernel.
type liveServer struct {
	https, http string
	stop        context.CancelFunc
	done        chan struct{} // closed when serve returns
	err         error         // serve's result, once done is closed
	client      *http.Client
}

func startServer(t *testing.T, cfg config) *liveServer {
	t.Helper()
	cfg.addr, cfg.httpAddr = "127.0.0.1:0", "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	s := &liveServer{stop: cancel, done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		s.err = serve(ctx, cfg, appOptions{passwordIterations: apitest.Iterations}, io.Discard, func(https, http string) {
			s.https, s.http = https, http
			close(ready)
		})
		close(s.done)
	}()
	select {
	case <-ready:
	case <-s.done:
		t.Fatalf("serve: %v", s.err)
	}
	s.client = &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	return s
}

// shutdown stops the server and returns serve's result.
func (s *liveServer) shutdown() error {
	s.stop()
	<-s.done
	return s.err
}

func TestServeHTTPS(t *testing.T) {
	cfg := testConfig(t)
	s := startServer(t, cfg)
	res, err := s.client.Get("https://" + s.https + "/api/dashboard/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Strict-Transport-Security"), "max-age=") {
		t.Fatalf("%d HSTS=%q", res.StatusCode, res.Header.Get("Strict-Transport-Security"))
	}
	if res.TLS.Version < tls.VersionTLS12 {
		t.Fatalf("TLS version %x", res.TLS.Version)
	}

	t.Run("TLS 1.1 refused", func(t *testing.T) {
		c, err := tls.Dial("tcp", s.https, &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS11})
		if err == nil {
			c.Close()
			t.Fatal("TLS 1.1 handshake succeeded")
		}
	})
	t.Run("plain HTTP on the HTTPS port refused", func(t *testing.T) {
		res, err := http.Get("http://" + s.https + "/api/dashboard/health")
		if err == nil {
			defer res.Body.Close()
			if res.StatusCode < 400 {
				t.Fatalf("plain HTTP answered %d", res.StatusCode)
			}
		}
	})
	t.Run("HTTP listener only redirects", func(t *testing.T) {
		for _, method := range []string{"GET", "POST", "DELETE"} {
			req, _ := http.NewRequest(method, "http://"+s.http+"/api/org/members?limit=5", strings.NewReader("{}"))
			res, err := s.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			_, port, _ := net.SplitHostPort(s.https)
			if want := "https://127.0.0.1:" + port + "/api/org/members?limit=5"; res.StatusCode != 308 || res.Header.Get("Location") != want {
				t.Fatalf("%s: %d Location=%q, want 308 %s", method, res.StatusCode, res.Header.Get("Location"), want)
			}
			// Like every answer: an id, the security headers, JSON; no HSTS over plain HTTP.
			h := res.Header
			if h.Get("X-Request-Id") == "" || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != "no-store" ||
				!strings.HasPrefix(h.Get("Content-Type"), "application/json") || h.Get("Strict-Transport-Security") != "" {
				t.Fatalf("%s: redirect headers %v", method, h)
			}
		}
	})
}

func TestSelfSignedCertificateMadeOnce(t *testing.T) {
	cfg := testConfig(t)
	first := startServer(t, cfg)
	if err := first.shutdown(); err != nil {
		t.Fatal(err)
	}
	cert1, err := os.ReadFile(filepath.Join(cfg.dataDir, selfSignedCert))
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(filepath.Join(cfg.dataDir, selfSignedKey)); info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v", info.Mode().Perm())
	}
	startServer(t, cfg)
	cert2, _ := os.ReadFile(filepath.Join(cfg.dataDir, selfSignedCert))
	if !bytes.Equal(cert1, cert2) {
		t.Fatal("certificate regenerated on the second start")
	}
}

func TestGivenCertificate(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	if err := writeSelfSigned(certFile, keyFile, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	cfg.tlsCert, cfg.tlsKey = certFile, keyFile
	s := startServer(t, cfg)
	res, err := s.client.Get("https://" + s.https + "/api/dashboard/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	want, _ := os.ReadFile(certFile)
	if !strings.Contains(string(want), "CERTIFICATE") || len(res.TLS.PeerCertificates) == 0 {
		t.Fatal("no certificate")
	}
	if _, err := os.Stat(filepath.Join(cfg.dataDir, selfSignedCert)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("self-signed certificate made although one was given")
	}
}

// TestGracefulShutdown: a request in flight when the signal comes is
// answered before the server stops. "Expect: 100-continue" makes the server
// say when the handler starts reading the body, so the test knows the
// request is in flight without sleeping on a guess.
func TestGracefulShutdown(t *testing.T) {
	s := startServer(t, testConfig(t))
	conn, err := tls.Dial("tcp", s.https, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"email":"nobody@acme.test","password":"long enough password"}`
	fmt.Fprintf(conn, "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n", len(body))
	r := bufio.NewReader(conn)
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, "100 Continue") {
		t.Fatalf("no 100 Continue: %q %v", line, err)
	}
	r.ReadString('\n') // the blank line after the interim status

	s.stop()
	select {
	case <-s.done:
		t.Fatalf("server stopped with a request in flight: %v", s.err)
	case <-time.After(200 * time.Millisecond):
	}
	io.WriteString(conn, body)
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("in-flight request not answered: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("in-flight request: %d", res.StatusCode)
	}
	if err := s.shutdown(); err != nil {
		t.Fatalf("serve returned %v", err)
	}
	// Every loop the app started ran under its context and was waited for:
	// none is left running once serve has returned.
	stacks := make([]byte, 1<<22)
	stacks = stacks[:runtime.Stack(stacks, true)]
	for _, loop := range []string{"store.(*Store).foldLoop", "store.(*Store).checkpointLoop", "mail.(*Mailer).Run", "account.(*KeyUse).Run", "store.(*Store).probeLoop",
		"agents.(*Runner).Run", "ratelimit.(*Limiter).Run", "app.(*App).Start"} {
		if bytes.Contains(stacks, []byte(loop)) {
			t.Errorf("%s still runs after shutdown", loop)
		}
	}
}

func TestServerTimeoutsSet(t *testing.T) {
	srv := newHTTPServer(http.NotFoundHandler(), nil, newLogger(testConfig(t), io.Discard))
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 || srv.MaxHeaderBytes <= 0 {
		t.Fatalf("a zero timeout means none: %+v", srv)
	}
}

func TestConfigFromEnvironment(t *testing.T) {
	env := map[string]string{"GARRISON_JWT_TTL": "2h", "GARRISON_DEFAULT_PLAN": "pro", "GARRISON_DATA": "/tmp/x"}
	getenv := func(k string) string { return env[k] }
	cfg, err := parseServeConfig([]string{"--jwt-ttl", "3h"}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.jwtTTL != 3*time.Hour || cfg.defaultPlan != "pro" || cfg.dataDir != "/tmp/x" {
		t.Fatalf("flag should win, env fill the rest: %+v", cfg)
	}
	for name, args := range map[string][]string{
		"bad env duration": nil,
		"bad plan":         {"--default-plan", "gold"},
		"negative ttl":     {"--jwt-ttl", "-1h"},
		"half TLS pair":    {"--tls-cert", "c.pem"},
		"stray argument":   {"extra"},
		"bad base url":     {"--base-url", "localhost"},
		"no storage share": {"--storage-share", "0"},
		"over the disk":    {"--storage-share", "1.5"},
		"mysql database":   {"--database", "mysql://db/garrison"},
		"a file database":  {"--database", "/var/lib/garrison/garrison.db"},
		"empty node name":  {"--node", ""},
		"node with spaces": {"--node", "soc node"},
		"node label quote": {"--node", `a"b`},
	} {
		e := getenv
		if args == nil {
			e = func(k string) string {
				if k == "GARRISON_JWT_TTL" {
					return "soon"
				}
				return ""
			}
		}
		if _, err := parseServeConfig(args, e, io.Discard); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := runCLI(t, []string{"--help"}, &out, &errOut); err != nil || !strings.Contains(out.String(), "garrison serve") {
		t.Fatalf("garrison --help: %v %q", err, out.String())
	}
	out.Reset()
	err := runCLI(t, []string{"serve", "--help"}, &out, &errOut)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("serve --help: %v", err)
	}
	for _, want := range []string{"--addr", "GARRISON_ADDR", "--http-addr", "--data", "--jwt-ttl", "GARRISON_JWT_TTL",
		"--default-plan", "--smtp-addr", "--tls-cert", "--tls-key", "GARRISON_SMTP_PASSWORD"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("serve --help does not mention %s", want)
		}
	}
	if err := runCLI(t, []string{"frobnicate"}, &out, &errOut); err == nil {
		t.Error("unknown command accepted")
	}
}

func TestShortSecretRefused(t *testing.T) {
	cfg := testConfig(t)
	os.WriteFile(filepath.Join(cfg.dataDir, secretFileName), []byte("00ff\n"), 0o600)
	if _, err := newApp(context.Background(), cfg, newLogger(cfg, io.Discard), appOptions{}); err == nil || !strings.Contains(err.Error(), "at least 32") {
		t.Fatalf("short secret: %v", err)
	}
}

func TestBadLimitsRefuseToStart(t *testing.T) {
	for _, bad := range []string{"jwt=abc/1m", "nope=1/1m", "jwt=10", "jwt=10/0s", "jwt=1/1m,jwt=2/1m"} {
		var errOut strings.Builder
		_, err := parseServeConfig([]string{"--limits", bad}, func(string) string { return "" }, &errOut)
		if err == nil || !strings.Contains(err.Error(), "--limits") {
			t.Errorf("--limits %s: %v", bad, err)
		}
	}
	if _, err := parseServeConfig([]string{"--trusted-proxies", "10.0.0.0/33"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Error("bad --trusted-proxies accepted")
	}
	cfg, err := parseServeConfig(nil, func(k string) string {
		if k == "GARRISON_LIMITS" {
			return "jwt=7/1m"
		}
		return ""
	}, io.Discard)
	if err != nil || cfg.limits["jwt"].N != 7 || cfg.limits["login"].N != 10 {
		t.Fatalf("GARRISON_LIMITS: %v %v", cfg.limits, err)
	}
}

// TestIngestInflightFlag: --ingest-inflight reaches the API; a size below
// one ingest body, or not a size, refuses to start.
func TestIngestInflightFlag(t *testing.T) {
	e := newTestEnv(t, func(c *config) {
		var err error
		if c.ingestInflight, err = parseSize("32MiB"); err != nil {
			t.Fatal(err)
		}
	})
	if e.app.API.IngestInflight != 32<<20 {
		t.Fatalf("the API holds %d bytes", e.app.API.IngestInflight)
	}
	cfg := testConfig(t)
	if cfg.ingestInflight != 64<<20 {
		t.Fatalf("default %d", cfg.ingestInflight)
	}
	for _, bad := range []string{"1MiB", "lots", "-5", "16 GB"} {
		if _, err := parseServeConfig([]string{"--ingest-inflight", bad}, func(string) string { return "" }, io.Discard); err == nil ||
			!strings.Contains(err.Error(), "--ingest-inflight") {
			t.Errorf("--ingest-inflight %s: %v", bad, err)
		}
	}
	for in, want := range map[string]int64{"1GiB": 1 << 30, "20000000": 20000000, "17000KiB": 17000 << 10} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v", in, got, err)
		}
	}
}

// TestTLSHostsAndFileModes: the self-signed certificate covers --tls-hosts;
// the database and secrets are the owner's only.
func TestTLSHostsAndFileModes(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t)
	cfg.dataDir, cfg.tlsHosts = dir, []string{"garrison.msp.example", "10.20.30.40"}
	tlsCfg, _, err := loadTLS(cfg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(tlsCfg.Certificates[0].Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"garrison.msp.example", "10.20.30.40", "localhost"} {
		if err := leaf.VerifyHostname(h); err != nil {
			t.Fatal(err)
		}
	}
	e := newTestEnv(t, func(c *config) { c.dataDir = dir })
	e.Register("ann@acme.test", "Acme")
	for _, f := range []string{"garrison.db", "garrison.db-wal", secretFileName, selfSignedKey} {
		info, err := os.Stat(filepath.Join(dir, f))
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", f, info, err)
		}
	}
	if _, err := parseServeConfig([]string{"--tls-hosts", "bad host!"}, func(string) string { return "" }, io.Discard); err == nil {
		t.Fatal("a bad --tls-hosts entry was accepted")
	}
}

func TestParseDays(t *testing.T) {
	for in, want := range map[string]time.Duration{"90d": 90 * 24 * time.Hour, "0": 0, "2160h": 2160 * time.Hour, "1d": 24 * time.Hour} {
		if got, err := parseDays(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"12h", "-1d", "ninety", "1.5d", "99999d"} {
		if _, err := parseDays(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
