// Package memory gives back to the operating system the heap a burst of
// work leaves behind, once the process is idle: Go keeps freed heap mapped
// until its next collection, which an idle server may not run for minutes,
// so an appliance that ingested a million events at noon would otherwise
// hold that memory all night.
package memory

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Thresholds of a trim: the process allocated less than idleAllocs since
// the last look, and holds more than slack bytes of heap beyond what was
// live at the last collection.
const (
	idleAllocs = 1 << 20
	slack      = 16 << 20
)

// Trimmer watches the heap; check decides on one look.
type Trimmer struct {
	samples    []metrics.Sample
	lastAllocs uint64
}

// NewTrimmer starts watching from the heap's state now.
func NewTrimmer() *Trimmer {
	t := &Trimmer{samples: []metrics.Sample{
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}}
	t.read()
	return t
}

// Run looks every interval until ctx ends.
func (t *Trimmer) Run(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			t.Check()
		}
	}
}

// Check returns the heap to the operating system when the process has
// been idle since the last check and holds much more than it uses. It
// reports whether it did.
func (t *Trimmer) Check() bool {
	before := t.lastAllocs
	allocs, excess := t.read()
	if allocs-before >= idleAllocs || excess <= slack {
		return false
	}
	debug.FreeOSMemory()
	t.read() // the collection's own allocations do not count as work
	return true
}

// read samples the heap: bytes allocated so far, and bytes held (objects,
// unused span space, free pages not yet returned) beyond the live heap.
func (t *Trimmer) read() (allocs, excess uint64) {
	metrics.Read(t.samples)
	allocs = t.samples[0].Value.Uint64()
	live := t.samples[1].Value.Uint64()
	held := t.samples[2].Value.Uint64() + t.samples[3].Value.Uint64() + t.samples[4].Value.Uint64()
	t.lastAllocs = allocs
	if held > live {
		excess = held - live
	}
	return allocs, excess
}

// Release returns freed heap to the operating system now, for a part of
// the server that has just dropped what it held (the store, once idle):
// the trimmer would only notice after the next collection.
func Release() { debug.FreeOSMemory() }
