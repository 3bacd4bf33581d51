package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"time"
)

// The scale run (--scale N): one organization's feed seeded to N events by
// one sender in batches of 10,000 (the most a POST takes), as an MSP's
// collector catching up sends them, with one sender's ingest measured
// when 1,000,000 events are stored and again at N, each on a settled
// server; then the storage per event and the load targets at N.

const (
	scaleBatch = 10_000    // events per POST in the scale run
	scaleFirst = 1_000_000 // where the first ingest phase is measured
	scalePhase = 200_000   // events of each measured phase
)

// scalePoints are where the scale run measures ingest: at 1M stored and
// at n, or, for a run too small for that, at half of n and at n.
func scalePoints(n int) (first, phase int) {
	phase = scalePhase
	if n < 2*scaleFirst {
		phase = max(scaleBatch, n/10/scaleBatch*scaleBatch)
		return max(scaleBatch, n/2/scaleBatch*scaleBatch), phase
	}
	return scaleFirst, phase
}

func scaleIngest(ctx context.Context, o options, g *garrison, smp *sampler, creds credentials, res *results) error {
	first, size := scalePoints(o.scale)
	gen := newGeneratorOf(1, time.Now(), o.scale+2*size, scaleBatch)
	url := g.base() + "/api/events"
	stored := 0
	seedTo := func(target int) error {
		rest := target - stored
		if rest <= 0 {
			return nil
		}
		fmt.Printf("seeding %d more events with 1 sender in batches of %d …\n", rest, scaleBatch)
		smp.watch(g.proc.pid(), "ingest, seeding")
		began := time.Now()
		stop := progress(began, rest)
		if _, _, err := sendAll(ctx, g.cl, url, creds.WriteKey, produce(ctx, gen, rest, stop), 1); err != nil {
			return fmt.Errorf("seeding: %w", err)
		}
		secs := time.Since(began).Seconds()
		res.Seed.Events += rest
		res.Seed.Seconds += secs
		res.Seed.EventsPerSec = float64(res.Seed.Events) / res.Seed.Seconds
		stored = target
		fmt.Printf("seeded to %d events (%.0f events/s)\n", stored, float64(rest)/secs)
		return nil
	}
	phase := func(name string) error {
		bodies := queue(gen.batches(size)) // made before the clock starts
		settle(ctx, g.proc.pid(), 5*time.Minute)
		smp.watch(g.proc.pid(), "ingest, "+name)
		m0, _ := readMachineCPU()
		su0, ss0, _ := procCPU(g.proc.pid())
		self0, _, _ := procCPU(os.Getpid())
		began := time.Now()
		retries, slowest, err := sendAll(ctx, g.cl, url, creds.WriteKey, bodies, 1)
		secs := time.Since(began).Seconds()
		if err != nil {
			return fmt.Errorf("ingest %s: %w", name, err)
		}
		m1, _ := readMachineCPU()
		su1, ss1, _ := procCPU(g.proc.pid())
		self1, _, _ := procCPU(os.Getpid())
		serverCores, otherCores := cpuShares(m0, m1, su1-su0, ss1-ss0,
			time.Duration(self1-self0)*time.Second/ticksPerSecond, runtime.NumCPU())
		pk := smp.get("ingest, " + name)
		r := ingestResult{Phase: name, Senders: 1, Events: size, StoredBefore: stored, Seconds: secs,
			EventsPerSec: float64(size) / secs, Retries503: retries, PeakRSSMiB: pk.RSSMiB, PeakWALMiB: pk.WALMiB,
			SlowestPostMS: ms(slowest), ServerCores: serverCores, OtherCores: otherCores}
		res.Ingest = append(res.Ingest, r)
		stored += size
		fmt.Printf("ingest %-26s %7.0f events/s (%d events in batches of %d, %.2f s, peak RSS %.0f MiB, WAL %.1f MiB; server %.2f cores, others %.2f)\n",
			name+":", r.EventsPerSec, size, scaleBatch, secs, pk.RSSMiB, pk.WALMiB, serverCores, otherCores)
		return nil
	}
	if err := seedTo(first); err != nil {
		return err
	}
	if err := phase(scaleName(stored)); err != nil {
		return err
	}
	if err := seedTo(o.scale); err != nil {
		return err
	}
	if err := phase(scaleName(stored)); err != nil {
		return err
	}
	res.Scale.First, res.Scale.Last = scaleName(first), scaleName(o.scale)
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
	fmt.Printf("stored %d events; quiet %.1f s after the last POST; %.0f bytes/event on disk\n",
		stored, res.Seed.FoldSeconds, res.Storage.BytesPerEvent)
	return ctx.Err()
}

// scaleName names the phase measured with n events stored.
func scaleName(n int) string { return fmt.Sprintf("at %d stored, 1 sender", n) }

// scaleChecks are the scale run's goals: ingest at N stored at least 0.8
// of its rate at 1M, and at most 300 bytes a stored event.
func (r *results) scaleChecks() {
	if r.Scale.Last == "" {
		return
	}
	first, last := r.ingest(r.Scale.First), r.ingest(r.Scale.Last)
	c := check{Target: "scale", What: "ingest " + r.Scale.Last + " ÷ " + r.Scale.First, Goal: "≥ 0.80"}
	if first.EventsPerSec > 0 {
		c.Value = last.EventsPerSec / first.EventsPerSec
		c.Measured = fmt.Sprintf("%.2f× (%.0f ÷ %.0f events/s)", c.Value, last.EventsPerSec, first.EventsPerSec)
		c.Verdict = verdict(c.Value >= 0.8)
	}
	r.Checks = append(r.Checks, c)
	r.Checks = append(r.Checks, check{Target: "scale", What: fmt.Sprintf("bytes on disk per stored event at %d", r.Storage.Events),
		Value: r.Storage.BytesPerEvent, Measured: fmt.Sprintf("%.0f bytes", r.Storage.BytesPerEvent), Goal: "≤ 300",
		Verdict: verdict(r.Storage.BytesPerEvent <= 300)})
}
