package main

import (
	"encoding/json"
	"testing"
	"time"
)

// The bodies must be what the scenarios claim: a measurement of the wrong
// size or of invalid events would mislead.
func TestBodies(t *testing.T) {
	h := hostileBody(5_500_000)
	if len(h) > ingestCap || len(h) < 15<<20 {
		t.Errorf("hostile body is %d bytes, want about 15.7 MiB", len(h))
	}
	v := validBody(10_000, ingestCap-1024, time.Now())
	if len(v) > ingestCap-1024 || len(v) < ingestCap-1024-10_000 {
		t.Errorf("valid body is %d bytes, want just under %d", len(v), ingestCap-1024)
	}
	var batch struct{ Events []benchEvent }
	if err := json.Unmarshal(v, &batch); err != nil {
		t.Fatal(err)
	}
	if len(batch.Events) != 10_000 {
		t.Fatalf("%d events, want 10000", len(batch.Events))
	}
	for _, e := range batch.Events {
		if len(e.Message) > 4096 || len(e.Details) > 16<<10 || e.Indicator == "" {
			t.Fatalf("event out of bounds: message %d, details %d bytes", len(e.Message), len(e.Details))
		}
	}
	t.Logf("hostile %d bytes, valid %d bytes, event about %d bytes", len(h), len(v), len(v)/10_000)
}
