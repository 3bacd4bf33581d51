package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// restarts is how many cold starts are timed on each database; the median
// is checked, since one start can be unlucky.
const restarts = 3

// measure runs the whole suite in tmp and returns what it measured.
func measure(ctx context.Context, o options, tmp string) (*results, error) {
	res := &results{Time: time.Now().UTC().Format(time.RFC3339), GoVersion: runtime.Version(), CPUs: runtime.NumCPU(),
		Config: config{Events: o.events, Scale: o.scale, Duration: o.duration.String(), Connections: o.connections, Threads: 2,
			Only: o.only, ExtraFlags: o.extra}}
	res.Commit = commitOf(o.repo)
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		res.Kernel = strings.TrimSpace(string(b))
	}
	if err := ensureWrk(ctx); err != nil {
		return nil, err
	}
	out, _ := exec.Command("wrk", "-v").CombinedOutput() // exits 1 after printing its version
	res.Wrk = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])

	fmt.Println("building garrison …")
	g := &garrison{bin: filepath.Join(tmp, "garrison"), dir: tmp, extra: strings.Fields(o.extra), cl: insecureClient(2 * time.Minute)}
	if o.pgo != "" {
		g.profiles = filepath.Join(tmp, "profiles")
		if err := os.Mkdir(g.profiles, 0o755); err != nil {
			return nil, err
		}
	}
	if err := buildGarrison(ctx, o.repo, g.bin); err != nil {
		return nil, err
	}
	var err error
	if g.addr, err = freeAddr(); err != nil {
		return nil, err
	}
	smp := newSampler(g.dbPath() + "-wal")
	defer smp.stop()

	if err := coldStarts(ctx, g, res); err != nil {
		return nil, err
	}
	creds, err := g.setup(ctx)
	if err != nil {
		return nil, err
	}
	smp.watch(g.proc.pid(), "idle, empty")
	res.Memory.IdleAfterStartMiB = settledRSS(ctx, g)
	fmt.Printf("idle RSS after start: %.1f MiB\n", res.Memory.IdleAfterStartMiB)

	if o.scale > 0 {
		err = scaleIngest(ctx, o, g, smp, creds, res)
	} else {
		err = ingestAll(ctx, o, g, smp, creds, res)
	}
	if err != nil {
		return nil, err
	}
	// After the ingest figures, which stay those of one organization's
	// feed; the clients' events are in the cold starts and loads below.
	if wantTargets(o)["clients"] {
		if err := seedClients(ctx, o, g, smp, creds, res); err != nil {
			return nil, err
		}
	}

	// Stop the server to copy its database for the limit server, then time
	// cold starts on the seeded data.
	smp.watch(0, "stopped")
	stopping := time.Now()
	g.stop()
	res.ColdStart.StopAfterSeedS = time.Since(stopping).Seconds()
	limitDB := filepath.Join(tmp, "limit", "garrison.db")
	if err := copyDB(g.dbPath(), limitDB); err != nil {
		return nil, err
	}
	if o.scale > 0 {
		storageBreakdown(ctx, limitDB, res)
	}
	res.ColdStart.SeededEvents = res.Storage.Events + 2*ingestPhaseSize(o.events)
	if o.scale > 0 { // its measured phases are in the stored count
		res.ColdStart.SeededEvents = res.Storage.Events
	}
	if res.Clients != nil {
		res.ColdStart.SeededEvents += res.Clients.Events
	}
	for i := range restarts {
		if i > 0 {
			g.stop()
		}
		d, err := g.start(ctx)
		if err != nil {
			return nil, err
		}
		res.ColdStart.SeededMS = append(res.ColdStart.SeededMS, ms(d))
	}
	fmt.Printf("cold start with %d events: %s ms\n", res.ColdStart.SeededEvents, msList(res.ColdStart.SeededMS))
	smp.watch(g.proc.pid(), "idle, restarted")
	res.Memory.IdleAfterRestartMiB = settledRSS(ctx, g)

	loads, err := startTargets(ctx, o, g, creds, limitDB, tmp, res)
	if err != nil {
		return nil, err
	}
	if err := loadAll(ctx, o, g, smp, loads, res); err != nil {
		return nil, err
	}
	res.Load = loads
	for _, p := range smp.all() {
		if strings.HasPrefix(p.Phase, "ingest") || strings.HasPrefix(p.Phase, "load") {
			res.Memory.PeakUnderLoadMiB = max(res.Memory.PeakUnderLoadMiB, p.RSSMiB)
		}
	}
	res.Memory.WALPeakMiB = smp.overall().WALMiB
	res.Memory.Phases = smp.all()
	if out := strings.TrimSpace(g.proc.output()); out != "" {
		res.Notes = append(res.Notes, "the server logged warnings or errors:\n"+lastLines(out, 10))
	}
	return res, nil
}

// coldStarts times the first start (which creates the database and the
// certificate) and then restarts on the empty database.
func coldStarts(ctx context.Context, g *garrison, res *results) error {
	d, err := g.start(ctx)
	if err != nil {
		return err
	}
	res.ServerCommand = g.proc.cmdline
	fmt.Println("server:", res.ServerCommand)
	res.ColdStart.FirstStartMS = ms(d)
	for range restarts {
		g.stop()
		if d, err = g.start(ctx); err != nil {
			return err
		}
		res.ColdStart.EmptyMS = append(res.ColdStart.EmptyMS, ms(d))
	}
	fmt.Printf("cold start, empty database: first %.0f ms, then %s ms\n", res.ColdStart.FirstStartMS, msList(res.ColdStart.EmptyMS))
	return nil
}

// settledRSS waits for the server's background work to end and for it to
// hand idle memory back (its trimmer looks every 5 s; two idle looks in a
// row after work empty the store's caches and return the heap), then reads
// its RSS.
func settledRSS(ctx context.Context, g *garrison) float64 {
	settle(ctx, g.proc.pid(), 5*time.Minute)
	sleep(ctx, 15*time.Second)
	return rssMiB(g.proc.pid())
}

// copyDB copies a stopped server's database (and WAL, if any is left).
func copyDB(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	for _, suffix := range []string{"", "-wal"} {
		in, err := os.Open(src + suffix)
		if errors.Is(err, os.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(dst + suffix)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
	return nil
}

// commitOf names the commit measured, with "+dirty" when the work tree
// differs from it (others may be changing the server as this runs).
func commitOf(repo string) string {
	out, err := exec.Command("git", "-C", repo, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", repo, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
