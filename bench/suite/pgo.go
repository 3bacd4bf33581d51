package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// mergeProfiles merges the CPU profiles of the run's servers (the ingest
// server's and the load targets' weigh the most) into one file for the
// compiler's profile-guided optimization, written whole or not at all.
func mergeProfiles(ctx context.Context, dir, out string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.pprof"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no CPU profiles in %s: %v", dir, err)
	}
	var merged, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", append([]string{"tool", "pprof", "-proto"}, files...)...)
	cmd.Stdout, cmd.Stderr = &merged, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("merge CPU profiles: %w\n%s", err, stderr.Bytes())
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, merged.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Printf("CPU profile of %d servers merged into %s (%d bytes)\n", len(files), out, merged.Len())
	return nil
}
