package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"garrison/bench/internal/dbstat"
)

// results is everything one run measured; it is written as JSON.
type results struct {
	Time          string   `json:"time"`
	Commit        string   `json:"commit,omitempty"`
	GoVersion     string   `json:"go_version"`
	CPUs          int      `json:"cpus"`
	Kernel        string   `json:"kernel,omitempty"`
	Wrk           string   `json:"wrk,omitempty"`
	PocketBase    string   `json:"pocketbase,omitempty"` // the version built, when it was
	Config        config   `json:"config"`
	ServerCommand string   `json:"server_command"`
	Notes         []string `json:"notes,omitempty"`

	ColdStart struct {
		FirstStartMS float64   `json:"first_start_ms"` // creates the database and the certificate
		EmptyMS      []float64 `json:"empty_ms"`
		SeededMS     []float64 `json:"seeded_ms"`
		SeededEvents int       `json:"seeded_events"`
		// The graceful stop after seeding, which folds and checkpoints.
		StopAfterSeedS float64 `json:"stop_after_seed_seconds"`
	} `json:"cold_start"`

	Ingest []ingestResult `json:"ingest"`
	Seed   struct {
		Events       int     `json:"events"`
		Seconds      float64 `json:"seconds"`
		EventsPerSec float64 `json:"events_per_sec"`
		FoldSeconds  float64 `json:"background_seconds_after"` // until the server was quiet again
	} `json:"seed"`

	Memory struct {
		IdleAfterStartMiB   float64     `json:"idle_after_start_mib"`
		IdleAfterSeedMiB    float64     `json:"idle_after_seed_mib"`
		IdleAfterRestartMiB float64     `json:"idle_after_restart_mib"`
		PeakUnderLoadMiB    float64     `json:"peak_under_load_mib"`
		WALPeakMiB          float64     `json:"wal_peak_mib"`
		Phases              []namedPeak `json:"phases"`
	} `json:"memory"`

	Storage struct {
		Events        int     `json:"events"`
		DBBytes       int64   `json:"db_bytes"`
		WALBytes      int64   `json:"wal_bytes"`
		BytesPerEvent float64 `json:"bytes_per_event"`
	} `json:"storage_after_seed"`

	// The scale run's two ingest phases, when it ran (--scale).
	Scale scaleResult `json:"scale"`

	// Where the bytes go, table by table and index by index (dbstat on a
	// copy of the stopped server's database), in the scale run.
	StorageBreakdown *dbstat.Report `json:"storage_breakdown,omitempty"`

	// The clients target's seeding and first reads, when it ran.
	Clients *clientsResult `json:"clients,omitempty"`

	Load    []*loadResult `json:"load"`
	Checks  []check       `json:"checks"`
	Skipped []string      `json:"skipped,omitempty"`
	Pass    bool          `json:"pass"`
}

type config struct {
	Events       int    `json:"events"`
	Scale        int    `json:"scale,omitempty"`         // --scale, the scale run
	Clients      int    `json:"clients,omitempty"`       // made when the clients target ran
	ClientEvents int    `json:"client_events,omitempty"` // seeded among them, besides events
	Duration     string `json:"duration"`
	Connections  int    `json:"connections"`
	Threads      int    `json:"threads"`
	Only         string `json:"only,omitempty"`
	ExtraFlags   string `json:"extra_flags,omitempty"`
}

// loadResult is one target's runs and their means.
type loadResult struct {
	target
	Runs          []wrkRun `json:"runs"`
	MeanReqPerSec float64  `json:"mean_req_per_sec"`
	MeanP50ms     float64  `json:"mean_p50_ms"`
	MeanP99ms     float64  `json:"mean_p99_ms"`
	Non2xx        int64    `json:"non_2xx"`
	SocketErrors  int64    `json:"socket_errors"`
	Unanswered    int      `json:"runs_without_answers,omitempty"` // runs in which no request completed
	PeakRSSMiB    float64  `json:"server_peak_rss_mib,omitempty"`  // Garrison targets only
	ResponseBytes int      `json:"response_bytes"`                 // of one answer, before the load
	Items         int      `json:"items,omitempty"`                // in that answer's list, if it is one
}

