package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"garrison/alerting"
	"garrison/event"
)

// The fold's tests run on the real schema.
func realSchema(t testing.TB) string {
	b, err := os.ReadFile(filepath.Join("..", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var foldNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// openFolding opens a store whose fold runs only when the test says (foldAll),
// at Open and at Close.
func openFolding(t testing.TB, path string, orgs ...string) *Store {
	t.Helper()
	return openFoldingWith(t, Config{Path: path}, orgs...)
}

func openFoldingWith(t testing.TB, c Config, orgs ...string) *Store {
	t.Helper()
	c.Schema, c.FoldInterval, c.Now = realSchema(t), time.Hour, func() time.Time { return foldNow }
	s, err := Open(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	for _, org := range orgs {
		if _, err := s.writer.Exec(`INSERT OR IGNORE INTO orgs (id, name, plan, created_at) VALUES (?, ?, 'pro', 0)`, org, org); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// foldAll folds every stored event, as the background fold would.
func foldAll(t testing.TB, s *Store) {
	t.Helper()
	if err := s.settle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func ingest(t testing.TB, s *Store, org string, events ...NewEvent) {
	t.Helper()
	if _, err := s.Ingest(context.Background(), org, events, nil); err != nil {
		t.Fatal(err)
	}
}

// lows makes n low-severity events of one asset and type, a second apart
// from start.
func lows(n int, asset string, start time.Time) []NewEvent {
	out := make([]NewEvent, n)
	for i := range out {
		out[i] = NewEvent{Type: "policy_violation", Severity: 1, Timestamp: start.Add(time.Duration(i) * time.Second),
			Source: "edr", Asset: asset, Message: "USB storage mounted", Indicator: "usb-" + fmt.Sprint(i%3)}
	}
	return out
}

// derived is everything the fold keeps, read through the store's API.
func derived(t testing.TB, s *Store, org string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	alerts, total, err := s.Alerts(ctx, org, alerting.Filter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "alerts %d\n", total)
	for _, a := range alerts {
		evs, err := s.AlertEvents(ctx, org, a.ID, 1000)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s sev=%d n=%d listed=%d %v..%v\n", a.Category, a.Asset, a.Severity, a.EventCount, len(evs),
			a.FirstSeen.Format(time.TimeOnly), a.LastSeen.Format(time.TimeOnly))
	}
	threats, _, err := s.Threats(ctx, org, Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range threats {
		fmt.Fprintf(&b, "threat %s n=%d sev=%d %v\n", th.Indicator, th.Count, th.MaxSeverity, th.Assets)
	}
	counts, err := s.CountEventsSince(ctx, org, foldNow.Add(-48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	assets, err := s.TopAssets(ctx, org, foldNow.Add(-48*time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	sources, err := s.Sources(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "counts %d %v %v\nassets %v\n", counts.Total, counts.BySeverity, counts.ByType, assets)
	for _, src := range sources {
		fmt.Fprintf(&b, "source %s %d\n", src.Name, src.Count)
	}
	return b.String()
}

func foldCursor(t testing.TB, db *sql.DB) (folded, stored int64) {
	t.Helper()
	if err := db.QueryRow(`SELECT events_seq, (SELECT MAX(seq) FROM events) FROM fold_state`).Scan(&folded, &stored); err != nil {
		t.Fatal(err)
	}
	return folded, stored
}

// A crash between ingest and fold loses nothing: a copy of the database
// taken then, opened afresh, derives exactly what the live store does.
func TestFoldRecoversAfterCrash(t *testing.T) {
	dir := t.TempDir()
	s := openFolding(t, filepath.Join(dir, "live.db"), "org_a")
	defer s.Close()
	start := foldNow.Add(-time.Hour).Truncate(10 * time.Minute)
	ingest(t, s, "org_a", lows(6, "ws-1", start)...)
	foldAll(t, s) // the first batch
	batch := append(lows(8, "ws-1", start.Add(time.Minute)),
		NewEvent{Type: "threat_detected", Severity: 4, Timestamp: start, Source: "ids", Asset: "db-1", Message: "Trojan beacon", Indicator: "evil.example"},
		NewEvent{Type: "threat_detected", Severity: 3, Timestamp: start.Add(time.Second), Source: "ids", Asset: "db-1", Message: "Trojan beacon", Indicator: "evil.example"})
	ingest(t, s, "org_a", batch...)
	ingest(t, s, "org_a", NewEvent{Type: "threat_detected", Severity: 4, Timestamp: start.Add(time.Hour), Source: "ids", Asset: "db-1",
		Message: "Trojan beacon", Indicator: "evil.example"})

	// The crash: a consistent copy of what is committed, fold still behind.
	crashed := filepath.Join(dir, "crashed.db")
	if _, err := s.writer.Exec(`VACUUM INTO ?`, crashed); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", crashed)
	if err != nil {
		t.Fatal(err)
	}
	folded, stored := foldCursor(t, raw)
	raw.Close()
	if folded >= stored {
		t.Fatalf("the copy has nothing left to fold (%d of %d): the test proves nothing", folded, stored)
	}

	want := derived(t, s, "org_a")
	if !strings.Contains(want, "activity_burst ws-1 sev=2 n=14 listed=14") || !strings.Contains(want, "malware db-1 sev=4 n=3 listed=3") {
		t.Fatalf("live store:\n%s", want)
	}
	r := openFolding(t, crashed)
	defer r.Close()
	if got := derived(t, r, "org_a"); got != want {
		t.Fatalf("recovered:\n%s\nlive:\n%s", got, want)
	}
}

// A burst window counted partly before a restart, or after its count was
// dropped from memory, is recounted from the stored events.
func TestBurstWindowRecounted(t *testing.T) {
	start := foldNow.Add(-time.Hour).Truncate(10 * time.Minute)
	t.Run("restart", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "g.db")
		s := openFolding(t, path, "org_a")
		ingest(t, s, "org_a", lows(6, "ws-1", start)...)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openFolding(t, path)
		defer s.Close()
		ingest(t, s, "org_a", lows(5, "ws-1", start.Add(time.Minute))...)
		if got := derived(t, s, "org_a"); !strings.Contains(got, "alerts 1\nactivity_burst ws-1 sev=2 n=11 listed=11") {
			t.Fatalf("after restart:\n%s", got)
		}
	})
	t.Run("restart, the whole window at once", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "g.db")
		s := openFolding(t, path, "org_a")
		ingest(t, s, "org_a", append(lows(6, "ws-1", start), lows(7, "ws-3", start)...)...)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openFolding(t, path)
		defer s.Close()
		// ws-1's batch recounts the window for every asset: ws-3's count
		// comes from that read, and ws-4, absent from it, has none.
		ingest(t, s, "org_a", lows(1, "ws-1", start.Add(time.Minute))...)
		if held := len(s.alerts.orgs["org_a"].windows); held != 2 {
			t.Fatalf("the recount held %d keys of the window, want ws-1 and ws-3", held)
		}
		ingest(t, s, "org_a", append(lows(3, "ws-3", start.Add(2*time.Minute)), lows(2, "ws-4", start.Add(2*time.Minute))...)...)
		got := derived(t, s, "org_a")
		if !strings.Contains(got, "alerts 1\nactivity_burst ws-3 sev=2 n=10 listed=10") {
			t.Fatalf("after restart:\n%s", got)
		}
	})
	t.Run("evicted", func(t *testing.T) {
		s := openFoldingWith(t, Config{Path: filepath.Join(t.TempDir(), "g.db"), AlertMemoryLimit: 3}, "org_a")
		defer s.Close()
		ingest(t, s, "org_a", lows(9, "ws-1", start)...)
		for i := range 4 { // newer windows push ws-1's out of memory
			ingest(t, s, "org_a", lows(1, "ws-2", start.Add(time.Duration(i+1)*10*time.Minute))...)
		}
		if n := len(s.alerts.orgs["org_a"].windows); n > 3 {
			t.Fatalf("%d windows held", n)
		}
		ingest(t, s, "org_a", lows(1, "ws-1", start.Add(5*time.Minute))...)
		if got := derived(t, s, "org_a"); !strings.Contains(got, "alerts 1\nactivity_burst ws-1 sev=2 n=10 listed=10") {
			t.Fatalf("after eviction:\n%s", got)
		}
	})
	t.Run("idle release", func(t *testing.T) {
		s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
		defer s.Close()
		ingest(t, s, "org_a", lows(6, "ws-1", start)...)
		var one int
		if err := s.reads().QueryRowContext(context.Background(), `SELECT 1`).Scan(&one); err != nil {
			t.Fatal(err)
		}
		if n := s.reader.Stats().Idle; n == 0 {
			t.Fatal("no reader connection open before the release: the check below proves nothing")
		}
		s.ReleaseMemory()
		if s.alerts.orgs != nil {
			t.Fatal("alert memory held after the release")
		}
		for name, db := range map[string]*sql.DB{"reader": s.reader, "writer": s.writer, "checkpointer": s.checkpointer} {
			if n := db.Stats().OpenConnections; n != 0 {
				t.Fatalf("%s: %d connections held open after the release", name, n)
			}
		}
		ingest(t, s, "org_a", lows(5, "ws-1", start.Add(time.Minute))...)
		if got := derived(t, s, "org_a"); !strings.Contains(got, "alerts 1\nactivity_burst ws-1 sev=2 n=11 listed=11") {
			t.Fatalf("after an idle release:\n%s", got)
		}
	})
}

// An events page's total counts events the fold has not reached yet.
func TestEventTotalCountsUnfolded(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	start := foldNow.Add(-5 * time.Hour)
	ingest(t, s, "org_a", lows(30, "ws-1", start)...)
	foldAll(t, s)
	ingest(t, s, "org_a", lows(20, "ws-2", start.Add(2*time.Hour))...)
	from, to := start.Add(-time.Hour), foldNow
	f := EventFilter{From: &from, To: &to}
	// Read without settling, as a reader does when ingest lands between
	// its fold and its snapshot.
	err := s.read(context.Background(), func(tx querier) error {
		n, err := countEvents(context.Background(), tx, "org_a", f, f.bounds())
		if n != 50 {
			t.Errorf("total %d, want 50", n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// An indicator keeps the first maxThreatAssets assets to report it: in the
// order they arrived, and by time within what one fold adds.
func TestThreatKeepsFirstAssets(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	var events []NewEvent
	for i := range maxThreatAssets + 5 {
		events = append(events, NewEvent{Type: "blocked_connection", Severity: 1, Timestamp: foldNow.Add(-time.Duration(i) * time.Minute),
			Source: "fw", Asset: fmt.Sprintf("host-%02d", i), Message: "blocked", Indicator: "203.0.113.9"})
	}
	ingest(t, s, "org_a", events[:10]...) // host-00 to 09 report first
	foldAll(t, s)
	ingest(t, s, "org_a", events[10:]...) // of host-10 to 24, the earliest events are 24's
	threats, _, err := s.Threats(context.Background(), "org_a", Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, i := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24} {
		want = append(want, fmt.Sprintf("host-%02d", i))
	}
	if got := threats[0].Assets; !slices.Equal(got, want) || threats[0].Count != maxThreatAssets+5 {
		t.Fatalf("assets %v, count %d", got, threats[0].Count)
	}
}

// A database from before the fold keeps its events, in order, and starts
// the fold after them: their rollups already count them.
func TestMigrationToFold(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	schema := realSchema(t)
	v4, _, _ := strings.Cut(schema, "-- migration: 5")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(context.Background(), db, v4); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO orgs VALUES ('org_a', 'A', 'pro', 0)`,
		`INSERT INTO events (id, org_id, ts, type, severity, source, asset, message, received_at) VALUES
			('evt_2', 'org_a', 2, 'policy_violation', 1, 'edr', 'ws-1', 'm', 0), ('evt_1', 'org_a', 1, 'policy_violation', 1, 'edr', 'ws-1', 'm', 0)`,
		`INSERT INTO threat_assets VALUES ('org_a', 'x', 'ws-1'), ('org_a', 'x', 'ws-2')`,
		`INSERT INTO threat_indicators VALUES ('org_a', 'x', 'policy_violation', 1, 2, 1, 2)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	s := openFolding(t, path)
	defer s.Close()
	folded, stored := foldCursor(t, s.DB())
	var ids string
	var held int
	s.DB().QueryRow(`SELECT group_concat(legacy_id, ' ') FROM (SELECT legacy_id FROM events ORDER BY seq)`).Scan(&ids)
	s.DB().QueryRow(`SELECT assets FROM threat_indicators`).Scan(&held)
	if folded != 2 || stored != 2 || ids != "evt_2 evt_1" || held != 2 {
		t.Fatalf("cursor %d of %d, events %q, assets held %d", folded, stored, ids, held)
	}
}

// Ingest, reads (which fold) and the background fold running at once keep
// every derived number equal to a count of the stored events.
func TestFoldUnderConcurrentIngest(t *testing.T) {
	s, err := Open(context.Background(), Config{Path: filepath.Join(t.TempDir(), "g.db"), Schema: realSchema(t), FoldInterval: time.Millisecond, Now: func() time.Time { return foldNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.writer.Exec(`INSERT INTO orgs (id, name, plan, created_at) VALUES ('org_a', 'A', 'pro', 0)`); err != nil {
		t.Fatal(err)
	}
	start := foldNow.Add(-time.Hour).Truncate(10 * time.Minute)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 10 {
				batch := lows(7, fmt.Sprintf("ws-%d", i%3), start.Add(time.Duration(w*i)*time.Second))
				batch = append(batch, NewEvent{Type: "threat_detected", Severity: event.High + event.Severity(i%2), Timestamp: start.Add(time.Duration(i) * time.Minute),
					Source: "ids", Asset: "db-1", Message: "Exploit attempt", Indicator: "sig-" + fmt.Sprint(i%2)})
				if _, err := s.Ingest(context.Background(), "org_a", batch, nil); err != nil {
					t.Error(err)
				}
				if _, _, err := s.Alerts(context.Background(), "org_a", alerting.Filter{Limit: 1}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	ctx := context.Background()
	counts, err := s.CountEventsSince(ctx, "org_a", start.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var stored int
	s.DB().QueryRow(`SELECT COUNT(*) FROM events`).Scan(&stored)
	if counts.Total != stored || stored != 4*10*8 {
		t.Fatalf("rollup counts %d, events %d", counts.Total, stored)
	}
	alerted := eventsBehindAlerts(t, s, "org_a")
	// Every high event alerts; the low ones of three assets over a few
	// minutes all burst.
	if alerted != stored {
		t.Errorf("%d of %d events behind alerts", alerted, stored)
	}
}

// eventsBehindAlerts checks that each alert's count equals the events
// listed behind it, and returns how many events that is in all.
func eventsBehindAlerts(t *testing.T, s *Store, org string) int {
	t.Helper()
	ctx := context.Background()
	alerts, _, err := s.Alerts(ctx, org, alerting.Filter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	alerted := 0
	for _, a := range alerts {
		evs, err := s.AlertEvents(ctx, org, a.ID, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != a.EventCount {
			t.Errorf("%s %s: count %d, %d events behind it", a.Category, a.Asset, a.EventCount, len(evs))
		}
		alerted += len(evs)
	}
	return alerted
}

// BenchmarkEventsPage reads the newest 50 events with their exact total,
// as GET /events does, without HTTP: the cost of the statement and the scan.
func BenchmarkEventsPage(b *testing.B) {
	s := openFolding(b, filepath.Join(b.TempDir(), "g.db"), "org_a")
	defer s.Close()
	start := foldNow.Add(-48 * time.Hour)
	for i := range 20 {
		ingest(b, s, "org_a", lows(100, fmt.Sprintf("ws-%d", i), start.Add(time.Duration(i)*time.Hour))...)
	}
	foldAll(b, s)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if evs, total, err := s.Events(ctx, "org_a", EventFilter{Page: Page{Limit: 50}}); err != nil || len(evs) != 50 || total != 2000 {
			b.Fatal(len(evs), total, err)
		}
	}
}

// TestSequencesNeverReused: deleting the newest events (an organization
// deleted, or all of one's events pruned) must not let new events take
// their sequence numbers, at or below the fold's cursor, where the fold
// would never count them.
func TestSequencesNeverReused(t *testing.T) {
	ctx := context.Background()
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a", "org_b")
	defer s.Close()
	ingest(t, s, "org_a", lows(30, "a", foldNow.Add(-time.Hour))...)
	ingest(t, s, "org_b", lows(30, "b", foldNow.Add(-time.Hour))...) // the newest sequences
	foldAll(t, s)
	if _, err := s.DeleteOrg(ctx, "org_b"); err != nil {
		t.Fatal(err)
	}
	ingest(t, s, "org_a", lows(10, "a2", foldNow.Add(-30*time.Minute))...)
	for _, folded := range []bool{false, true} {
		if folded {
			foldAll(t, s)
		}
		if _, total, err := s.Events(ctx, "org_a", EventFilter{Page: Page{Limit: 1}}); err != nil || total != 40 {
			t.Fatalf("folded %v: total %d, %v; want 40", folded, total, err)
		}
		from := foldNow.Add(-2 * time.Hour)
		if _, total, err := s.Events(ctx, "org_a", EventFilter{From: &from, Page: Page{Limit: 1}}); err != nil || total != 40 {
			t.Fatalf("folded %v: total of a range %d, %v; want 40", folded, total, err)
		}
	}
	if lag, err := s.FoldLag(ctx); err != nil || lag != 0 {
		t.Fatalf("fold lag %d, %v", lag, err)
	}
}

// TestFoldPassesDeletedNewestEvents: an organization deleted while its
// events are the newest and not folded yet leaves numbers nothing holds;
// the fold passes them instead of waiting for them for good.
func TestFoldPassesDeletedNewestEvents(t *testing.T) {
	ctx := context.Background()
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a", "org_b")
	defer s.Close()
	ingest(t, s, "org_a", lows(5, "a", foldNow.Add(-time.Hour))...)
	foldAll(t, s)
	ingest(t, s, "org_b", lows(5, "b", foldNow.Add(-time.Hour))...) // newest, unfolded
	if _, err := s.DeleteOrg(ctx, "org_b"); err != nil {
		t.Fatal(err)
	}
	foldAll(t, s) // was "stuck at 5, stored 10"
	ingest(t, s, "org_a", lows(3, "a2", foldNow.Add(-30*time.Minute))...)
	foldAll(t, s)
	if _, total, err := s.Events(ctx, "org_a", EventFilter{Page: Page{Limit: 1}}); err != nil || total != 8 {
		t.Fatalf("total %d, %v; want 8", total, err)
	}
}
