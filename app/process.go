package app

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"garrison/agents"
	"garrison/contact"
	"garrison/metrics"
	"garrison/store"
)

// The app's own counters.
const (
	mailDeliveriesName   = "garrison_mail_deliveries_total"
	mailDeliveriesHelp   = "Outbox delivery attempts, by outcome."
	notifyDeliveriesName = "garrison_notification_deliveries_total"
	notifyDeliveriesHelp = "Notification delivery attempts, by contact point kind and outcome (delivered, retry, failed)."
	agentRunsName        = "garrison_agent_runs_total"
	agentRunsHelp        = "Agent runs ended, by agent and status."
)

// declareCounters makes the app's counters present, at zero for every
// outcome they count, from the first scrape.
func (a *App) declareCounters() {
	a.Metrics.Declare(mailDeliveriesName, mailDeliveriesHelp, []string{"outcome", "sent"}, []string{"outcome", "logged"},
		[]string{"outcome", "failed"})
	var deliveries [][]string
	for _, kind := range contact.Kinds {
		for _, outcome := range []string{"delivered", "retry", "failed"} {
			deliveries = append(deliveries, []string{"channel", kind, "outcome", outcome})
		}
	}
	a.Metrics.Declare(notifyDeliveriesName, notifyDeliveriesHelp, deliveries...)
	var runs [][]string
	for _, slug := range agents.Slugs() {
		for _, status := range []string{store.RunCompleted, store.RunFailed} {
			runs = append(runs, []string{"agent", slug, "status", status})
		}
	}
	a.Metrics.Declare(agentRunsName, agentRunsHelp, runs...)
}

// processStart is when this process started, as Prometheus' process
// collectors report it.
var processStart = time.Now()

// registerProcess adds garrison_build_info and the standard process_*
// gauges, read from /proc where the kernel keeps them (absent elsewhere).
func registerProcess(m *metrics.Registry, version string) {
	if version == "" {
		version = "devel"
	}
	m.Gauge("garrison_build_info", "The running build: its version and Go version, value 1.", func() []metrics.Sample {
		return []metrics.Sample{{Labels: []string{"version", version, "goversion", runtime.Version()}, Value: 1}}
	})
	m.Gauge("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.", func() []metrics.Sample {
		return []metrics.Sample{{Value: float64(processStart.UnixNano()) / 1e9}}
	})
	stat := func(read func(s procStat) float64) func() []metrics.Sample {
		return func() []metrics.Sample {
			s, ok := readProcStat()
			if !ok {
				return nil
			}
			return []metrics.Sample{{Value: read(s)}}
		}
	}
	m.CounterFunc("process_cpu_seconds_total", "User and system CPU time spent, in seconds.", stat(func(s procStat) float64 { return s.cpuSeconds }))
	m.Gauge("process_resident_memory_bytes", "Resident memory size, in bytes.", stat(func(s procStat) float64 { return s.rss }))
	m.Gauge("process_virtual_memory_bytes", "Virtual memory size, in bytes.", stat(func(s procStat) float64 { return s.vsize }))
	m.Gauge("process_open_fds", "Open file descriptors.", func() []metrics.Sample {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			return nil
		}
		return []metrics.Sample{{Value: float64(len(fds))}}
	})
	m.Gauge("process_max_fds", "The most file descriptors the process may open.", func() []metrics.Sample {
		n, ok := maxFDs()
		if !ok {
			return nil
		}
		return []metrics.Sample{{Value: n}}
	})
}

// procStat is what /proc/self/stat says of the process.
type procStat struct{ cpuSeconds, vsize, rss float64 }

// clockTicks is USER_HZ, which Linux fixes at 100 for /proc's tick counts.
const clockTicks = 100

func readProcStat() (procStat, bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from after its closing one (field 3, the state, is first).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 22 {
		return procStat{}, false
	}
	num := func(k int) float64 { v, _ := strconv.ParseFloat(f[k-3], 64); return v } // k: the field's number in proc(5)
	return procStat{cpuSeconds: (num(14) + num(15)) / clockTicks, vsize: num(23), rss: num(24) * float64(os.Getpagesize())}, true
}

func maxFDs() (float64, bool) {
	b, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if v, err := strconv.ParseFloat(f[0], 64); err == nil {
					return v, true
				}
			}
		}
	}
	return 0, false
}
