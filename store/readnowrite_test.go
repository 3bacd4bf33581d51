package store

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/event"
)

// TestReadsAnswerOnAFullDisk: with the fold behind and the disk full, every
// read of derived data still answers, exactly what the events say, and
// writes nothing.
func TestReadsAnswerOnAFullDisk(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a", "org_b")
	defer s.Close()
	ctx := context.Background()
	mixed := func(n int, start time.Time, tag string) []NewEvent {
		out := make([]NewEvent, n)
		types := event.Types
		for i := range out {
			out[i] = NewEvent{Type: types[i%len(types)], Severity: event.Severity(i % event.Levels),
				Timestamp: start.Add(time.Duration(i) * 7 * time.Minute), Source: fmt.Sprintf("sensor-%d", i%3),
				Asset: fmt.Sprintf("%s-host-%d", tag, i%7), Message: "seen " + tag, Indicator: fmt.Sprintf("ioc-%d", i%11)}
		}
		return out
	}
	ingest(t, s, "org_a", mixed(300, foldNow.Add(-9*24*time.Hour), "old")...)
	ingest(t, s, "org_b", mixed(50, foldNow.Add(-2*24*time.Hour), "other")...)
	// Indicators only the fold has seen, with nothing of theirs waiting.
	for i := range 7 {
		ingest(t, s, "org_a", NewEvent{Type: event.TypeBlocked, Severity: event.Low, Timestamp: foldNow.Add(-time.Duration(40+i) * time.Hour),
			Source: "fw", Asset: "edge-1", Message: "blocked", Indicator: fmt.Sprintf("folded-only-%d", i)})
	}
	foldAll(t, s)
	ingest(t, s, "org_a", mixed(200, foldNow.Add(-30*time.Hour), "new")...)
	ingest(t, s, "org_a", NewEvent{Type: event.TypeThreat, Severity: event.High, Timestamp: foldNow.Add(-time.Minute),
		Source: "late", Asset: "late-host", Message: "late", Indicator: "ioc-new"})

	// The disk is full: no page can be added, so the fold cannot write.
	var pages int
	if err := s.writer.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	if err := s.settle(ctx); err == nil {
		t.Fatal("the fold wrote on a full disk: the test proves nothing")
	}
	folded := s.fold.foldedSeq.Load()

	raw := func(query string, args ...any) [][]string {
		rows, err := s.reader.Query(query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out [][]string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			row := make([]string, len(cols))
			for i, v := range vals {
				row[i] = fmt.Sprint(v)
			}
			out = append(out, row)
		}
		return out
	}
	since := foldNow.Add(-3 * 24 * time.Hour)

	c, err := s.CountEventsSince(ctx, "org_a", since)
	if err != nil {
		t.Fatal(err)
	}
	want := raw(`SELECT COUNT(*) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = 'org_a') AND ts >= ?`, floorMS(ms(since), hourMS))
	if fmt.Sprint(c.Total) != want[0][0] || c.BySeverity.Total() != c.Total {
		t.Errorf("events since: %d, want %s", c.Total, want[0][0])
	}

	days, err := s.DailyCounts(ctx, "org_a", foldNow.Add(-10*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range days {
		got = append(got, fmt.Sprint(ms(d.Day), " ", d.BySeverity.Total()))
	}
	var wantDays []string
	for _, r := range raw(`SELECT ts / ?1 * ?1, COUNT(*) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = 'org_a') GROUP BY 1 ORDER BY 1`, dayMS) {
		wantDays = append(wantDays, r[0]+" "+r[1])
	}
	if !slices.Equal(got, wantDays) {
		t.Errorf("days %v, want %v", got, wantDays)
	}

	assets, err := s.TopAssets(ctx, "org_a", since, 5)
	if err != nil {
		t.Fatal(err)
	}
	wantAssets := raw(`SELECT asset, COUNT(*) AS n FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = 'org_a') AND ts >= ? GROUP BY asset
		ORDER BY n DESC, asset LIMIT 5`, floorMS(ms(since), dayMS))
	if fmt.Sprint(tallyRows(assets)) != fmt.Sprint(wantAssets) {
		t.Errorf("assets %v, want %v", tallyRows(assets), wantAssets)
	}

	indicators, err := s.TopIndicators(ctx, "org_a", since, 20)
	if err != nil {
		t.Fatal(err)
	}
	// Counted over the window (from the start of its first day), not all time.
	wantIndicators := raw(`SELECT indicator, COUNT(*) AS n FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = 'org_a') AND indicator != '' AND ts >= ?
		GROUP BY indicator ORDER BY n DESC, indicator LIMIT 20`, floorMS(ms(since), dayMS))
	if fmt.Sprint(tallyRows(indicators)) != fmt.Sprint(wantIndicators) {
		t.Errorf("indicators %v, want %v", tallyRows(indicators), wantIndicators)
	}

	sources, err := s.Sources(ctx, "org_a")
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, src := range sources {
		got = append(got, fmt.Sprint(src.Name, " ", src.Count, " ", ms(src.LastSeen)))
	}
	var wantSources []string
	for _, r := range raw(`SELECT source, COUNT(*), MAX(ts) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = 'org_a') GROUP BY source ORDER BY MAX(ts) DESC, source`) {
		wantSources = append(wantSources, strings.Join(r, " "))
	}
	if !slices.Equal(got, wantSources) {
		t.Errorf("sources %v, want %v", got, wantSources)
	}

	// Threats, page by page, in the order the fold will leave them.
	wantThreats := raw(`SELECT indicator, COUNT(*), MIN(ts), MAX(ts), MAX(severity) FROM events WHERE org = (SELECT num FROM org_numbers WHERE org_id = 'org_a') AND indicator != ''
		GROUP BY indicator ORDER BY MAX(ts) DESC, indicator`)
	got = nil
	for offset := 0; ; offset += 5 {
		page, total, err := s.Threats(ctx, "org_a", Page{Limit: 5, Offset: offset})
		if err != nil {
			t.Fatal(err)
		}
		if total != len(wantThreats) {
			t.Fatalf("threats total %d, want %d", total, len(wantThreats))
		}
		if len(page) == 0 {
			break
		}
		for _, th := range page {
			got = append(got, fmt.Sprint(th.Indicator, " ", th.Count, " ", ms(th.FirstSeen), " ", ms(th.LastSeen), " ", int(th.MaxSeverity)))
			if len(th.Assets) == 0 {
				t.Errorf("threat %s lists no asset", th.Indicator)
			}
		}
	}
	var wantRows []string
	for _, r := range wantThreats {
		wantRows = append(wantRows, strings.Join(r, " "))
	}
	if !slices.Equal(got, wantRows) {
		t.Errorf("threats\n%v\nwant\n%v", got, wantRows)
	}

	// Alerts count their events at ingest, and the events page its total.
	if eventsBehindAlerts(t, s, "org_a") == 0 {
		t.Error("no alert was raised: the check proves nothing")
	}
	if _, total, err := s.Events(ctx, "org_a", EventFilter{Page: Page{Limit: 1}}); err != nil || total != 508 {
		t.Errorf("events total %d, %v", total, err)
	}
	if s.fold.foldedSeq.Load() != folded {
		t.Error("a read moved the fold")
	}
}

func tallyRows(ts []Tally) [][]string {
	out := [][]string{}
	for _, t := range ts {
		out = append(out, []string{t.Name, fmt.Sprint(t.Count)})
	}
	return out
}

// TestUnrecoveredFoldComesFirst: when Open could not fold what a crash
// left (a full disk), reads still answer, and ingest folds the backlog
// before it counts anything itself.
func TestUnrecoveredFoldComesFirst(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	for i := range 300 { // enough distinct rollup rows that folding needs new pages
		ingest(t, s, "org_a", NewEvent{Type: event.TypeBlocked, Severity: event.Low, Timestamp: foldNow.Add(-time.Duration(i) * time.Minute),
			Source: fmt.Sprint("fw-", i), Asset: fmt.Sprint("host-", i), Message: "blocked", Indicator: fmt.Sprint("ioc-", i)})
	}
	s.fold.unrecovered.Store(true) // as Open leaves it when its fold fails
	var pages int
	s.writer.QueryRow(`PRAGMA page_count`).Scan(&pages)
	s.writer.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages))
	if c, err := s.CountEventsSince(context.Background(), "org_a", foldNow.Add(-6*time.Hour)); err != nil || c.Total != 300 {
		t.Fatalf("read on a full disk: %d, %v", c.Total, err)
	}
	if _, err := s.Ingest(context.Background(), "org_a", lows(1, "ws-2", foldNow.Add(-time.Minute)), nil); err == nil ||
		!strings.Contains(err.Error(), "fold what a crash left") {
		t.Fatalf("ingest before the backlog is folded: %v", err)
	}
	s.writer.Exec(`PRAGMA max_page_count = 1073741823`)
	ingest(t, s, "org_a", lows(1, "ws-2", foldNow.Add(-time.Minute))...)
	if s.fold.unrecovered.Load() || s.fold.foldedSeq.Load() < 300 {
		t.Fatalf("the backlog was not folded first: folded to %d", s.fold.foldedSeq.Load())
	}
}
