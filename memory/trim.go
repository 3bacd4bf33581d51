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
	// releaseAfter is how many idle looks in a row, after work, the
	// release waits for (with Run's 5 s looks, 10 to 15 s of quiet).
	releaseAfter = 2
)

// Trimmer watches the heap; check decides on one look.
type Trimmer struct {
	samples    []metrics.Sample
	lastAllocs uint64
	busy       bool   // the process worked since it last went idle
	quiet      int    // idle looks in a row since that work
	release    func() // what the rest of the server gives back on going idle
}

// NewTrimmer starts watching from the heap's state now. release, if not
// nil, runs each time the process has been idle for releaseAfter looks in
// a row after work, before the heap is returned: the store empties its
// caches then. One quiet look is not enough: a sensor posting every few
// seconds would otherwise have its caches and alert memory dropped
// between batches. Starting counts as work (opening the store warmed its
// caches), so the first releaseAfter idle looks release.
func NewTrimmer(release func()) *Trimmer {
	t := &Trimmer{release: release, busy: true, samples: []metrics.Sample{
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
// been idle since the last check and either has just gone idle (then the
// release runs first) or holds much more than it uses. Idle is measured by
// allocation, not by requests or writes: a health check a second or the
// background bookkeeping writes do not keep a server busy. It reports
// whether it returned the heap.
func (t *Trimmer) Check() bool {
	before := t.lastAllocs
	allocs, excess := t.read()
	if allocs-before >= idleAllocs {
		t.busy, t.quiet = true, 0
		return false
	}
	t.quiet++
	wentIdle := t.busy && t.quiet >= releaseAfter
	if !wentIdle && excess <= slack {
		return false
	}
	if wentIdle {
		t.busy = false
		if t.release != nil {
			t.release()
		}
	}
	debug.FreeOSMemory()
	t.read() // the release's and the collection's own allocations are not work
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
