package ingest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"garrison/store/storetest"
)

// BenchmarkBatchBesideAFlood times one organization's one-event batches
// while another's eight senders store 2,000-event batches without pause:
// taken in turn, against the store's arrival order.
func BenchmarkBatchBesideAFlood(b *testing.B) {
	for _, fair := range []bool{true, false} {
		name := map[bool]string{true: "in_turn", false: "arrival_order"}[fair]
		b.Run(name, func(b *testing.B) {
			st := storetest.Open(b)
			flooding, quiet := storetest.Account(b, st, "flood").OrgID, storetest.Account(b, st, "quiet").OrgID
			in := New(Config{Store: st, Now: time.Now})
			if !fair {
				in.turns = nil
			}
			event := func(i int) string {
				return fmt.Sprintf(`{"type":"threat_detected","severity":"low","timestamp":"%s","source":"edr","asset":"ws-%d","message":"m"}`,
					time.Now().UTC().Format(time.RFC3339), i%50)
			}
			var big strings.Builder
			big.WriteString(`{"events":[`)
			for i := range 2000 {
				if i > 0 {
					big.WriteByte(',')
				}
				big.WriteString(event(i))
			}
			big.WriteString(`]}`)
			flood := []byte(big.String())
			ctx, stop := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					for ctx.Err() == nil {
						if _, err := in.Ingest(ctx, flooding, KindEvents, flood, false); err != nil && ctx.Err() == nil {
							b.Error(err)
							return
						}
					}
				})
			}
			time.Sleep(200 * time.Millisecond) // the flood is under way
			var waits []time.Duration
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				if _, err := in.Ingest(context.Background(), quiet, KindEvents, []byte(event(i)), false); err != nil {
					b.Fatal(err)
				}
				waits = append(waits, time.Since(t0))
			}
			stop()
			wg.Wait()
			slices.Sort(waits)
			b.ReportMetric(float64(waits[len(waits)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(waits[len(waits)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
