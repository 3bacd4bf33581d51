package memory

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// The server's collector settings. Its live heap is small (tens of MiB)
// and a request's garbage short-lived, so collecting at three times the
// live heap instead of Go's two took about a tenth off the CPU of an
// events page (bench/suite, GOGC=100 against 200 on one server). The soft
// limit keeps a burst of ingest from growing the heap past it: near the
// limit the collector runs more often, it never refuses memory.
const (
	gcPercent = 200
	softLimit = 160 << 20
)

// minHeadroom is the least the heap may grow between two collections.
// Serving reads, the live heap is ~3 MiB, and three times that meant a
// collection every 6 MiB allocated: 15 a second at 33,000 health checks a
// second (gctrace). With 16 MiB of headroom there are a third as many.
// Under ingest the live heap is tens of MiB and three times it is more
// than this, so the peak is as before; and an idle server's garbage stays
// within the 16 MiB beyond the live heap that the Trimmer gives back.
const (
	minHeadroom = 16 << 20
	maxPercent  = 1000
)

// TuneGC applies them, unless the operator set GOGC or GOMEMLIMIT.
func TuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
		percent.Store(gcPercent)
		afterEachGC(keepHeadroom)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(softLimit)
	}
}

// percent is the GOGC keepHeadroom last set.
var percent atomic.Int64

// keepHeadroom sets GOGC so the next collection comes after at least
// minHeadroom of allocation, and never below gcPercent. It changes it only
// when the figure moves by more than a quarter: setting it stops the world.
func keepHeadroom() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	want := int64(gcPercent)
	if live := s[0].Value.Uint64(); live > 0 {
		want = min(max(want, int64(minHeadroom*100/live)), maxPercent)
	}
	if cur := percent.Load(); want*4 > cur*5 || want*5 < cur*4 {
		debug.SetGCPercent(int(want))
		percent.Store(want)
	}
}

// afterEachGC runs f after every collection: a cleanup on an object that
// is garbage at once runs after the cycle that finds it, and arms the next.
func afterEachGC(f func()) {
	type sentinel struct{ _ *int } // a pointer keeps it out of the tiny allocator, whose blocks die together
	runtime.AddCleanup(new(sentinel), func(struct{}) {
		afterEachGC(f) // armed first, so the next cycle finds it even if f is slow
		f()
	}, struct{}{})
}
