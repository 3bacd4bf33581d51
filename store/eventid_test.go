package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"garrison/event"
)

func TestEventIDs(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"))
	defer s.Close()
	other := openFolding(t, filepath.Join(t.TempDir(), "other.db"))
	defer other.Close()
	ids := s.eventIDs
	seen := map[string]bool{}
	for _, seq := range []int64{1, 2, 3, 1000, 1 << 40, 1<<63 - 1} {
		id := ids.of(seq)
		if len(id) != len("evt_")+26 || seen[id] {
			t.Fatalf("seq %d: id %q (length or repeat)", seq, id)
		}
		seen[id] = true
		if got, ok := ids.seqOf(id); !ok || got != seq {
			t.Fatalf("seq %d: id %q reads back as %d, %v", seq, id, got, ok)
		}
		if _, ok := other.eventIDs.seqOf(id); ok {
			t.Fatalf("seq %d: another database's key reads %q", seq, id)
		}
	}
	flip := []byte(ids.of(7))
	flip[10] = map[bool]byte{true: 'b', false: 'a'}[flip[10] == 'a']
	for _, c := range []struct{ name, id string }{
		{"a stored id of NewID", NewID("evt", foldNow)},
		{"one changed digit", string(flip)},
		{"another prefix", "alr_" + strings.TrimPrefix(ids.of(7), "evt_")},
		{"short", "evt_0123"},
		{"not base32", "evt_" + strings.Repeat("u", 26)},
		{"top digit too large", "evt_" + strings.Repeat("z", 26)},
		{"empty", ""},
	} {
		if seq, ok := ids.seqOf(c.id); ok {
			t.Errorf("%s: %q read as seq %d", c.name, c.id, seq)
		}
	}
}

// An event stored before ids were derived keeps its id across the
// upgrade, found by it; a new event is found by its derived id; neither is
// found in another organization.
func TestEventIDsAcrossTheUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	schema := realSchema(t)
	v25, _, _ := strings.Cut(schema, "-- migration: 26")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(context.Background(), db, v25); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO orgs (id, name, plan, created_at) VALUES ('org_a', 'A', 'pro', 0), ('org_b', 'B', 'pro', 0)`,
		`INSERT INTO events (seq, id, org_id, ts, type, severity, source, asset, message, received_at, src_ip) VALUES
			(1, 'evt_01kold0000000000000000000a', 'org_a', 1, 'policy_violation', 1, 'edr', 'ws-1', 'old', 0, NULL)`,
		`INSERT INTO event_originals (seq, original) VALUES (1, '{"as":"received"}')`,
		`UPDATE fold_state SET events_hw = 1`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	s := openFolding(t, path)
	defer s.Close()
	ctx := context.Background()
	old, err := s.Event(ctx, "org_a", "evt_01kold0000000000000000000a")
	if err != nil || old.Message != "old" || old.Original != `{"as":"received"}` {
		t.Fatalf("the old event: %+v, %v", old, err)
	}
	// Indexed when the store opened (event_text_backfill): found by its words.
	if found, n, err := s.Events(ctx, "org_a", EventFilter{Search: event.Search{Text: "OLD"}, Page: Page{Limit: 5}}); err != nil || n != 1 ||
		len(found) != 1 || found[0].ID != old.ID {
		t.Fatalf("the old event by its words: %d %+v %v", n, found, err)
	}
	ids, err := s.Ingest(ctx, "org_a", lows(1, "ws-2", foldNow), nil)
	if err != nil {
		t.Fatal(err)
	}
	if seq, ok := s.eventIDs.seqOf(ids[0]); !ok || seq != 2 {
		t.Fatalf("new id %q: seq %d, %v", ids[0], seq, ok)
	}
	got, err := s.Event(ctx, "org_a", ids[0])
	if err != nil || got.ID != ids[0] || got.Asset != "ws-2" {
		t.Fatalf("the new event: %+v, %v", got, err)
	}
	page, _, err := s.Events(ctx, "org_a", EventFilter{Page: Page{Limit: 10}})
	if err != nil || len(page) != 2 || page[0].ID != ids[0] || page[1].ID != "evt_01kold0000000000000000000a" {
		t.Fatalf("the list: %+v, %v", page, err)
	}
	for _, id := range []string{ids[0], "evt_01kold0000000000000000000a"} {
		if _, err := s.Event(ctx, "org_b", id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("org_b reads %s: %v", id, err)
		}
	}
}
