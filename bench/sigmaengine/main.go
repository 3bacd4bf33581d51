// Command sigmaengine measures the detection engine alone: SigmaHQ's
// real Windows regression events (../shared/data/detection/sigma, read at
// run time: Detection Rule License 1.1), replicated to --events, through
// the shipped rules, once indexed (detection.Engine.Match, what ingest
// runs) and once the straightforward way (Engine.MatchEach: every rule of
// the event's log sources runs its condition, as public Go Sigma
// libraries do), on one core, in one run; the two must fire the same
// rules on every event.
//
//	go run ./bench/sigmaengine
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"garrison/detection"
	"garrison/sigma"
	"garrison/telemetry"
)

type input struct {
	fields  sigma.Event
	sources []sigma.Logsource
}

func main() {
	dir := flag.String("regression", "../shared/data/detection/sigma/regression/windows", "SigmaHQ's Windows regression events")
	events := flag.Int("events", 1_000_000, "events to run, the regression events replicated")
	flag.Parse()
	runtime.GOMAXPROCS(1) // per core
	if err := run(*dir, *events); err != nil {
		fmt.Fprintln(os.Stderr, "sigmaengine:", err)
		os.Exit(1)
	}
}

func run(dir string, n int) error {
	began := time.Now()
	cat, err := detection.Shipped()
	if err != nil {
		return err
	}
	fmt.Printf("%d shipped rules compiled and indexed in %s\n", len(cat.Rules), time.Since(began).Round(time.Millisecond))
	inputs, err := load(dir)
	if err != nil {
		return err
	}
	fmt.Printf("%d regression events, replicated to %d\n", len(inputs), n)
	engine := cat.Engine()
	// The same matches, event by event, before anything is timed.
	var a, b []*sigma.Rule
	fired := 0
	for i, in := range inputs {
		a = engine.Match(in.fields, in.sources, a[:0])
		b = engine.MatchEach(in.fields, in.sources, b[:0])
		if ids(a) != ids(b) {
			return fmt.Errorf("event %d: indexed fired [%s], each-rule fired [%s]", i, ids(a), ids(b))
		}
		fired += len(a)
	}
	fmt.Printf("identical matches on every event (%d rule matches over one pass)\n", fired)
	rate := func(match func(sigma.Event, []sigma.Logsource, []*sigma.Rule) []*sigma.Rule) float64 {
		runtime.GC()
		var out []*sigma.Rule
		start := time.Now()
		for i := range n {
			in := inputs[i%len(inputs)]
			out = match(in.fields, in.sources, out[:0])
		}
		return float64(n) / time.Since(start).Seconds()
	}
	indexed := rate(engine.Match)
	each := rate(engine.MatchEach)
	fmt.Printf("indexed:   %9.0f events/s on one core\n", indexed)
	fmt.Printf("each rule: %9.0f events/s on one core\n", each)
	fmt.Printf("indexed ÷ each rule: %.1f× (goal ≥ 3×)\n", indexed/each)
	return nil
}

// ids is the rules' ids sorted: the two evaluators may find them in
// different orders.
func ids(rules []*sigma.Rule) string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.ID
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// load reads every regression event as ingest reads a Windows body.
func load(dir string) ([]input, error) {
	var out []input
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		res, err := telemetry.Parse(telemetry.FormatWindows, body, time.Now())
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, r := range res.Records {
			fields, sources := detection.Input(r.Raw)
			out = append(out, input{fields, sources})
		}
		return nil
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("no regression events under %s", dir)
	}
	return out, err
}
