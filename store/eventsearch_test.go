package store

import (
	"context"
	"errors"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"garrison/event"
)

// A search that reads every event of its period waits for its turn, one
// at a time, and gives up with ErrSearchTooLong past its time; a search
// through an address's index, or the words' index, takes no turn.
func TestScanningSearchesTakeTurns(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	ingest(t, s, "org_a", NewEvent{Type: event.TypeActivity, Severity: event.Info, Timestamp: foldNow, Source: "syslog", Asset: "h",
		Message: "Failed password", Fields: event.Fields{SrcIP: netip.MustParseAddr("203.0.113.9")}})
	s.scans <- struct{}{} // another scan holds the turn
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	scan := EventFilter{Page: Page{Limit: 10}, Search: event.Search{Asset: "h"}}
	if _, _, err := s.Events(ctx, "org_a", scan); !errors.Is(err, ErrSearchTooLong) {
		t.Fatalf("waiting past its time: %v", err)
	}
	for _, indexed := range []event.Search{{SrcIP: netip.MustParsePrefix("203.0.113.0/24"), Source: "syslog"}, {Text: "failed", Asset: "h"}} {
		f := EventFilter{Page: Page{Limit: 10}, Search: indexed}
		if evs, n, err := s.Events(context.Background(), "org_a", f); err != nil || n != 1 || len(evs) != 1 {
			t.Fatalf("an indexed search %+v waited or failed: %d %v", indexed, n, err)
		}
	}
	<-s.scans
	if _, n, err := s.Events(context.Background(), "org_a", scan); err != nil || n != 1 {
		t.Fatalf("with the turn free: %d %v", n, err)
	}
	for q, want := range map[event.Search]bool{{Text: "x"}: false, {Asset: "h"}: true, {Source: "s", Rule: "r"}: true,
		{SrcIP: netip.MustParsePrefix("10.0.0.0/8"), Text: "x"}: false, {Asset: "h", Text: "x"}: false, {User: "u", Source: "s"}: false,
		{DstIP: netip.MustParsePrefix("10.0.0.1/32")}: false} {
		if scans(q) != want {
			t.Errorf("scans(%+v) = %v", q, !want)
		}
	}
}
