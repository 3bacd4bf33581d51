// Command suite measures Garrison side by side with baselines on this
// machine, in one run:
//
//	go run ./bench/suite [--events 1000000] [--duration 10s] [--connections 64]
//	                     [--clients 500] [--client-events 1000000]
//	                     [--only health,hello,…] [--extra-flags "…"] [--keep]
//	                     [--json bench/results/suite-….json] [--strict]
//	                     [--repo .] [--pocketbase off] [--pgo default.pgo]
//	                     [--scale 10000000]
//
// It builds the server, times its cold start, seeds events through the API
// while sampling memory and WAL size (and, for the clients target, makes
// its organization a provider of --clients clients and seeds
// --client-events among them), restarts it on the seeded data, then
// loads Garrison's read endpoints and the baselines (a bare net/http
// "hello", "headers" answering health's body with its headers, a
// hand-written "limit" server over a copy of the same database, and
// PocketBase when it can be built) with wrk, twice (the second round in
// reverse order). It prints a table of the figures against their goals
// and writes them as JSON. The scale run (--scale N, scale.go) seeds the
// organization to N events instead and measures ingest at 1M and at N
// stored, and where the bytes go on disk. Exit status: 0 when it ran (goals may have failed; --strict makes
// a failed goal exit 1), 2 when it could not run.
//
// The subcommands `hello`, `headers` and `limit` are the baselines' own
// processes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "hello":
			os.Exit(runHello(os.Args[2:]))
		case "headers":
			os.Exit(runHeaders(os.Args[2:]))
		case "limit":
			os.Exit(runLimit(os.Args[2:]))
		}
	}
	os.Exit(run())
}

// options are the command-line flags.
type options struct {
	repo, only, extra, jsonPath, pocketbase, pgo string
	events, connections, clients, clientEvents   int
	scale                                        int
	duration                                     time.Duration
	keep, strict                                 bool
}

func parseOptions() (options, error) {
	var o options
	flag.StringVar(&o.repo, "repo", ".", "repository root to build the server from")
	flag.IntVar(&o.events, "events", 1_000_000, "events to seed into the organization")
	flag.IntVar(&o.scale, "scale", 0, "the scale run: seed the organization to this many events with 1 sender in batches of 10,000, "+
		"measuring ingest at 1,000,000 stored (at half of it when it is under 1,200,000) and at this many, and where the bytes go, "+
		"instead of --events and the usual ingest phases; 0 is off")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long wrk loads each target, each round")
	flag.IntVar(&o.connections, "connections", 64, "wrk connections")
	flag.IntVar(&o.clients, "clients", 500, "client organizations the clients target makes under the organization")
	flag.IntVar(&o.clientEvents, "client-events", 1_000_000, "events the clients target seeds among its clients, besides --events")
	flag.StringVar(&o.only, "only", "", "comma list of load targets to run (default all): "+strings.Join(targetNames, ","))
	flag.StringVar(&o.extra, "extra-flags", "", `words appended to "garrison serve"`)
	flag.StringVar(&o.jsonPath, "json", "", "result file (default bench/results/suite-<UTC time>.json under --repo)")
	flag.StringVar(&o.pocketbase, "pocketbase", "", "the PocketBase baseline module (default bench/pocketbase under --repo; \"off\" skips it)")
	flag.StringVar(&o.pgo, "pgo", "", "write the merged CPU profile of every garrison serve of the run to this file, relative to the "+
		"working directory (default.pgo at the repository root is how the compiler optimizes hot paths; the run's figures carry the profiler's cost)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (binaries, data, logs)")
	flag.BoolVar(&o.strict, "strict", false, "exit 1 when a goal is missed")
	flag.Parse()
	switch {
	case flag.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", flag.Arg(0))
	case o.events < 2*batchSize:
		return o, fmt.Errorf("--events must be at least %d", 2*batchSize)
	case o.duration < time.Second:
		return o, fmt.Errorf("--duration must be at least 1s")
	case o.connections < 2:
		return o, fmt.Errorf("--connections must be at least 2 (wrk runs 2 threads)")
	case o.clients < 1:
		return o, fmt.Errorf("--clients must be at least 1")
	case o.clientEvents < o.clients:
		return o, fmt.Errorf("--client-events must be at least --clients (%d), an event for each client", o.clients)
	}
	if o.scale > 0 {
		if o.scale < 4*scaleBatch {
			return o, fmt.Errorf("--scale must be at least %d", 4*scaleBatch)
		}
		o.events = o.scale
	}
	if _, err := parseOnly(o.only); err != nil {
		return o, err
	}
	if o.jsonPath == "" {
		o.jsonPath = filepath.Join(o.repo, "bench", "results", "suite-"+time.Now().UTC().Format("20060102T150405Z")+".json")
	}
	if o.pocketbase == "" {
		o.pocketbase = filepath.Join(o.repo, "bench", "pocketbase")
	}
	if o.pgo != "" {
		// Refused now, not after the run it would have come from.
		abs, err := filepath.Abs(o.pgo)
		if err != nil {
			return o, fmt.Errorf("--pgo: %w", err)
		}
		if err := writable(abs); err != nil {
			return o, fmt.Errorf("--pgo: %w", err)
		}
		o.pgo = abs
	}
	return o, nil
}

func run() int {
	o, err := parseOptions()
	if err != nil {
		fmt.Fprintln(os.Stderr, "suite:", err)
		flag.Usage()
		return 2
	}
	// Ctrl-C cancels the work in hand; the deferred cleanup stops every
	// server with SIGTERM, then removes the temporary directory.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	tmp, err := os.MkdirTemp("", "garrison-suite-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "suite:", err)
		return 2
	}
	defer func() {
		stopAll()
		if o.keep {
			fmt.Println("kept", tmp)
		} else {
			os.RemoveAll(tmp)
		}
	}()

	res, err := measure(ctx, o, tmp)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(os.Stderr, "suite: interrupted")
		} else {
			fmt.Fprintln(os.Stderr, "suite:", err)
		}
		return 2
	}
	if o.pgo != "" {
		res.Notes = append(res.Notes, "profiled run: every garrison serve ran with --cpu-profile, which costs a few per cent of CPU; "+
			"its figures are not for comparison. The merged profile is "+o.pgo+".")
	}
	res.evaluate()
	res.printTables(os.Stdout)
	if err := res.writeJSON(o.jsonPath); err != nil {
		fmt.Fprintln(os.Stderr, "suite:", err)
		return 2
	}
	fmt.Println("\nresults:", o.jsonPath)
	if o.pgo != "" {
		// After the results are safe: a merge that fails loses no figure.
		stopAll() // a profile is complete once its server has stopped
		if err := mergeProfiles(ctx, filepath.Join(tmp, "profiles"), o.pgo); err != nil {
			if ctx.Err() != nil {
				err = errors.New("interrupted")
			}
			fmt.Fprintln(os.Stderr, "suite:", err)
			return 2
		}
	}
	if o.strict && !res.Pass {
		return 1
	}
	return 0
}
