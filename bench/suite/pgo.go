package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// mergeProfiles merges the CPU profiles of the run's servers (the ingest
// server's and the load targets' weigh the most) into one file for the
// compiler's profile-guided optimization, written whole or not at all. A
// profile cut short (a server killed when it would not stop) is left out
// with a word, not allowed to sink the others. The first `go tool pprof`
// of a toolchain compiles pprof, which takes a while.
func mergeProfiles(ctx context.Context, dir, out string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.pprof"))
	if err != nil {
		return fmt.Errorf("CPU profiles in %s: %w", dir, err)
	}
	var whole []string
	for _, f := range files {
		if err := readsWhole(f); err != nil {
			fmt.Fprintf(os.Stderr, "suite: %s left out of the merge: %v\n", filepath.Base(f), err)
			continue
		}
		whole = append(whole, f)
	}
	if len(whole) == 0 {
		return fmt.Errorf("no complete CPU profile in %s", dir)
	}
	var merged, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", append([]string{"tool", "pprof", "-proto"}, whole...)...)
	cmd.Stdout, cmd.Stderr = &merged, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("merge CPU profiles: %w\n%s", err, stderr.Bytes())
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, merged.Bytes(), 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Printf("CPU profiles of %d garrison serve runs merged into %s (%d bytes)\n", len(whole), out, merged.Len())
	return nil
}

// readsWhole reports whether a profile's gzip stream is complete: the
// profiler writes it as the server runs, so a killed server leaves one
// that ends early.
func readsWhole(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return err
	}
	return zr.Close()
}

// writable checks that a file can be made at path, by making and removing
// its temporary sibling, so that --pgo is refused before a run and not
// after it.
func writable(path string) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s exists (left by an interrupted run? remove it)", tmp)
		}
		return err
	}
	f.Close()
	return os.Remove(tmp)
}
