package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile samples the server's CPU from start to stop into path,
// for `go tool pprof` when an appliance is slow, and as the profile the
// compiler optimizes hot paths with (default.pgo, made by bench/suite's
// --pgo). The file is made (or emptied: each start writes its own run)
// before serving, so a path that cannot be written stops the start rather
// than the profile going missing; it is complete once stop returns, which
// a killed process never reaches.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil { // another profile runs in this process
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("cpu profile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("cpu profile %s: %w", path, err)
		}
		return nil
	}, nil
}
