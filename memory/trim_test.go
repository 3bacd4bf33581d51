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
// idle, not while it is still allocating, and not twice.
func TestTrimAfterBurst(t *testing.T) {
	runtime.GC()
	tr := NewTrimmer()
	burst := func() {
		for range 64 {
			sink = append(sink, make([]byte, 1<<20))
		}
		sink = nil
	}
	burst()
	if tr.Check() {
		t.Fatal("trimmed while allocating")
	}
	before := released()
	if !tr.Check() {
		t.Fatal("idle with 64 MiB of garbage, and not trimmed")
	}
	if got := released() - before; got < 32<<20 {
		t.Errorf("released %d MiB, want most of the 64 MiB burst", got>>20)
	}
	if tr.Check() {
		t.Error("trimmed again with nothing new to give back")
	}
}
