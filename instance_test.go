package main

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"garrison/app"
	"garrison/handlers/apitest"
)

// TestOneServerPerDataDirectory: a second garrison serve on a data
// directory already served refuses to start, naming the holder; once the
// first stops, the directory can be served again.
func TestOneServerPerDataDirectory(t *testing.T) {
	cfg := testConfig(t)
	first := startServer(t, cfg)
	second := cfg
	second.addr, second.httpAddr = "127.0.0.1:0", ""
	err := serve(context.Background(), second, appOptions{passwordIterations: apitest.Iterations}, io.Discard, func(string, string) {
		t.Error("the second server started")
	})
	if !errors.Is(err, app.ErrDataDirBusy) || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) ||
		!strings.Contains(err.Error(), cfg.dataDir) {
		t.Fatalf("second serve: %v", err)
	}
	if err := first.shutdown(); err != nil {
		t.Fatal(err)
	}
	startServer(t, cfg) // the lock went with the first server
}

// TestStartTellsWhereAndWhichCertificate: the start says, on the
// terminal, the URL to open and the self-signed certificate's SHA-256
// fingerprint, which is the certificate the server presents.
func TestStartTellsWhereAndWhichCertificate(t *testing.T) {
	cfg := testConfig(t)
	cfg.addr, cfg.httpAddr = "127.0.0.1:0", ""
	var out apitest.LockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan string), make(chan error)
	go func() {
		done <- serve(ctx, cfg, appOptions{passwordIterations: apitest.Iterations}, &out, func(https, _ string) { ready <- https })
	}()
	addr := <-ready
	defer func() { cancel(); <-done }()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	presented := fingerprint(conn.ConnectionState().PeerCertificates[0].Raw)
	conn.Close()
	text := out.String()
	for _, want := range []string{"Open " + apitest.BaseURL + "/ in a browser", "SHA-256 fingerprint:\n  " + presented + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the start's words lack %q:\n%s", want, text)
		}
	}
	if len(presented) != 32*3-1 {
		t.Errorf("fingerprint %q", presented)
	}
}

// TestFirstStartMakesTheDataDirectory: a first start on a data directory
// that does not exist yet makes it, with its secret, database and
// certificate.
func TestFirstStartMakesTheDataDirectory(t *testing.T) {
	cfg := testConfig(t)
	cfg.dataDir = filepath.Join(t.TempDir(), "fresh", "data")
	startServer(t, cfg)
	for _, f := range []string{secretFileName, "garrison.db", selfSignedCert} {
		if _, err := os.Stat(filepath.Join(cfg.dataDir, f)); err != nil {
			t.Errorf("first start: %v", err)
		}
	}
	a, err := newApp(context.Background(), testConfigAt(t, filepath.Join(t.TempDir(), "new")), newLogger(cfg, io.Discard), appOptions{})
	if err != nil {
		t.Fatalf("newApp on a new directory: %v", err)
	}
	a.Close()
}

func testConfigAt(t *testing.T, dir string) config {
	cfg := testConfig(t)
	cfg.dataDir = dir
	return cfg
}
