package handlers

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync/atomic"
)

// validRequestID accepts a caller's id only if it is short and plain, so it
// cannot forge log lines.
func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// requestIDs are this process's random prefix and counters: unique, and
// cheaper than reading the system's randomness on every request. Requests
// take a number from the counter their hint picks (as route counters do,
// see metrics.Route.Observe), whose index goes into the id.
var requestIDs = struct {
	prefix string
	_      [64]byte // the prefix, read by every request, off the first counter's line
	n      [idCounters]paddedCounter
}{prefix: func() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()}

const idCounters = 16 // one hex digit in the id

// paddedCounter keeps a counter off its neighbours' cache line.
type paddedCounter struct {
	atomic.Uint64
	_ [56]byte
}

func newRequestID(hint uint) string {
	var buf [16 + 1 + 13]byte // the prefix, the counter's index and a base-36 uint64
	i := hint % idCounters
	b := append(append(buf[:0], requestIDs.prefix...), "0123456789abcdef"[i])
	return string(strconv.AppendUint(b, requestIDs.n[i].Add(1), 36))
}

// connHint tells apart the connections requests arrive on, cheaply: the
// last characters of the peer's address are its port's. Requests served
// at the same moment come on different connections, so per-request
// counters indexed by it are rarely touched by two cores at once.
func connHint(remoteAddr string) uint {
	var h uint
	for i := max(0, len(remoteAddr)-3); i < len(remoteAddr); i++ {
		h = h*31 + uint(remoteAddr[i])
	}
	return h
}
