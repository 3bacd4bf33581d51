package store

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"

	"garrison/fault"
)

// The data directory keeps a reserve: a file of reserveSize bytes made
// while there is room. When the disk fills, the store lets it go and works
// on what it frees: sign-ins and their audit entries, logouts, alert and
// ticket work go on, and a server stopped on a full disk starts again;
// what fills disks (event ingest, imports) is refused until space comes
// back, when the reserve is made again.

// reserveSize is the reserve of a file system: a 32nd of it, between
// 256 KiB and 16 MiB.
func reserveSize(fs syscall.Statfs_t) int64 {
	return min(max(int64(fs.Blocks)*int64(fs.Bsize)/32, 256<<10), 16<<20)
}

func (s *Store) reservePath() string { return s.path + "-reserve" }

// ErrDiskFull refuses what fills disks while the store works on its reserve.
var ErrDiskFull = &fault.Error{Code: fault.Unavailable, Message: "The disk is full: events and imports are refused until space is freed " +
	"(sign-ins, logouts and alert work go on); nothing was stored, retry later"}

// OnReserve reports whether the disk filled and the store works on its
// reserve.
func (s *Store) OnReserve() bool { return s.onReserve.Load() }

// releaseReserve lets the reserve go, once, when the disk is full. A
// store without a reserve of its own (a command's) uses one a server left
// when it starts on a full disk.
func (s *Store) releaseReserve() {
	if _, err := os.Stat(s.reservePath()); !s.reserve && err != nil {
		return
	}
	if s.onReserve.CompareAndSwap(false, true) {
		os.Remove(s.reservePath())
	}
}

func (s *Store) dir() string { return filepath.Dir(s.path) }

// room is the free space of the data directory's file system and the
// reserve and headroom that size calls for: writes work again with
// headroom free, the reserve is made again with twice the reserve and the
// headroom free.
func (s *Store) room() (free, reserve, headroom int64, err error) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(s.dir(), &fs); err != nil {
		return 0, 0, 0, fmt.Errorf("read the disk's free space: %w", err)
	}
	reserve = reserveSize(fs)
	return int64(fs.Bavail) * int64(fs.Bsize), reserve, reserve / 2, nil
}

// lowOnSpace reports whether less than the headroom is free.
func (s *Store) lowOnSpace() bool {
	free, _, headroom, err := s.room()
	return err == nil && free < headroom
}

// keepReserve makes the reserve when it is missing and there is room for
// it and more; after a full disk it ends work on the reserve. It runs at
// Open and with the health probe.
func (s *Store) keepReserve(log *slog.Logger) error {
	free, size, headroom, err := s.room()
	if err != nil {
		return err
	}
	if st, err := os.Stat(s.reservePath()); err == nil && st.Size() == size && !s.OnReserve() {
		return nil
	}
	if free < 2*size+headroom {
		return nil
	}
	if err := makeReserve(s.reservePath(), size); err != nil {
		return err
	}
	if s.onReserve.CompareAndSwap(true, false) && log != nil {
		log.Info("space is back: the disk reserve is made again; events and imports are taken")
	}
	return nil
}

func makeReserve(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("make the disk reserve: %w", err)
	}
	// Blocks allocated, not a sparse file: they must be there to give back.
	err = syscall.Fallocate(int(f.Fd()), 0, 0, size)
	if errors.Is(err, syscall.EOPNOTSUPP) {
		_, err = f.Write(make([]byte, size))
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("make the disk reserve: %w", err)
	}
	return f.Close()
}
