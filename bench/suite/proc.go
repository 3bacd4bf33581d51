package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// This file reads /proc: a process's memory and CPU time, and how idle the
// whole machine is. Linux only, like the servers it measures.

// procStatusKB reads one kB field (VmRSS, VmHWM) of /proc/<pid>/status.
func procStatusKB(pid int, field string) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if ok && name == field {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no " + field + " in /proc/" + strconv.Itoa(pid) + "/status")
}

// rssMiB is a process's resident set size now, 0 if it cannot be read.
func rssMiB(pid int) float64 {
	kb, _ := procStatusKB(pid, "VmRSS")
	return float64(kb) / 1024
}

// cpuTicks is the user+system CPU time of a process in clock ticks.
func cpuTicks(pid int) (int64, error) {
	u, s, err := procCPU(pid)
	return u + s, err
}

// procCPU is the user and system CPU time of a process in clock ticks.
func procCPU(pid int) (user, sys int64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// The command name may hold spaces; the fields after it are fixed.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, errors.New("malformed /proc/pid/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, 0, errors.New("short /proc/pid/stat")
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	user, err1 := strconv.ParseInt(f[11], 10, 64)
	sys, err2 := strconv.ParseInt(f[12], 10, 64)
	return user, sys, errors.Join(err1, err2)
}

// ticksPerSecond is USER_HZ, the unit of /proc/<pid>/stat: 100 on Linux.
const ticksPerSecond = 100

// settle waits until the process has been quiet (under 5 % of one core)
// for a whole second, at most limit: its background work (the event fold,
// checkpoints) is done. It reads the CPU time every 100 ms and returns
// when the process last did work (the end of the last 100 ms in which it
// used 20 ms of CPU or more), so callers can tell how long that work took.
func settle(ctx context.Context, pid int, limit time.Duration) (busyUntil time.Time, err error) {
	const slice, window = 100 * time.Millisecond, 10
	began := time.Now()
	busyUntil = began
	var used []int64 // ticks per slice, newest last
	last, err := cpuTicks(pid)
	if err != nil {
		return busyUntil, err
	}
	for {
		if err := sleep(ctx, slice); err != nil {
			return busyUntil, err
		}
		now, err := cpuTicks(pid)
		if err != nil {
			return busyUntil, err
		}
		d := now - last
		last = now
		if d >= 2 {
			busyUntil = time.Now()
		}
		if used = append(used, d); len(used) > window {
			used = used[1:]
		}
		var sum int64
		for _, u := range used {
			sum += u
		}
		if len(used) == window && float64(sum)/ticksPerSecond < 0.05 {
			return busyUntil, nil
		}
		if time.Since(began) > limit {
			return busyUntil, fmt.Errorf("still busy after %s", limit.Round(time.Second))
		}
	}
}

// machineCPU is the aggregate line of /proc/stat in clock ticks.
type machineCPU struct {
	user  int64 // user and nice: time in programs
	idle  int64 // idle and iowait
	total int64
}

func readMachineCPU() (machineCPU, error) {
	var m machineCPU
	f, err := os.Open("/proc/stat")
	if err != nil {
		return m, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return m, errors.New("empty /proc/stat")
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 6 || fields[0] != "cpu" {
		return m, errors.New("no cpu line in /proc/stat")
	}
	for i, v := range fields[1:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return m, err
		}
		switch {
		case i >= 8: // guest and guest_nice are already in user and nice
		case i <= 1:
			m.user += n
		case i == 3 || i == 4:
			m.idle += n
		}
		if i < 8 {
			m.total += n
		}
	}
	return m, nil
}

// waitIdle waits until the machine is at least 90 % idle over a one-second
// window, for at most limit, so one target's leftovers (a server finishing
// requests, the fold catching up) do not slow the next. It returns the
// idle fraction of the last window.
func waitIdle(ctx context.Context, limit time.Duration) float64 {
	deadline := time.Now().Add(limit)
	for {
		a, err := readMachineCPU()
		if err != nil {
			return -1
		}
		if sleep(ctx, time.Second) != nil {
			return -1
		}
		b, err := readMachineCPU()
		if err != nil || b.total == a.total {
			return -1
		}
		idle := float64(b.idle-a.idle) / float64(b.total-a.total)
		if idle >= 0.9 || time.Now().After(deadline) {
			return idle
		}
	}
}

// sleep waits for d or until ctx is done, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
