package ratelimit

import (
	"math/rand/v2"
	"testing"
)

// TestTableMatchesAMap drives the table and a Go map with the same random
// operations. Half the hashes crowd the last home slots so clusters wrap
// around the end of the table, where deletion is easiest to get wrong.
func TestTableMatchesAMap(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 42))
		randomHash := func() uint64 {
			h := hashOf(rng.Uint64())
			if rng.IntN(2) == 0 {
				h |= 0xF << 60
			}
			return h
		}
		tbl := newTable(0)
		ref := make(map[uint64]bucket)
		for op := range 3000 {
			switch r := rng.IntN(10); {
			case r < 6:
				h := randomHash()
				if _, ok := ref[h]; ok {
					continue
				}
				b := bucket{credit: int64(op), stamp: int64(h)}
				tbl.insert(h, b)
				ref[h] = b
			case r < 8:
				if b := tbl.find(randomHash()); b != nil && ref[hashOf(uint64(b.stamp))] != *b {
					t.Fatalf("seed %d op %d: found a bucket the map does not have", seed, op)
				}
			case r < 9:
				drop := rng.IntN(3)
				tbl.deleteFunc(func(b *bucket) bool { return b.credit%3 == int64(drop) })
				for h, b := range ref {
					if b.credit%3 == int64(drop) {
						delete(ref, h)
					}
				}
			default:
				tbl.shrink()
			}
			assertTableEqual(t, &tbl, ref)
		}
	}
}

func assertTableEqual(t *testing.T, tbl *table, ref map[uint64]bucket) {
	t.Helper()
	if tbl.len() != len(ref) {
		t.Fatalf("table holds %d, map %d", tbl.len(), len(ref))
	}
	if tbl.used*4 > len(tbl.slots)*3 {
		t.Fatalf("table over 3/4 full: %d of %d", tbl.used, len(tbl.slots))
	}
	for h, want := range ref {
		got := tbl.find(h)
		if got == nil || *got != want {
			t.Fatalf("find(%#x) = %v, want %v", h, got, want)
		}
	}
}

func TestTableShrinksAfterMassDeletion(t *testing.T) {
	tbl := newTable(0)
	for h := range uint64(10_000) {
		tbl.insert(hashOf(h*0x9E3779B97F4A7C15), bucket{credit: int64(h)})
	}
	grown := len(tbl.slots)
	tbl.deleteFunc(func(b *bucket) bool { return b.credit >= 10 })
	tbl.shrink()
	if tbl.len() != 10 || len(tbl.slots) >= grown/100 {
		t.Fatalf("after deleting all but 10: len %d, %d slots (was %d)", tbl.len(), len(tbl.slots), grown)
	}
	for h := range uint64(10) {
		if b := tbl.find(hashOf(h * 0x9E3779B97F4A7C15)); b == nil || b.credit != int64(h) {
			t.Fatalf("lost entry %d", h)
		}
	}
}

func TestHashOfNeverZero(t *testing.T) {
	for _, h := range []uint64{0, 1, 2, 1 << 63, ^uint64(0)} {
		if hashOf(h) == 0 {
			t.Fatalf("hashOf(%#x) = 0", h)
		}
	}
}
