package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"time"
)

// ingestPhaseSize is the events of each measured ingest phase: 50,000, or
// half of a small --events, in whole batches.
func ingestPhaseSize(events int) int {
	return min(50_000, events/2) / batchSize * batchSize
}

// ingestAll measures ingest on the empty database (1 and then 2 senders),
// seeds the rest of --events, records the storage cost, and measures again
// on the seeded database. Each measured phase starts once the server is
// quiet, so the previous phase's background work does not slow it.
func ingestAll(ctx context.Context, o options, g *garrison, smp *sampler, creds credentials, res *results) error {
	size := ingestPhaseSize(o.events)
	// Every phase's events, in the order they are sent: the first empty
	// phase is the feed's oldest slice, the last seeded one its newest.
	gen := newGenerator(1, time.Now(), o.events+2*size)
	url := g.base() + "/api/events"
	stored := 0
	phase := func(name string, senders int, feed *telemetryFeed) error {
		bodies := queue(gen.batches(size)) // made before the clock starts
		url := url
		if feed != nil {
			url = g.base() + feed.path
			bodies = feedBatches(gen, feed, size)
		}
		r, err := measurePhase(ctx, g, smp, url, creds.WriteKey, name, senders, bodies, size, stored)
		if err != nil {
			return err
		}
		res.Ingest = append(res.Ingest, r)
		stored += size
		fmt.Printf("ingest %-18s %7.0f events/s (%d events, %.2f s, peak RSS %.0f MiB, WAL %.1f MiB; server %.2f cores, others %.2f)\n",
			name+":", r.EventsPerSec, size, r.Seconds, r.PeakRSSMiB, r.PeakWALMiB, r.ServerCores, r.OtherCores)
		return nil
	}
	if err := phase("empty, 1 sender", 1, nil); err != nil {
		return err
	}
	if err := phase("empty, 2 senders", 2, nil); err != nil {
		return err
	}

	if rest := o.events - stored; rest > 0 {
		fmt.Printf("seeding %d more events with 2 senders …\n", rest)
		smp.watch(g.proc.pid(), "ingest, seeding")
		began := time.Now()
		stop := progress(began, rest)
		_, _, err := sendAll(ctx, g.cl, url, creds.WriteKey, produce(ctx, gen, rest, stop), 2)
		if err != nil {
			return fmt.Errorf("seeding: %w", err)
		}
		res.Seed.Events, res.Seed.Seconds = rest, time.Since(began).Seconds()
		res.Seed.EventsPerSec = float64(rest) / res.Seed.Seconds
		stored += rest
		fmt.Printf("seeded %d events in %.1f s (%.0f events/s)\n", rest, res.Seed.Seconds, res.Seed.EventsPerSec)
	}
	recordSeeded(ctx, g, smp, res, stored)
	anon, _ := procStatusKB(g.proc.pid(), "RssAnon")
	file, _ := procStatusKB(g.proc.pid(), "RssFile")
	fmt.Printf("stored %d events; quiet %.1f s after the last POST; idle RSS %.1f MiB (anonymous %.1f, the binary and other files %.1f); %.0f bytes/event on disk\n",
		stored, res.Seed.FoldSeconds, res.Memory.IdleAfterSeedMiB, float64(anon)/1024, float64(file)/1024, res.Storage.BytesPerEvent)

	if err := phase("seeded, 1 sender", 1, nil); err != nil {
		return err
	}
	if err := phase("seeded, 2 senders", 2, nil); err != nil {
		return err
	}
	// Windows events and syslog lines at the same size, right after native
	// ingest on the same seeded database: their ratio to it is the goal.
	// Each feed with every shipped detection rule on (the default), right
	// after the same feed with all of them off: their ratio is what
	// detection costs ingest.
	for i := range telemetryFeeds {
		f := &telemetryFeeds[i]
		if err := setDetection(ctx, g, creds.AdminKey, false); err != nil {
			return err
		}
		if err := phase("seeded, 2 senders, "+f.name+", detection off", 2, f); err != nil {
			return err
		}
		if err := setDetection(ctx, g, creds.AdminKey, true); err != nil {
			return err
		}
		if err := phase("seeded, 2 senders, "+f.name, 2, f); err != nil {
			return err
		}
	}
	settle(ctx, g.proc.pid(), 10*time.Minute)
	return ctx.Err()
}

