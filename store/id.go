package store

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// crockford is Crockford's base32 alphabet in lower case: it sorts like the
// numbers it encodes and has no ambiguous letters.
const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

// NewID returns prefix + "_" + 26 characters: a 48-bit millisecond timestamp
// followed by 80 random bits, so ids sort by creation time and new rows land
// at the end of their index.
func NewID(prefix string, now time.Time) string {
	var raw [16]byte
	binary.BigEndian.PutUint64(raw[:8], uint64(now.UnixMilli())<<16)
	rand.Read(raw[6:])
	var out [26]byte
	// 128 bits as 26 base32 digits: the first digit carries the top 3 bits.
	hi := binary.BigEndian.Uint64(raw[:8])
	lo := binary.BigEndian.Uint64(raw[8:])
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return prefix + "_" + string(out[:])
}