// summarize averages the runs. A run in which no request completed has no
// latency to average: its 0 would flatter the mean, so only req/s counts it.
func (l *loadResult) summarize() {
	n := float64(len(l.Runs))
	answered := 0.0
	l.MeanReqPerSec, l.MeanP50ms, l.MeanP99ms, l.Non2xx, l.SocketErrors, l.Unanswered = 0, 0, 0, 0, 0, 0
	for _, r := range l.Runs {
		l.MeanReqPerSec += r.ReqPerSec / n
		l.Non2xx += r.Non2xx
		l.SocketErrors += r.SocketErrors
		if r.Requests == 0 {
			l.Unanswered++
			continue
		}
		answered++
		l.MeanP50ms += r.P50ms
		l.MeanP99ms += r.P99ms
	}
	if answered > 0 {
		l.MeanP50ms /= answered
		l.MeanP99ms /= answered
	}
}

// clean is whether every request got a 2xx: a rate of errors says nothing.
func (l *loadResult) clean() bool { return l.Non2xx == 0 && l.SocketErrors == 0 && l.Unanswered == 0 }

// writeJSON writes the results to path, creating its directory.
func (r *results) writeJSON(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// printTables writes the load table, then every other figure and check.
func (r *results) printTables(w io.Writer) {
	byTarget := map[string][]check{}
	for _, c := range r.Checks {
		byTarget[c.Target] = append(byTarget[c.Target], c)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\trun 1 req/s\trun 2 req/s\tmean req/s\tp50 ms\tp99 ms\tnon-2xx\tanswer\tcheck\tmeasured\tgoal\tresult")
	for _, l := range r.Load {
		cells := []string{"-", "-"}
		for i, run := range l.Runs {
			if i < 2 {
				cells[i] = fmt.Sprintf("%.0f", run.ReqPerSec)
				if run.disturbed() {
					cells[i] += "*"
				}
			}
		}
		bad := fmt.Sprint(l.Non2xx)
		if l.SocketErrors > 0 {
			bad += fmt.Sprintf(" (+%d socket errors)", l.SocketErrors)
		}
		if l.Unanswered > 0 {
			bad += fmt.Sprintf(" (%d run(s) with no answer)", l.Unanswered)
		}
		answer := fmt.Sprintf("%d B", l.ResponseBytes)
		if l.Items > 0 {
			answer += fmt.Sprintf(", %d items", l.Items)
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%.0f\t%.2f\t%.2f\t%s\t%s", l.Name, cells[0], cells[1], l.MeanReqPerSec, l.MeanP50ms, l.MeanP99ms, bad, answer)
		cs := byTarget[l.Name]
		if len(cs) == 0 {
			fmt.Fprintln(tw, row+"\t\t\t\t")
		}
		for i, c := range cs {
			if i > 0 {
				row = "\t\t\t\t\t\t\t"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row, c.What, c.Measured, c.Goal, c.Verdict)
		}
	}
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tmeasured\tgoal\tresult")
	for _, c := range r.Checks {
		switch {
		case r.isLoadTarget(c.Target): // in the table above
		case c.Target == "ingest" || c.Target == "memory" || c.Target == "cold-start":
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.What, c.Measured, c.Goal, c.Verdict)
		default: // a load target --only left out
			fmt.Fprintf(tw, "%s: %s\t%s\t%s\t%s\n", c.Target, c.What, c.Measured, c.Goal, c.Verdict)
		}
	}
	for _, f := range r.infoFigures() {
		fmt.Fprintf(tw, "%s\t%s\t\t-\n", f[0], f[1])
	}
	tw.Flush()
	if b := r.StorageBreakdown; b != nil {
		fmt.Fprintf(w, "\nwhere the bytes go (dbstat on a copy of the stopped server's database, %d events, %.1f MiB):\n",
			b.Events, float64(b.FileBytes)/(1<<20))
		b.Write(w, 0.5)
	}
	for _, c := range r.Checks {
		if c.Note != "" && c.Verdict != "SKIP" {
			fmt.Fprintf(w, "note: %s (%s): %s\n", c.Target, c.What, c.Note)
		}
	}
	if d := r.disturbances(); d != "" {
		fmt.Fprintln(w, d)
	}
	for _, s := range r.Skipped {
		fmt.Fprintln(w, s)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
}

// disturbances lists the runs other programs may have slowed, or "".
func (r *results) disturbances() string {
	var ingest, load []string
	for _, in := range r.Ingest {
		if in.OtherCores > 0.1 {
			ingest = append(ingest, fmt.Sprintf("ingest %s (%.2f)", in.Phase, in.OtherCores))
		}
	}
	n := 0
	for _, l := range r.Load {
		for i, run := range l.Runs {
			n++
			if run.disturbed() {
				load = append(load, fmt.Sprintf("round %d %s (%.2f, %.0f%% idle before)", i+1, l.Name, run.OtherCores, 100*run.IdleBefore))
			}
		}
	}
	if len(ingest)+len(load) == 0 {
		return ""
	}
	return fmt.Sprintf("* other programs shared the machine in %d of %d load runs and %d of %d ingest phases "+
		"(cores they used in user time; how idle the machine was before): %s.\n"+
		"  Figures from these runs are low by an unknown amount; compare the rounds, and run again on a quiet machine.",
		len(load), n, len(ingest), len(r.Ingest), strings.Join(append(ingest, load...), ", "))
}

func (r *results) isLoadTarget(name string) bool {
	for _, l := range r.Load {
		if l.Name == name {
			return true
		}
	}
	return false
}

// infoFigures are reported without a goal.
func (r *results) infoFigures() [][2]string {
	var out [][2]string
	add := func(name, format string, args ...any) {
		out = append(out, [2]string{name, fmt.Sprintf(format, args...)})
	}
	add("first start (creates db and cert)", "%.0f ms", r.ColdStart.FirstStartMS)
	add("cold start, empty db", "%s ms", msList(r.ColdStart.EmptyMS))
	add("cold start, seeded db", "%s ms", msList(r.ColdStart.SeededMS))
	add("graceful stop after seeding", "%.1f s", r.ColdStart.StopAfterSeedS)
	for _, in := range r.Ingest {
		note := ""
		if in.OtherCores > 0.1 {
			note = fmt.Sprintf(", others used %.2f cores*", in.OtherCores)
		}
		if in.Retries503 > 0 {
			note = fmt.Sprintf(", %d retries after 503", in.Retries503)
		}
		add("ingest "+in.Phase, "%.0f events/s (%d events in %.2f s, %d stored before, slowest POST %.0f ms, peak RSS %.0f MiB, WAL %.1f MiB%s)",
			in.EventsPerSec, in.Events, in.Seconds, in.StoredBefore, in.SlowestPostMS, in.PeakRSSMiB, in.PeakWALMiB, note)
	}
	if r.Seed.Events > 0 {
		how := "seeding (2 senders)"
		if r.Scale.Last != "" {
			how = "seeding (1 sender, batches of 10,000)"
		}
		add(how, "%.0f events/s (%d events in %.1f s)", r.Seed.EventsPerSec, r.Seed.Events, r.Seed.Seconds)
	}
	add("background work after the last POST", "%.1f s (until the server was quiet)", r.Seed.FoldSeconds)
	if c := r.Clients; c != nil {
		add("clients: made (POST /api/clients)", "%d in %.1f s", c.Clients, c.CreateSeconds)
		add("clients: seeding among them (2 senders)", "%.0f events/s (%d events in %.1f s, %d retries after 503; quiet %.1f s after the last POST)",
			c.EventsPerSec, c.Events, c.SeedSeconds, c.Retries503, c.BackgroundSecondsAfter)
		add("clients: cold first read (computes every score)", "%.0f ms (server CPU %.2f s; machine %.0f%% idle before)",
			c.ColdFirstReadMS, c.ColdFirstReadCPUSecs, 100*c.ColdIdleBefore)
		add("clients: second read (scores kept)", "%.1f ms", c.WarmReadMS)
		add("clients: fleet view once warm", "%d listed, %d with open alerts (%d alerts; %d with a critical one), %d silent",
			c.Listed, c.WithOpenAlerts, c.OpenAlerts, c.OpenCriticalClients, c.Silent)
	}
	add("idle RSS after start", "%.1f MiB", r.Memory.IdleAfterStartMiB)
	add("idle RSS after restart on seeded db", "%.1f MiB", r.Memory.IdleAfterRestartMiB)
	add("database after seeding", "%d events, db %.1f MiB + wal %.1f MiB = %.0f bytes/event (db alone %.0f)",
		r.Storage.Events, float64(r.Storage.DBBytes)/(1<<20), float64(r.Storage.WALBytes)/(1<<20), r.Storage.BytesPerEvent,
		float64(r.Storage.DBBytes)/float64(max(1, r.Storage.Events)))
	return out
}

func msList(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	s := ""
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.0f", x)
	}
	return s
}
