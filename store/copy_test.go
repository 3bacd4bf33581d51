package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"garrison/event"
	"garrison/store"
	"garrison/store/storetest"
)

// An appliance's SQLite store copied into PostgreSQL reads the same there:
// every table's rows counted and summed on both sides, the events under
// their ids, found by their words, counted, with their alert and run; a
// second copy into the same database is refused.
func TestCopyToPostgres(t *testing.T) {
	url := storetest.Postgres(t)
	ctx := context.Background()
	dir := t.TempDir()
	src, err := store.Open(ctx, store.Config{Path: filepath.Join(dir, "garrison.db"), Schema: storetest.Schema(t)})
	if err != nil {
		t.Fatal(err)
	}
	u := storetest.Account(t, src, "appliance")
	start := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	var evs []store.NewEvent
	for i := range 40 {
		evs = append(evs, store.NewEvent{Type: event.TypeThreat, Severity: event.Low, Timestamp: start.Add(time.Duration(i) * time.Second),
			Source: "ids", Asset: "web-1", Message: fmt.Sprintf("scan number%d", i), Original: `{"raw":true}`})
	}
	ids, err := src.Ingest(ctx, u.OrgID, evs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.QueueRun(ctx, store.NewRun{OrgID: u.OrgID, Agent: "onboarding", Params: json.RawMessage(`{}`), RequestedBy: u.ID}); err != nil {
		t.Fatal(err)
	}
	if err := src.Fold(ctx); err != nil {
		t.Fatal(err)
	}
	var tables int
	copied, err := src.CopyToPostgres(ctx, url, storetest.Schema(t), func(store.TableCopy) { tables++ })
	if err != nil {
		t.Fatal(err)
	}
	if tables != len(copied) || tables < 50 {
		t.Fatalf("%d tables copied (%d reported)", len(copied), tables)
	}
	rows := map[string]int64{}
	for _, c := range copied {
		rows[c.Table] = c.Rows
	}
	if rows["events"] != 40 || rows["event_originals"] != 40 || rows["users"] != 1 || rows["agent_runs"] != 1 || rows["alerts"] != 1 {
		t.Fatalf("rows copied: %v", rows)
	}
	if _, err := src.CopyToPostgres(ctx, url, storetest.Schema(t), nil); !errors.Is(err, store.ErrTargetNotEmpty) {
		t.Fatalf("a second copy: %v", err)
	}
	src.Close()

	dst := storetest.OpenWith(t, store.Config{Database: url})
	got, err := dst.Event(ctx, u.OrgID, ids[7])
	if err != nil || got.Message != "scan number7" {
		t.Fatalf("event %s on PostgreSQL: %+v, %v", ids[7], got, err)
	}
	found, n, err := dst.Events(ctx, u.OrgID, store.EventFilter{Search: event.Search{Text: "number12"}, Page: store.Page{Limit: 10}})
	if err != nil || n != 1 || len(found) != 1 || found[0].ID != ids[12] {
		t.Fatalf("text search on the copy: %d %v %v", n, found, err)
	}
	if c, err := dst.CountEventsSince(ctx, u.OrgID, start.Add(-time.Hour)); err != nil || c.Total != 40 {
		t.Fatalf("counted %d, %v", c.Total, err)
	}
	// New rows take new numbers.
	more, err := dst.Ingest(ctx, u.OrgID, evs[:1], nil)
	if err != nil || more[0] == ids[0] {
		t.Fatalf("ingest after the copy: %v %v", more, err)
	}
	if _, err := dst.QueueRun(ctx, store.NewRun{OrgID: u.OrgID, Agent: "onboarding", Params: json.RawMessage(`{}`), RequestedBy: u.ID}); err != nil {
		t.Fatalf("a run queued after the copy: %v", err)
	}
}
