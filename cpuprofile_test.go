package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"garrison/handlers/apitest"
)

// TestCPUProfile: --cpu-profile writes a pprof profile (gzip-compressed
// protocol buffers) of the run, complete when serve returns; a file that
// cannot be made refuses the start before anything listens.
func TestCPUProfile(t *testing.T) {
	if f := flag.Lookup("test.cpuprofile"); f != nil && f.Value.String() != "" {
		t.Skip("go test -cpuprofile holds the process's one CPU profiler")
	}
	cfg := testConfig(t)
	cfg.cpuProfile = filepath.Join(t.TempDir(), "cpu.pprof")
	s := startServer(t, cfg)
	for range 20 {
		res, err := s.client.Get("https://" + s.https + "/api/dashboard/health")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	if err := s.shutdown(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	raw, err := os.ReadFile(cfg.cpuProfile)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not a gzip-compressed profile: %v", err)
	}
	proto, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("truncated profile: %v", err)
	}
	// The sample types' names are in every CPU profile's string table.
	for _, want := range []string{"samples", "cpu", "nanoseconds"} {
		if !bytes.Contains(proto, []byte(want)) {
			t.Errorf("profile lacks %q", want)
		}
	}

	bad := testConfig(t)
	bad.addr, bad.httpAddr = "127.0.0.1:0", ""
	bad.cpuProfile = filepath.Join(t.TempDir(), "missing-dir", "cpu.pprof")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err = serve(ctx, bad, appOptions{passwordIterations: apitest.Iterations}, io.Discard, func(string, string) {
		t.Error("listening with a profile that cannot be written")
		cancel()
	})
	if err == nil || !strings.Contains(err.Error(), "cpu profile") {
		t.Fatalf("unwritable --cpu-profile: %v", err)
	}
}
