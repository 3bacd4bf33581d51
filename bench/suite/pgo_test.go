package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// TestMergeProfiles: the servers' profiles become one pprof file holding
// the samples of both; a run without profiles is an error, not an empty
// file.
func TestMergeProfiles(t *testing.T) {
	if f := flag.Lookup("test.cpuprofile"); f != nil && f.Value.String() != "" {
		t.Skip("go test -cpuprofile holds the process's one CPU profiler")
	}
	dir := t.TempDir()
	spinProfile(t, filepath.Join(dir, "serve-0.pprof"), spinOne)
	spinProfile(t, filepath.Join(dir, "serve-1.pprof"), spinTwo)
	// A server killed mid-run leaves its profile cut short.
	whole, err := os.ReadFile(filepath.Join(dir, "serve-1.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "serve-2.pprof"), whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "default.pgo")
	if err := mergeProfiles(context.Background(), dir, out); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("merged profile is not pprof's gzip: %v", err)
	}
	proto, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	for _, fn := range []string{"spinOne", "spinTwo"} {
		if !bytes.Contains(proto, []byte(fn)) {
			t.Errorf("merged profile lacks %s's samples", fn)
		}
	}
	if _, err := os.Stat(out + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}

	err = mergeProfiles(context.Background(), t.TempDir(), filepath.Join(t.TempDir(), "none.pgo"))
	if err == nil || !strings.Contains(err.Error(), "no complete CPU profile") {
		t.Errorf("no profiles: %v", err)
	}
}

// TestPGOPathChecked: --pgo is refused before the run when its file could
// not be written, and the check leaves nothing behind.
func TestPGOPathChecked(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "default.pgo")
	if err := writable(ok); err != nil {
		t.Fatalf("writable directory refused: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the check left %v", entries)
	}
	if err := writable(filepath.Join(dir, "missing", "default.pgo")); err == nil {
		t.Error("a file in a missing directory passed")
	}
	if err := os.WriteFile(ok+".tmp", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writable(ok); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a leftover temporary file: %v", err)
	}
}

// spinProfile writes the CPU profile of half a second of spin: about 50
// samples at the profiler's 100 Hz.
func spinProfile(t *testing.T, path string, spin func(time.Duration) int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	sink += spin(500 * time.Millisecond)
	pprof.StopCPUProfile()
}

var sink int

//go:noinline
func spinOne(d time.Duration) int { return spin(d) }

//go:noinline
func spinTwo(d time.Duration) int { return spin(d) }

func spin(d time.Duration) int {
	n := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		n++
	}
	return n
}
