package ratelimit

import (
	"encoding/binary"
	"net/netip"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// hotKeys are the client keys a busy server sees over and over.
func hotKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = IPKey(ipv4(uint32(0xC6336400 + i))) // from 198.51.100.0
	}
	return keys
}

func ipv4(i uint32) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], i)
	return netip.AddrFrom4(b)
}

// BenchmarkAllow measures one goroutine on the real clock, as production runs.
func BenchmarkAllow(b *testing.B) {
	l := New(Limit{N: 100, Window: time.Minute})
	keys := hotKeys(4096)
	i := 0
	for b.Loop() {
		l.Allow(keys[i&4095])
		i++
	}
}

// BenchmarkAllowParallel8 runs 8 goroutines whatever GOMAXPROCS is.
func BenchmarkAllowParallel8(b *testing.B) {
	l := New(Limit{N: 100, Window: time.Minute})
	keys := hotKeys(4096)
	b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0)))
	var start atomic.Uint32
	b.RunParallel(func(pb *testing.PB) {
		i := int(start.Add(997)) // each goroutine starts elsewhere in the keys
		for pb.Next() {
			l.Allow(keys[i&4095])
			i++
		}
	})
}

// BenchmarkBytesPerKey reports the heap each tracked key costs.
func BenchmarkBytesPerKey(b *testing.B) {
	const keys = 100_000
	names := make([]string, keys)
	for i := range names {
		names[i] = "key-" + strconv.Itoa(i)
	}
	clock := newFakeClock()
	for b.Loop() {
		before := heapInUse()
		l := New(Limit{N: 10, Window: time.Minute}, WithClock(clock.Now), WithMaxKeys(2*keys))
		for _, name := range names {
			l.Allow(name)
		}
		after := heapInUse()
		if l.Len() != keys {
			b.Fatalf("Len = %d, want %d", l.Len(), keys)
		}
		b.ReportMetric(float64(after-before)/keys, "B/key")
		runtime.KeepAlive(l)
	}
}

// BenchmarkFlood1M throws a million distinct IPv4 clients at a limiter with
// the default cap and reports what it kept.
func BenchmarkFlood1M(b *testing.B) {
	const flood = 1_000_000
	clock := newFakeClock()
	for b.Loop() {
		before := heapInUse()
		l := New(Limit{N: 10, Window: time.Minute}, WithClock(clock.Now))
		for i := range flood {
			l.Allow(IPKey(ipv4(0x0B000000 + uint32(i)))) // from 11.0.0.0
		}
		after := heapInUse()
		if l.Len() > DefaultMaxKeys {
			b.Fatalf("Len = %d, over the cap of %d", l.Len(), DefaultMaxKeys)
		}
		b.ReportMetric(float64(l.Len()), "keys")
		b.ReportMetric(float64(after-before), "heap-B")
		runtime.KeepAlive(l)
	}
}

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
