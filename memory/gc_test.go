package memory

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func gogc() uint64 { return metric("/gc/gogc:percent") }

// TestHeadroomAfterEachGC: with a small live heap, the percent set after a
// collection leaves at least minHeadroom to allocate before the next; a
// large live heap keeps gcPercent.
func TestHeadroomAfterEachGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	percent.Store(gcPercent)
	ran := make(chan struct{}, 8)
	afterEachGC(func() {
		keepHeadroom()
		select {
		case ran <- struct{}{}:
		default:
		}
	})
	for range 2 { // the second proves it re-armed
		runtime.GC()
		select {
		case <-ran:
		case <-time.After(5 * time.Second):
			t.Fatal("nothing ran after a collection")
		}
	}
	// A test binary's live heap is a few MiB: 16 MiB of headroom is more
	// than twice it.
	if got := gogc(); got <= gcPercent {
		t.Fatalf("GOGC %d with a small heap; want above %d", got, gcPercent)
	}
	big := make([]*[1 << 20]byte, 64) // 64 MiB live
	for i := range big {
		big[i] = new([1 << 20]byte)
	}
	for len(ran) > 0 { // signals of collections the allocation itself caused
		<-ran
	}
	runtime.GC()
	<-ran
	// Within the quarter keepHeadroom leaves alone.
	if got := gogc(); got > gcPercent*5/4 {
		t.Fatalf("GOGC %d with 64 MiB live; want about %d", got, gcPercent)
	}
	runtime.KeepAlive(big)
}
