package main

import (
	"fmt"
	"slices"
	"strings"
)

// check is one goal and whether this run met it.
type check struct {
	Target   string  `json:"target"` // a load target, or "ingest", "memory", "cold-start"
	What     string  `json:"what"`
	Value    float64 `json:"value"`
	Measured string  `json:"measured"`
	Goal     string  `json:"goal"`
	Verdict  string  `json:"verdict"` // PASS, FAIL, or SKIP when not measured
	Note     string  `json:"note,omitempty"`
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// evaluate compares every figure with its goal. All ratios are between
// targets measured in this same run, on this machine.
func (r *results) evaluate() {
	load := map[string]*loadResult{}
	for _, l := range r.Load {
		load[l.Name] = l
	}
	// ratio checks one target's mean req/s (or p99) against a baseline's.
	ratio := func(name, base string, min float64, p99 bool) {
		c := check{Target: name, What: "req/s ÷ " + base, Goal: fmt.Sprintf("≥ %.2f", min)}
		if p99 {
			c.What, c.Goal = "p99 ÷ "+base+" p99", fmt.Sprintf("< %.2f", min)
		}
		t, b := load[name], load[base]
		switch {
		case t == nil || b == nil:
			c.Verdict, c.Measured, c.Note = "SKIP", "-", "not measured in this run"
		case b.MeanReqPerSec == 0 || b.MeanP99ms == 0:
			c.Verdict, c.Measured, c.Note = "SKIP", "-", base+" measured nothing"
		default:
			if p99 {
				c.Value = t.MeanP99ms / b.MeanP99ms
				c.Verdict = verdict(c.Value < min)
			} else {
				c.Value = t.MeanReqPerSec / b.MeanReqPerSec
				c.Verdict = verdict(c.Value >= min)
			}
			c.Measured = fmt.Sprintf("%.2f×", c.Value)
			if !t.clean() || !b.clean() {
				c.Verdict = "FAIL"
				c.Note = fmt.Sprintf("errors during the load (%s: %d non-2xx, %d socket errors, %d runs without answers; %s: %d, %d, %d): "+
					"the rate is not of real answers", name, t.Non2xx, t.SocketErrors, t.Unanswered, base, b.Non2xx, b.SocketErrors, b.Unanswered)
			}
		}
		r.Checks = append(r.Checks, c)
	}
	for _, s := range []string{"stats-jwt", "stats-key"} {
		ratio(s, "hello", 0.30, false)
		ratio(s, "hello", 2, true)
	}
	ratio("events", "limit", 1.0, false)
	ratio("events-high", "limit", 0.8, false)
	ratio("events-srcip", "limit", 0.5, false)
	ratio("events-q", "limit", 0.5, false)
	ratio("overview", "limit", 0.5, false)
	ratio("security-score", "limit", 0.5, false)
	ratio("clients", "events", 2, true) // the fleet view against one client's events page
	ratio("clients", "limit", 0.5, false)
	ratio("health", "hello", 0.9, false)

	// Absolute goals.
	abs := func(target, what, unit string, v, limit float64, below bool, measured bool) {
		c := check{Target: target, What: what, Value: v, Measured: fmt.Sprintf("%.1f %s", v, unit)}
		if below {
			c.Goal, c.Verdict = fmt.Sprintf("< %.0f %s", limit, unit), verdict(v < limit)
		} else {
			c.Goal, c.Verdict = fmt.Sprintf("≥ %.0f %s", limit, unit), verdict(v >= limit)
		}
		if !measured {
			c.Verdict, c.Measured, c.Note = "SKIP", "-", "not measured in this run"
		}
		r.Checks = append(r.Checks, c)
	}
	empty2 := r.ingest("empty, 2 senders")
	full2 := r.ingest("seeded, 2 senders")
	abs("ingest", "ingest, 2 senders, seeded db", "events/s", full2.EventsPerSec, 25000, false, full2.Events > 0)
	if full2.OtherCores > 0.1 {
		r.Checks[len(r.Checks)-1].Measured += "*"
	}
	for _, f := range telemetryFeeds {
		in := r.ingest("seeded, 2 senders, " + f.name)
		c := check{Target: "ingest", What: f.name + " ingest ÷ native ingest (seeded, 2 senders)", Goal: "≥ 0.70"}
		if in.Events == 0 || full2.EventsPerSec == 0 {
			c.Verdict, c.Measured, c.Note = "SKIP", "-", "not measured in this run"
		} else {
			c.Value = in.EventsPerSec / full2.EventsPerSec
			c.Measured, c.Verdict = fmt.Sprintf("%.2f× (%.0f events/s)", c.Value, in.EventsPerSec), verdict(c.Value >= 0.7)
		}
		r.Checks = append(r.Checks, c)
	}
	for _, f := range telemetryFeeds {
		on, off := r.ingest("seeded, 2 senders, "+f.name), r.ingest("seeded, 2 senders, "+f.name+", detection off")
		c := check{Target: "ingest", What: f.name + " ingest, every detection rule on ÷ all off (seeded, 2 senders)", Goal: "≥ 0.70"}
		if on.Events == 0 || off.EventsPerSec == 0 {
			c.Verdict, c.Measured, c.Note = "SKIP", "-", "not measured in this run"
		} else {
			c.Value = on.EventsPerSec / off.EventsPerSec
			c.Measured, c.Verdict = fmt.Sprintf("%.2f× (%.0f ÷ %.0f events/s)", c.Value, on.EventsPerSec, off.EventsPerSec), verdict(c.Value >= 0.7)
		}
		r.Checks = append(r.Checks, c)
	}
	slower := 0.0
	if empty2.EventsPerSec > 0 {
		slower = 100 * (1 - full2.EventsPerSec/empty2.EventsPerSec)
	}
	c := check{Target: "ingest", What: "ingest slowdown, seeded vs empty (2 senders)", Value: slower,
		Measured: fmt.Sprintf("%.1f %%", slower), Goal: "≤ 25 %", Verdict: verdict(slower <= 25)}
	if empty2.Events == 0 || full2.Events == 0 {
		c.Verdict, c.Measured = "SKIP", "-"
	}
	r.Checks = append(r.Checks, c)
	walOK := r.Memory.WALPeakMiB <= 128
	r.Checks = append(r.Checks, check{Target: "ingest", What: "WAL peak", Value: r.Memory.WALPeakMiB,
		Measured: fmt.Sprintf("%.1f MiB", r.Memory.WALPeakMiB), Goal: "≤ 128 MiB", Verdict: verdict(walOK)})

	seeded := median(r.ColdStart.SeededMS)
	abs("cold-start", fmt.Sprintf("cold start to healthy, %d events (median)", r.ColdStart.SeededEvents), "ms",
		seeded, 150, true, len(r.ColdStart.SeededMS) > 0)
	abs("memory", "idle RSS after start", "MiB", r.Memory.IdleAfterStartMiB, 40, true, true)
	abs("memory", "idle RSS after seeding, settled", "MiB", r.Memory.IdleAfterSeedMiB, 40, true, true)
	abs("memory", "peak RSS under load", "MiB", r.Memory.PeakUnderLoadMiB, 200, true, true)

	r.scaleChecks()
	r.Pass = !slices.ContainsFunc(r.Checks, func(c check) bool { return c.Verdict == "FAIL" })
	if u := r.unsteady(); u != "" {
		r.Notes = append(r.Notes, u)
	}
}

// ingest is the phase with that name, zero if it did not run.
func (r *results) ingest(phase string) ingestResult {
	for _, in := range r.Ingest {
		if in.Phase == phase {
			return in
		}
	}
	return ingestResult{}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// unsteadyRounds is how far apart one target's rounds may be before the
// run says the machine changed speed under it.
const unsteadyRounds = 0.20

// unsteady names the targets whose rounds differ by more than
// unsteadyRounds, or "". The same server loaded twice a minute apart
// should answer alike; when it does not, the machine (a virtual one
// sharing its host) changed speed, and ratios taken against a baseline
// loaded at another moment say more about that than about the server.
func (r *results) unsteady() string {
	var names []string
	for _, l := range r.Load {
		lo, hi, answered := 0.0, 0.0, 0
		for _, run := range l.Runs {
			if run.Requests == 0 {
				continue // said on its own
			}
			if answered == 0 || run.ReqPerSec < lo {
				lo = run.ReqPerSec
			}
			hi = max(hi, run.ReqPerSec)
			answered++
		}
		if answered > 1 && (hi-lo)/hi > unsteadyRounds {
			names = append(names, fmt.Sprintf("%s (%.0f to %.0f req/s)", l.Name, lo, hi))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("rounds more than %.0f %% apart: %s. The machine changed speed during the run; "+
		"run the suite again before reading its ratios.", 100*unsteadyRounds, strings.Join(names, ", "))
}
