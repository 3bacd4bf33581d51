package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"garrison/event"
)

// TestEventsMatchingDetails: the researcher finds an address held only in
// an event's details (src_ip, dest_ip or any other key), as a whole value:
// 10.0.0.1 is not 10.0.0.12. Other terms match anywhere in the details,
// as in the indicator and message; another organization's events never.
func TestEventsMatchingDetails(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a", "org_b")
	defer s.Close()
	at := foldNow.Add(-time.Hour)
	ev := func(msg, details string) NewEvent {
		e := NewEvent{Type: event.TypeThreat, Severity: event.Low, Timestamp: at, Source: "ids", Asset: "ws-01", Message: msg}
		if details != "" {
			e.Details = []byte(details)
		}
		return e
	}
	ingest(t, s, "org_a",
		ev("src", `{"src_ip":"203.0.113.7","dest_ip":"10.0.0.12","dest_port":443}`),
		ev("dest", `{"src_ip":"10.0.0.12","dest_ip":"203.0.113.7"}`),
		ev("nested", `{"flow":{"peer":"2001:DB8::7"},"http":{"hostname":"cdn.bad.example"}}`),
		ev("longer address only", `{"src_ip":"203.0.113.70"}`),
		ev("no details", ""),
	)
	ingest(t, s, "org_b", ev("other org", `{"src_ip":"203.0.113.7"}`))
	foldAll(t, s)
	tests := []struct {
		term string
		want []string
	}{
		{"203.0.113.7", []string{"src", "dest"}},
		{"2001:db8::7", []string{"nested"}},
		{"bad.example", []string{"nested"}},
		{"10.0.0.1", nil},
		{"198.51.100.1", nil},
	}
	for _, tc := range tests {
		t.Run(tc.term, func(t *testing.T) {
			got, scanned, err := s.EventsMatching(context.Background(), "org_a", tc.term, foldNow.Add(-24*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			var msgs []string
			for _, e := range got {
				msgs = append(msgs, e.Message)
			}
			slices.Sort(msgs)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(msgs, want) || scanned != 5 {
				t.Errorf("matched %q (scanned %d), want %q (scanned 5)", msgs, scanned, want)
			}
		})
	}
}

// TestInventoryHost: an asset of the inventory is found by hostname (any
// case) or address, in its own organization only.
func TestInventoryHost(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a", "org_b")
	defer s.Close()
	ctx := context.Background()
	if _, _, err := s.PutAssets(ctx, "org_a", []Asset{{Hostname: "web-1", IP: "203.0.113.10", OS: "linux", Software: []Software{}}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		org, term string
		want      string
	}{
		{"org_a", "203.0.113.10", "web-1"},
		{"org_a", "WEB-1", "web-1"},
		{"org_a", "203.0.113.1", ""},
		{"org_b", "203.0.113.10", ""},
	}
	for _, tc := range tests {
		host, ok, err := s.InventoryHost(ctx, tc.org, tc.term)
		if err != nil || host != tc.want || ok != (tc.want != "") {
			t.Errorf("%s %s: %q %v %v, want %q", tc.org, tc.term, host, ok, err, tc.want)
		}
	}
}
