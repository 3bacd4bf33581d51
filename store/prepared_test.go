package store

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"garrison/event"
)

// TestColdStatementsUnderManyReaders: far more read transactions than pool
// connections, all on queries nobody has prepared yet, all finish. (Once,
// preparing inside a transaction waited for a connection that only the
// waiting transactions could give back.)
func TestColdStatementsUnderManyReaders(t *testing.T) {
	s := openFolding(t, filepath.Join(t.TempDir(), "g.db"), "org_a")
	defer s.Close()
	ingest(t, s, "org_a", NewEvent{Type: event.TypeDNS, Severity: event.High, Timestamp: foldNow, Source: "s", Asset: "h", Message: "m"})
	filters := []EventFilter{{}, {Ascending: true}, {SortBySeverity: true},
		{Severities: []event.Severity{event.High}}, {Types: []string{event.TypeDNS}}}
	for round := range 3 {
		s.closeStatements() // every query cold again
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for i := range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f := filters[i%len(filters)]
				f.Page.Limit = 10
				if _, total, err := s.Events(ctx, "org_a", f); err != nil {
					errs <- err
				} else if total != 1 {
					t.Errorf("round %d: total %d, want 1", round, total)
				}
			}()
		}
		wg.Wait()
		cancel()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
