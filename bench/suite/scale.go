package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"garrison/bench/internal/dbstat"
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
// at n, in phases of 200,000; or, for a run too small for that (under 1M
// and a phase), at half of n and at n, in phases of a tenth of n (whole
// batches, at least one).
func scalePoints(n int) (first, phase int, half bool) {
	if n >= scaleFirst+scalePhase {
		return scaleFirst, scalePhase, false
	}
	return max(scaleBatch, n/2/scaleBatch*scaleBatch), max(scaleBatch, n/10/scaleBatch*scaleBatch), true
}

// scaleResult is the scale run's two ingest phases and their ratio.
type scaleResult struct {
	N                 int     `json:"n,omitempty"`
	First             string  `json:"first_phase,omitempty"` // names in the ingest list
	Last              string  `json:"last_phase,omitempty"`
	FirstStored       int     `json:"first_stored,omitempty"` // events stored when each began
	LastStored        int     `json:"last_stored,omitempty"`
	PhaseEvents       int     `json:"phase_events,omitempty"`
	FirstEventsPerSec float64 `json:"first_events_per_sec,omitempty"`
	LastEventsPerSec  float64 `json:"last_events_per_sec,omitempty"`
	Ratio             float64 `json:"ratio,omitempty"` // last ÷ first
	Note              string  `json:"note,omitempty"`  // when the first phase is not at 1M
}

func scaleIngest(ctx context.Context, o options, g *garrison, smp *sampler, creds credentials, res *results) error {
	first, size, half := scalePoints(o.scale)
	res.Scale.N, res.Scale.PhaseEvents = o.scale, size
	if half {
		res.Scale.Note = fmt.Sprintf("--scale %d is under %d (1,000,000 and a phase): the first phase is measured at half of it, "+
			"%d stored, instead of at 1,000,000, and each phase is %d events (a tenth of it) instead of %d",
			o.scale, scaleFirst+scalePhase, first, size, scalePhase)
		fmt.Println("scale run:", res.Scale.Note)
	} else {
		fmt.Printf("scale run: seeding to %d events; one sender's ingest measured at %d stored and at %d, %d events each\n",
			o.scale, first, o.scale, size)
	}
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
		every := 100_000
		if rest > 2_000_000 {
			every = 500_000
		}
		stop := progressEvery(began, rest, every)
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
		r, err := measurePhase(ctx, g, smp, url, creds.WriteKey, name, 1, bodies, size, stored)
		if err != nil {
			return err
		}
		res.Ingest = append(res.Ingest, r)
		stored += size
		fmt.Printf("ingest %-26s %7.0f events/s (%d events in batches of %d, %.2f s, peak RSS %.0f MiB, WAL %.1f MiB; server %.2f cores, others %.2f)\n",
			name+":", r.EventsPerSec, size, scaleBatch, r.Seconds, r.PeakRSSMiB, r.PeakWALMiB, r.ServerCores, r.OtherCores)
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
	sc := &res.Scale
	sc.First, sc.Last = scaleName(first), scaleName(o.scale)
	a, b := res.ingest(sc.First), res.ingest(sc.Last)
	sc.FirstStored, sc.LastStored = a.StoredBefore, b.StoredBefore
	sc.FirstEventsPerSec, sc.LastEventsPerSec = a.EventsPerSec, b.EventsPerSec
	if a.EventsPerSec > 0 {
		sc.Ratio = b.EventsPerSec / a.EventsPerSec
	}
	fmt.Printf("ingest at %d stored ÷ at %d stored: %.2f× (%.0f ÷ %.0f events/s)\n",
		sc.LastStored, sc.FirstStored, sc.Ratio, sc.LastEventsPerSec, sc.FirstEventsPerSec)
	recordSeeded(ctx, g, smp, res, stored)
	fmt.Printf("stored %d events; quiet %.1f s after the last POST; %.0f bytes/event on disk\n",
		stored, res.Seed.FoldSeconds, res.Storage.BytesPerEvent)
	return ctx.Err()
}

// scaleName names the phase measured with n events stored.
func scaleName(n int) string { return fmt.Sprintf("at %d stored, 1 sender", n) }

// storageBreakdown reads where the bytes go in a copy of the stopped
// server's database and prints the groups' share per event.
func storageBreakdown(ctx context.Context, path string, res *results) {
	fmt.Println("reading where the bytes go (dbstat on a copy of the stopped server's database) …")
	began := time.Now()
	b, err := dbstat.Read(ctx, path)
	if err != nil {
		res.Notes = append(res.Notes, "no storage breakdown: "+err.Error())
		fmt.Println("  no storage breakdown:", err)
		return
	}
	res.StorageBreakdown = b
	var parts []string
	for _, g := range b.Groups {
		parts = append(parts, fmt.Sprintf("%s %.0f", g.Group, g.BytesPerEvent))
	}
	fmt.Printf("bytes/event by group (%d events, %.1f s): %s\n", b.Events, time.Since(began).Seconds(), strings.Join(parts, ", "))
}

// scaleChecks are the scale run's goals: ingest at N stored at least 0.8
// of its rate at 1M, and at most 300 bytes a stored event.
func (r *results) scaleChecks() {
	if r.Scale.Last == "" {
		return
	}
	first, last := r.ingest(r.Scale.First), r.ingest(r.Scale.Last)
	c := check{Target: "scale", What: "ingest " + r.Scale.Last + " ÷ " + r.Scale.First, Goal: "≥ 0.80",
		Verdict: "SKIP", Measured: "-", Note: "not measured in this run"}
	if first.EventsPerSec > 0 && last.EventsPerSec > 0 {
		c.Value, c.Note = last.EventsPerSec/first.EventsPerSec, ""
		c.Measured = fmt.Sprintf("%.2f× (%.0f ÷ %.0f events/s)", c.Value, last.EventsPerSec, first.EventsPerSec)
		c.Verdict = verdict(c.Value >= 0.8)
		if r.Scale.Note != "" {
			c.Note = r.Scale.Note
		}
	}
	r.Checks = append(r.Checks, c)
	c = check{Target: "scale", What: fmt.Sprintf("bytes on disk per stored event at %d", r.Storage.Events), Goal: "≤ 300",
		Verdict: "SKIP", Measured: "-", Note: "not measured in this run"}
	if r.Storage.Events > 0 {
		c.Value, c.Note = r.Storage.BytesPerEvent, ""
		c.Measured, c.Verdict = fmt.Sprintf("%.0f bytes", c.Value), verdict(c.Value <= 300)
	}
	r.Checks = append(r.Checks, c)
}
