package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"garrison/agents"
	"garrison/app"
	"garrison/intel"
	"garrison/store"
)

const intelUsage = "usage: garrison intel import [--data DIR] FILE|DIR …"

// runIntel feeds the intelligence store from files: NVD JSON, CVE JSON 5
// (a directory in the cvelistV5 layout is walked), KEV, EPSS, ATT&CK STIX,
// gzipped or not. It works beside a running server: the server's agents
// notify watchers of what changed.
func runIntel(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "import" {
		return usageOf(args, stdout, intelUsage)
	}
	fs := newFlagSet("garrison intel import [flags] FILE|DIR …",
		"Imports vulnerability intelligence into the local store: NVD CVE API 2.0 JSON, CVE JSON 5 records (a file,\n"+
			"an array, or a directory in the cvelistV5 layout), the CISA KEV catalog (JSON or CSV), EPSS CSV and MITRE\n"+
			"ATT&CK Enterprise STIX; gzip is read as is. A malformed file is refused whole; a malformed record is\n"+
			"reported and skipped. Watchers of a changed CVE are notified by the server's threat-researcher agent.", stderr)
	dataDir := fs.String("data", "./data", "data directory")
	database := fs.String("database", "", "PostgreSQL URL of a cluster's database (empty: the SQLite file in --data)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if v := getenv(envName("data")); v != "" && !flagGiven(fs, "data") {
		*dataDir = v
	}
	if v := getenv(envName("database")); v != "" && !flagGiven(fs, "database") {
		*database = v
	}
	if *database != "" && !store.IsPostgres(*database) {
		return errors.New("--database must be a postgres:// or postgresql:// URL")
	}
	if err := existingData(*dataDir, *database != ""); err != nil {
		return err
	}
	paths, err := importPaths(fs.Args())
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return errors.New(intelUsage)
	}
	st, err := app.OpenStore(ctx, *dataDir, schemaSQL, store.Config{Database: *database, NoMigrate: *database != "", Now: time.Now})
	if err != nil {
		return err
	}
	defer st.Close()
	checkpoints, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); st.Checkpoint(checkpoints) }()
	defer func() { stop(); <-done }()
	svc := intel.New(intel.Config{Store: st, TempDir: *dataDir, NotifyAgent: agents.IntelNotifier})
	tty := isTerminal(stderr)
	var failed []string
	for _, p := range paths {
		var bar *progressBar
		opt := intel.ImportOptions{Name: filepath.Base(p), Via: "cli", Actor: "cli:" + currentUser()}
		if tty {
			bar = &progressBar{out: stderr, name: filepath.Base(p), start: time.Now()}
			opt.Progress = bar.update
		}
		res, err := svc.ImportFile(ctx, p, opt)
		if bar != nil {
			bar.done()
		}
		for _, prob := range res.Problems {
			fmt.Fprintf(stderr, "%s: record %d (byte %d) %s skipped: %s\n", p, prob.Index, prob.Offset, prob.ID, prob.Message)
		}
		for _, c := range res.Cuts {
			fmt.Fprintf(stderr, "%s: record %d (byte %d) %s kept, cut to the caps: %s\n", p, c.Index, c.Offset, c.ID, c.Message)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", p, err)
			failed = append(failed, p)
			continue
		}
		fmt.Fprintf(stdout, "%s: %s, %d records in %s: %d added, %d changed, %d unchanged, %d skipped, %d cut to the caps; %d organization(s) to notify (import %s)\n",
			p, res.Format, res.Records, res.FinishedAtOr(time.Now()).Sub(res.StartedAt).Round(time.Millisecond), res.Added, res.Changed,
			res.Unchanged, res.Skipped, res.Cut, res.Notifications, res.ID)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d files not imported", len(failed), len(paths))
	}
	return nil
}

func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// importPaths expands directories (the cvelistV5 layout) into their .json
// and .json.gz files, in name order.
func importPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".json.gz")) && !strings.HasSuffix(p, "delta.json") &&
				!strings.HasSuffix(p, "deltaLog.json") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

func currentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "operator"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// progressBar draws one line: the bytes read, records, rate and ETA.
type progressBar struct {
	out   io.Writer
	name  string
	start time.Time
	last  time.Time
}

func (b *progressBar) update(records int, read, size int64) {
	now := time.Now()
	if now.Sub(b.last) < 100*time.Millisecond && read < size {
		return
	}
	b.last = now
	elapsed := now.Sub(b.start).Seconds()
	frac := 0.0
	if size > 0 {
		frac = min(1, float64(read)/float64(size))
	}
	const width = 30
	filled := int(frac * width)
	rate := float64(records) / max(elapsed, 0.001)
	eta := "--:--"
	if frac > 0.01 {
		left := time.Duration(elapsed * (1 - frac) / frac * float64(time.Second))
		eta = fmt.Sprintf("%d:%02d", int(left.Minutes()), int(left.Seconds())%60)
	}
	fmt.Fprintf(b.out, "\r%s [%s%s] %3.0f%% %d records %.0f/s ETA %s ", b.name, strings.Repeat("#", filled),
		strings.Repeat(".", width-filled), frac*100, records, rate, eta)
}

func (b *progressBar) done() { fmt.Fprintln(b.out) }
