package memory

import (
	"os"
	"runtime/debug"
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

// TuneGC applies them, unless the operator set GOGC or GOMEMLIMIT.
func TuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(softLimit)
	}
}
