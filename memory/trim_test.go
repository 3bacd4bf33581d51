package memory

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

func released() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

var sink [][]byte

// TestTrimAfterBurst: a burst of garbage is handed back once the process is
// idle, not while it is still allocating, and not twice; the release (the
// store's caches) runs once each time the process goes from work to idle.
func TestTrimAfterBurst(t *testing.T) {
	runtime.GC()
	releases := 0
	tr := NewTrimmer(func() { releases++ })
	if !tr.Check() || releases != 1 {
		t.Fatalf("the first idle look after start: %d releases, want 1", releases)
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
	if releases != 1 {
		t.Errorf("%d releases on going idle, want 1", releases)
	}
	if tr.Check() || releases != 1 {
		t.Errorf("trimmed again with nothing new to give back (%d releases)", releases)
	}
	burst()
	tr.Check()
	if !tr.Check() || releases != 2 {
		t.Errorf("a second burst, then idle: %d releases, want 2", releases)
	}
}