// setDetection turns every detection rule set of the bench organization
// off, or back to the default (all on). Listing the sets compiles the
// shipped rules, which the server does once, on first use: before either
// phase is measured.
func setDetection(ctx context.Context, g *garrison, adminKey string, on bool) error {
	var sets struct {
		Data []struct {
			Name string `json:"name"`
		} `json:"data"`
	}
	if err := call(ctx, g.cl, http.MethodGet, g.base()+"/api/detection-rule-sets", adminKey, nil, http.StatusOK, &sets); err != nil {
		return fmt.Errorf("detection rule sets: %w", err)
	}
	choice := map[string]any{"enabled": false}
	if on {
		choice["enabled"] = nil
	}
	for _, s := range sets.Data {
		if err := call(ctx, g.cl, http.MethodPut, g.base()+"/api/detection-rule-sets/"+s.Name, adminKey, choice, http.StatusOK, nil); err != nil {
			return fmt.Errorf("detection rule set %s: %w", s.Name, err)
		}
	}
	return nil
}

// progress returns a function the producer calls per batch handed out; it
// prints a line every 100,000 events.
func progress(began time.Time, total int) func(done int) { return progressEvery(began, total, 100_000) }

// progressEvery is progress with a line every that many events.
func progressEvery(began time.Time, total, every int) func(done int) {
	next := every
	return func(done int) {
		if done >= next && done < total {
			fmt.Printf("  %d of %d (%.0f events/s)\n", done, total, float64(done)/time.Since(began).Seconds())
			next += every
		}
	}
}

// feedBatches makes n records of a feed in batches of batchSize, before
// the clock starts.
func feedBatches(g *generator, f *telemetryFeed, n int) <-chan batch {
	ch := make(chan batch, n/batchSize+1)
	for n > 0 {
		k := min(n, batchSize)
		ch <- batch{body: f.appendBatch(g, make([]byte, 0, k*300), k), contentType: f.contentType, want: k}
		n -= k
	}
	close(ch)
	return ch
}

// measurePhase sends a phase's bodies once the server is quiet, so the
// previous phase's background work does not slow it, and measures it: the
// rate, the server's peak RSS and WAL, and the cores it and other
// programs used.
func measurePhase(ctx context.Context, g *garrison, smp *sampler, url, key, name string, senders int, bodies <-chan batch,
	size, stored int) (ingestResult, error) {
	settle(ctx, g.proc.pid(), 5*time.Minute)
	smp.watch(g.proc.pid(), "ingest, "+name)
	m0, _ := readMachineCPU()
	su0, ss0, _ := procCPU(g.proc.pid())
	self0, _, _ := procCPU(os.Getpid())
	began := time.Now()
	retries, slowest, err := sendAll(ctx, g.cl, url, key, bodies, senders)
	secs := time.Since(began).Seconds()
	if err != nil {
		return ingestResult{}, fmt.Errorf("ingest %s: %w", name, err)
	}
	m1, _ := readMachineCPU()
	su1, ss1, _ := procCPU(g.proc.pid())
	self1, _, _ := procCPU(os.Getpid())
	serverCores, otherCores := cpuShares(m0, m1, su1-su0, ss1-ss0,
		time.Duration(self1-self0)*time.Second/ticksPerSecond, runtime.NumCPU())
	pk := smp.get("ingest, " + name)
	return ingestResult{Phase: name, Senders: senders, Events: size, StoredBefore: stored, Seconds: secs,
		EventsPerSec: float64(size) / secs, Retries503: retries, PeakRSSMiB: pk.RSSMiB, PeakWALMiB: pk.WALMiB,
		SlowestPostMS: ms(slowest), ServerCores: serverCores, OtherCores: otherCores}, nil
}

// recordSeeded waits for the background work that follows the last POST
// (the fold, checkpoints), says how long it took, and records the idle
// memory and the storage per stored event.
func recordSeeded(ctx context.Context, g *garrison, smp *sampler, res *results, stored int) {
	done := time.Now()
	smp.watch(g.proc.pid(), "idle, seeded")
	busyUntil, err := settle(ctx, g.proc.pid(), 10*time.Minute)
	if err != nil {
		res.Notes = append(res.Notes, "after seeding the server "+err.Error())
	}
	res.Seed.FoldSeconds = max(0, busyUntil.Sub(done).Seconds())
	res.Memory.IdleAfterSeedMiB = settledRSS(ctx, g)
	db, wal := g.dbBytes()
	res.Storage.Events, res.Storage.DBBytes, res.Storage.WALBytes = stored, db, wal
	res.Storage.BytesPerEvent = float64(db+wal) / float64(stored)
}
