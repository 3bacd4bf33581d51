package valid

import (
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

func TestClip(t *testing.T) {
	mib15 := strings.Repeat("a", 15<<20)
	cases := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"fits", "short", 8, "short"},
		{"exactly at the cap", "12345678", 8, "12345678"},
		{"empty", "", 0, ""},
		{"nothing allowed", "abc", 0, ""},
		{"a cap too small for any marker", "abcdef", 2, "ab"},
		{"a short cap keeps its text: the ellipsis alone", "abcdefghijkl", 10, "abcdefg…"},
		{"the marker names the size cut", strings.Repeat("x", 200), 64, strings.Repeat("x", 34) + "… [truncated from 200 bytes]"},
		{"binary units", mib15, 100, strings.Repeat("a", 71) + "… [truncated from 15.0 MiB]"},
		// é is two bytes: a cut inside it backs up to its start.
		{"never splits a rune", strings.Repeat("é", 100), 64, strings.Repeat("é", 17) + "… [truncated from 200 bytes]"},
		{"never splits a four-byte rune", strings.Repeat("😀", 10), 7, "😀…"},
		// Invalid UTF-8 backs up three bytes at most, then is cut where it falls.
		{"invalid UTF-8", strings.Repeat("\x80", 100), 64, strings.Repeat("\x80", 31) + "… [truncated from 100 bytes]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Clip(c.in, c.max)
			if got != c.want {
				t.Fatalf("Clip(%.20q…, %d) = %q, want %q", c.in, c.max, got, c.want)
			}
			if len(got) > c.max {
				t.Fatalf("%d bytes, over %d", len(got), c.max)
			}
		})
	}
}

// A cut value must not keep the original's memory alive.
func TestClipCopies(t *testing.T) {
	big := strings.Repeat("z", 1<<20)
	got := Clip(big, 4096)
	if unsafe.StringData(got) == unsafe.StringData(big) {
		t.Fatal("the clipped text shares the original's bytes")
	}
	if got := Clip(big, 1); unsafe.StringData(got) == unsafe.StringData(big) {
		t.Fatal("the clipped text (no marker) shares the original's bytes")
	}
}

func TestClipList(t *testing.T) {
	cases := []struct {
		in      []int
		max     int
		want    []int
		dropped int
	}{
		{nil, 3, nil, 0},
		{[]int{1, 2}, 3, []int{1, 2}, 0},
		{[]int{1, 2, 3}, 3, []int{1, 2, 3}, 0},
		{[]int{1, 2, 3, 4, 5}, 3, []int{1, 2, 3}, 2},
		{[]int{1, 2}, 0, []int{}, 2},
	}
	for _, c := range cases {
		got, dropped := ClipList(c.in, c.max)
		if len(got) != len(c.want) || dropped != c.dropped || cap(got) > c.max && dropped > 0 {
			t.Fatalf("ClipList(%v, %d) = %v (cap %d), %d; want %v, %d", c.in, c.max, got, cap(got), dropped, c.want, c.dropped)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("ClipList(%v, %d) = %v, want %v", c.in, c.max, got, c.want)
			}
		}
	}
}

// FuzzClip: whatever the text and cap, the result fits the cap, is a
// prefix of the text when it was not cut, keeps valid UTF-8 valid, and
// keeps as much of the text as the marker leaves room for.
func FuzzClip(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = max % (1 << 16)
		if max < 0 {
			max = -max
		}
		got := Clip(s, max)
		if len(got) > max {
			t.Fatalf("Clip(%q, %d) = %q: %d bytes", s, max, got, len(got))
		}
		if len(s) <= max {
			if got != s {
				t.Fatalf("Clip(%q, %d) = %q, want it unchanged", s, max, got)
			}
			return
		}
		kept, marker, _ := strings.Cut(got, "…")
		if !strings.HasPrefix(s, kept) {
			t.Fatalf("Clip(%q, %d) = %q: not a prefix of the text", s, max, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Clip(%q, %d) = %q: invalid UTF-8 from valid", s, max, got)
		}
		if room := max - len("…") - len(marker); max >= len("…") && len(kept) < room-(utf8.UTFMax-1) {
			t.Fatalf("Clip(%q, %d) = %q: kept %d bytes with room for %d", s, max, got, len(kept), room)
		}
	})
}
