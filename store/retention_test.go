package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"garrison/event"
)

// TestPruneKeepsCountersExact ingests 40 days of events and DNS queries,
// prunes everything older than 20 days in batches, and checks every counter
// against the rows that remain; a second organization and unfolded events
// are untouched.
func TestPruneKeepsCountersExact(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a", "org_b")
	defer s.Close()
	ctx := context.Background()
	start := foldNow.Add(-40 * 24 * time.Hour)
	for _, org := range []string{"org_a", "org_b"} {
		var evs []NewEvent
		var dns []DNSQuery
		for i := range 1600 {
			at := start.Add(time.Duration(i) * 36 * time.Minute)
			evs = append(evs, NewEvent{Type: event.Types[i%len(event.Types)], Severity: event.Severity(i % event.Levels), Timestamp: at,
				Source: fmt.Sprintf("sensor-%d", i%3), Asset: fmt.Sprintf("host-%d", i%9), Message: "m", Indicator: fmt.Sprintf("ioc-%d", i%13)})
			cat := ""
			if i%4 == 0 {
				cat = "malware"
			}
			dns = append(dns, DNSQuery{Timestamp: at, Source: "dns", Client: "10.0.0.1", Domain: fmt.Sprintf("d%d.example", i%17), QType: "A", RCode: "NOERROR", Category: cat})
		}
		if _, err := s.Ingest(ctx, org, evs, dns); err != nil {
			t.Fatal(err)
		}
	}
	foldAll(t, s)
	// Old events the fold has not counted yet are left for a later pass.
	ingest(t, s, "org_a", NewEvent{Type: event.TypeThreat, Severity: event.High, Timestamp: start, Source: "late", Asset: "late", Message: "late"})

	cutoff := foldNow.Add(-20 * 24 * time.Hour)
	var events, queries int
	for {
		n, err := s.PruneEvents(ctx, cutoff.Add(time.Hour), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if n > pruneBatch {
			t.Fatalf("a batch of %d", n)
		}
		events += n
		if n == 0 {
			break
		}
	}
	for {
		n, err := s.PruneDNS(ctx, cutoff.Add(time.Hour), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		queries += n
		if n == 0 {
			break
		}
	}
	if events == 0 || queries == 0 {
		t.Fatalf("pruned %d events, %d queries", events, queries)
	}
	one := func(q string, args ...any) int64 {
		var n int64
		if err := s.reader.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	if n := one(`SELECT COUNT(*) FROM events WHERE ts < ? AND seq <= (SELECT events_seq FROM fold_state)`, ms(cutoff)); n != 0 {
		t.Fatalf("%d folded old events left", n)
	}
	if n := one(`SELECT COUNT(*) FROM events WHERE source = 'late'`); n != 1 {
		t.Fatal("an unfolded event was pruned")
	}
	foldAll(t, s)
	// Every counter equals what the rows left say.
	for _, c := range []struct{ name, counter, raw string }{
		{"totals", `SELECT COALESCE(SUM(n), 0) FROM event_counts WHERE org_id = ?1`, `SELECT COUNT(*) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?1)`},
		{"hourly", `SELECT COUNT(*) FROM (SELECT hour, type, severity, n FROM event_rollup WHERE org_id = ?1 EXCEPT
			SELECT ts - ts % 3600000, type, severity, COUNT(*) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?1) GROUP BY 1, 2, 3)`, `SELECT 0`},
		{"assets", `SELECT COUNT(*) FROM (SELECT day, asset, n FROM asset_rollup WHERE org_id = ?1 EXCEPT
			SELECT ts - ts % 86400000, asset, COUNT(*) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?1) GROUP BY 1, 2)`, `SELECT 0`},
		{"indicators by day", `SELECT COUNT(*) FROM (SELECT day, indicator, n FROM indicator_rollup WHERE org_id = ?1 EXCEPT
			SELECT ts - ts % 86400000, indicator, COUNT(*) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?1) AND indicator != '' GROUP BY 1, 2)`, `SELECT 0`},
		{"indicators", `SELECT COUNT(*) FROM (SELECT indicator, n FROM threat_indicators WHERE org_id = ?1 EXCEPT
			SELECT indicator, COUNT(*) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?1) AND indicator != '' GROUP BY 1)`, `SELECT 0`},
		{"dns hourly", `SELECT COUNT(*) FROM (SELECT hour, category, n FROM dns_rollup WHERE org_id = ?1 EXCEPT
			SELECT ts - ts % 3600000, category, COUNT(*) FROM dns_queries WHERE org_id = ?1 GROUP BY 1, 2)`, `SELECT 0`},
		{"blocked domains", `SELECT COUNT(*) FROM (SELECT domain, n FROM dns_blocked_domains WHERE org_id = ?1 EXCEPT
			SELECT domain, COUNT(*) FROM dns_queries WHERE org_id = ?1 AND category != '' GROUP BY 1)`, `SELECT 0`},
	} {
		for _, org := range []string{"org_a", "org_b"} {
			if got, want := one(c.counter, org), one(c.raw, org); got != want {
				t.Errorf("%s of %s: counter %d, rows %d", c.name, org, got, want)
			}
		}
	}
	// The API's totals read the counters.
	got, err := s.CountEventsSince(ctx, "org_a", start.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if want := one(`SELECT COUNT(*) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = 'org_a')`); int64(got.Total) != want {
		t.Fatalf("events since: %d, want %d", got.Total, want)
	}
}

func TestPruneAudit(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	ctx := context.Background()
	for range 3 {
		if err := s.AppendAudit(ctx, AuditEntry{OrgID: "org_a", Action: "auth.login"}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.PruneAudit(ctx, foldNow.Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("pruned %d recent entries (%v)", n, err)
	}
	if n, err := s.PruneAudit(ctx, foldNow.Add(time.Hour)); err != nil || n != 3 {
		t.Fatalf("pruned %d old entries (%v)", n, err)
	}
}

// BenchmarkPruneBatch times one pruning transaction (pruneBatch events and
// their counters) on an organization of 200,000 folded events: the longest
// the writer is held by retention.
func BenchmarkPruneBatch(b *testing.B) {
	s := openFolding(b, filepath.Join(b.TempDir(), "g.db"), "org_a")
	defer s.Close()
	ctx := context.Background()
	start := foldNow.Add(-300 * 24 * time.Hour)
	for chunk := range 20 {
		evs := make([]NewEvent, 10000)
		for i := range evs {
			j := chunk*10000 + i
			evs[i] = NewEvent{Type: event.Types[j%len(event.Types)], Severity: event.Severity(j % event.Levels),
				Timestamp: start.Add(time.Duration(j) * 2 * time.Minute), Source: fmt.Sprintf("s%d", j%5), Asset: fmt.Sprintf("h%d", j%300),
				Message: "m", Indicator: fmt.Sprintf("i%d", j%500)}
		}
		if _, err := s.Ingest(ctx, "org_a", evs, nil); err != nil {
			b.Fatal(err)
		}
	}
	foldAll(b, s)
	cutoff := foldNow
	var worst time.Duration
	for b.Loop() {
		t := time.Now()
		n, err := s.PruneEvents(ctx, cutoff.Add(time.Hour), time.Hour)
		if err != nil || n == 0 {
			b.Fatalf("%d %v", n, err)
		}
		worst = max(worst, time.Since(t))
	}
	b.ReportMetric(float64(pruneBatch*b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}

// A retention shorter than the hours held in memory (eight days) makes
// the held counts forget the pruned hours; a longer one leaves them be.
func TestPruneInsideRecentHours(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	ctx := context.Background()
	ingest(t, s, "org_a", lows(30, "ws-1", foldNow.Add(-3*24*time.Hour))...)
	ingest(t, s, "org_a", lows(20, "ws-2", foldNow.Add(-2*time.Hour))...)
	foldAll(t, s)
	week := foldNow.Add(-7 * 24 * time.Hour)
	if c, err := s.CountEventsSince(ctx, "org_a", week); err != nil || c.Total != 50 {
		t.Fatalf("before: %d %v", c.Total, err)
	}
	for {
		n, err := s.PruneEvents(ctx, foldNow, 24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	if c, err := s.CountEventsSince(ctx, "org_a", week); err != nil || c.Total != 20 {
		t.Fatalf("after pruning 30 of 50: %d %v", c.Total, err)
	}
}

// An organization's own retention rules its pruning: shorter or longer
// than the appliance's, or 0 for good; the others keep the appliance's.
// Originals go with their events, and the quota is given back in full.
func TestPruneByOrganizationRetention(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a", "org_b", "org_c")
	defer s.Close()
	ctx := context.Background()
	for _, org := range []string{"org_a", "org_b", "org_c"} {
		var evs []NewEvent
		for day := range 30 {
			evs = append(evs, NewEvent{Type: event.TypeActivity, Severity: event.Info, Timestamp: foldNow.Add(-time.Duration(day)*24*time.Hour - time.Hour),
				Source: "syslog", Asset: "h", Message: "m", Original: "Nov 21 10:00:00 h app: m", Fields: event.Fields{User: "u"}})
		}
		if _, err := s.Ingest(ctx, org, evs, nil); err != nil {
			t.Fatal(err)
		}
	}
	foldAll(t, s)
	if err := s.SetOrgRetention(ctx, "org_a", 5*24*time.Hour, true); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOrgRetention(ctx, "org_c", 0, true); err != nil {
		t.Fatal(err)
	}
	for {
		n, err := s.PruneEvents(ctx, foldNow, 20*24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	for org, want := range map[string]int{"org_a": 5, "org_b": 20, "org_c": 30} {
		var n, originals int
		s.reader.QueryRow(`SELECT COUNT(*), (SELECT COUNT(*) FROM event_originals o JOIN events e USING (seq) WHERE e.org = (SELECT num FROM org_numbers WHERE org_id = ?1))
			FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?1)`, org).Scan(&n, &originals)
		if n != want || originals != want {
			t.Errorf("%s keeps %d events, %d originals; want %d", org, n, originals, want)
		}
		u, err := s.Usage(ctx, org)
		if err != nil {
			t.Fatal(err)
		}
		var stored int64
		s.reader.QueryRow(`SELECT COALESCE(SUM(`+eventBytesSQL+`), 0) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = ?)`, org).Scan(&stored)
		if u.Bytes != stored {
			t.Errorf("%s: usage %d, its events take %d", org, u.Bytes, stored)
		}
	}
	var orphans int
	s.reader.QueryRow(`SELECT COUNT(*) FROM event_originals WHERE seq NOT IN (SELECT seq FROM events)`).Scan(&orphans)
	if orphans != 0 {
		t.Errorf("%d originals outlived their events", orphans)
	}
	if keep, set, err := s.OrgRetention(ctx, "org_b", 7*time.Hour); err != nil || set || keep != 7*time.Hour {
		t.Errorf("org_b: %s %v %v", keep, set, err)
	}
}
