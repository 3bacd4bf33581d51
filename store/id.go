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
	return prefix + "_" + encode128(raw)
}

// encode128 writes 128 bits as 26 base32 digits: the first digit carries
// the top 3 bits.
func encode128(raw [16]byte) string {
	var out [26]byte
	hi := binary.BigEndian.Uint64(raw[:8])
	lo := binary.BigEndian.Uint64(raw[8:])
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

// decode128 reads what encode128 wrote; false for anything else.
func decode128(s string) ([16]byte, bool) {
	var raw [16]byte
	if len(s) != 26 {
		return raw, false
	}
	var hi, lo uint64
	for i := range 26 {
		d := digitOf(s[i])
		if d < 0 || (i == 0 && d > 7) {
			return raw, false
		}
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(d)
	}
	binary.BigEndian.PutUint64(raw[:8], hi)
	binary.BigEndian.PutUint64(raw[8:], lo)
	return raw, true
}

// digitOf is a base32 digit's value in crockford, -1 when it is none.
func digitOf(c byte) int {
	for i := range len(crockford) {
		if crockford[i] == c {
			return i
		}
	}
	return -1
}
