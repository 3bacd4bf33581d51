package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockFile is the data directory's lock: held by the one server that
// serves it, for as long as it runs.
const lockFile = "garrison.lock"

// ErrDataDirBusy: another server serves the data directory.
var ErrDataDirBusy = errors.New("the data directory is already served")

// LockDataDir takes the data directory for one server: a second
// `garrison serve` on it would answer the same API and run the same
// background work (the fold, retention, mail, agents) twice. The lock is
// the kernel's (flock), so it ends with the process however it ends; the
// file names the holder's process id for the message. The admin CLI does
// not take it: its commands run beside a server.
func LockDataDir(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := "another process"
		if b, _ := os.ReadFile(path); len(strings.TrimSpace(string(b))) > 0 {
			holder = "process " + strings.TrimSpace(string(b))
		}
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s (%s) already runs garrison serve on %s; stop it first, or give this server another --data",
				ErrDataDirBusy, holder, path, dir)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}
