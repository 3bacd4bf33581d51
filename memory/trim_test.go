package memory

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// metric reads one of the runtime's uint64 metrics.
func metric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func released() uint64 { return metric("/memory/classes/heap/released:bytes") }

var sink [][]byte

// TestTrimAfterBurst: a burst of garbage is handed back once the process is
// idle, not while it is still allocating, and not twice; the release (the
// store's caches) runs once per stretch of work, after two quiet looks in
// a row, so that work coming back every look or two keeps its caches.
func TestTrimAfterBurst(t *testing.T) {
	runtime.GC()
	releases := 0
	tr := NewTrimmer(func() { releases++ })
	tr.Check()
	tr.Check()
	if releases != 1 {
		t.Fatalf("start-up, then two idle looks: %d releases, want 1", releases)
	}
	releases = 0
	burst := func() {
		for range 64 {
			sink = append(sink, make([]byte, 1<<20))
		}
		sink = nil
	}
	burst()
	if tr.Check() || releases != 0 {
		t.Fatalf("trimmed while allocating (%d releases)", releases)
	}
	before := released()
	if !tr.Check() {
		t.Fatal("idle with 64 MiB of garbage, and not trimmed")
	}
	if got := released() - before; got < 32<<20 {
		t.Errorf("released %d MiB, want most of the 64 MiB burst", got>>20)
	}
	if releases != 0 {
		t.Errorf("%d releases after one quiet look, want 0", releases)
	}
	burst() // work comes back before a second quiet look: caches stay
	tr.Check()
	tr.Check()
	if releases != 0 {
		t.Errorf("work every other look: %d releases, want 0", releases)
	}
	tr.Check()
	if releases != 1 {
		t.Errorf("two quiet looks after work: %d releases, want 1", releases)
	}
	if tr.Check() || releases != 1 {
		t.Errorf("trimmed again with nothing new to give back (%d releases)", releases)
	}
}
