package store

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"garrison/event"
)

// fieldsSeedBatches is the database the measured batches go into (SEED_BATCHES).
var fieldsSeedBatches = 200

// BenchmarkIngestSeededFields is ingest into a seeded database with and
// without normalised addresses, so that an index's cost shows apart from
// the rest: go test -run XXX -bench IngestSeededFields -benchtime 50x ./store
func BenchmarkIngestSeededFields(b *testing.B) {
	for _, c := range []struct{ withIP, withOriginal bool }{{false, false}, {true, false}, {true, true}} {
		withIP := c.withIP
		b.Run(fmt.Sprintf("src_ip=%v,original=%v", c.withIP, c.withOriginal), func(b *testing.B) {
			s := openFolding(b, filepath.Join(b.TempDir(), "g.db"), "org_a")
			defer s.Close()
			ctx := context.Background()
			n := 0
			batch := func() []NewEvent {
				evs := make([]NewEvent, 1000)
				for i := range evs {
					e := NewEvent{Type: event.TypeBlocked, Severity: event.Low, Timestamp: foldNow.Add(-30*24*time.Hour + time.Duration(n)*2*time.Second),
						Source: "fw", Asset: fmt.Sprintf("ws-%03d", n%400), Message: "Blocked outbound connection to 198.18.0.1:443", Indicator: "198.18.0.1"}
					if withIP && n%4 == 0 {
						e.Fields.SrcIP = netip.AddrFrom4([4]byte{10, 20, byte(n % 400 / 250), byte(n%400%250 + 1)})
					}
					if c.withOriginal {
						e.Original = "<86>1 2026-11-21T10:00:00Z srv-001 sshd 1193 - - Failed password for root from 203.0.113.9 port 52942 ssh2"
					}
					evs[i] = e
					n++
				}
				return evs
			}
			for range fieldsSeedBatches {
				if _, err := s.Ingest(ctx, "org_a", batch(), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.Ingest(ctx, "org_a", batch(), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
