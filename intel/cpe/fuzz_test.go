package cpe

import (
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that whatever it accepts
// survives a round trip through String. Seeds are in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			return
		}
		out := n.String()
		if strings.HasPrefix(s, "cpe:2.3:") && out != s {
			t.Fatalf("Parse(%q).String() = %q", s, out)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) succeeded, but Parse of its String %q: %v", s, out, err)
		}
		if again != n {
			t.Fatalf("round trip of %q: %#v, then %#v", s, n, again)
		}
		if again.String() != out {
			t.Fatalf("String not stable for %q: %q, then %q", s, out, again.String())
		}
	})
}

// FuzzCompare checks that Compare never panics and is reflexive and
// antisymmetric. Seeds are in testdata/fuzz/FuzzCompare.
func FuzzCompare(f *testing.F) {
	f.Fuzz(func(t *testing.T, a, b string) {
		if c := Compare(a, a); c != 0 {
			t.Fatalf("Compare(%q, %q) = %d", a, a, c)
		}
		ab, ba := Compare(a, b), Compare(b, a)
		if ab != -ba || ab < -1 || ab > 1 {
			t.Fatalf("Compare(%q, %q) = %d, Compare(%q, %q) = %d", a, b, ab, b, a, ba)
		}
		// Zero padding must not change the order against anything.
		if c := Compare(a+".0", b); c != ab {
			t.Fatalf("Compare(%q, %q) = %d but Compare(%q, %q) = %d", a+".0", b, c, a, b, ab)
		}
	})
}
