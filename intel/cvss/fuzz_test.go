package cvss

import (
	"math"
	"testing"
)

// The seed corpora are in testdata/fuzz/<FuzzName>/: valid vectors of
// each shape and malformed ones near the interesting boundaries.

// checkScore: every base score is on the one-decimal grid within [0, 10].
func checkScore(t *testing.T, s string, score float64) {
	t.Helper()
	if !(score >= 0 && score <= 10) || math.Round(score*10)/10 != score {
		t.Fatalf("%q: BaseScore() = %v, not a one-decimal score in [0, 10]", s, score)
	}
}

func FuzzParseV3(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseV3(s)
		if err != nil {
			if v != (Vector{}) {
				t.Fatalf("%q: error %v with a non-zero vector", s, err)
			}
			return
		}
		if len(s) > maxLen {
			t.Fatalf("accepted %d bytes", len(s))
		}
		checkScore(t, s, v.BaseScore())
		canon := v.String()
		back, err := ParseV3(canon)
		if err != nil || back != v {
			t.Fatalf("%q: String() %q parses to %+v, %v; want %+v", s, canon, back, err, v)
		}
		if back.String() != canon {
			t.Fatalf("%q: String() is not stable: %q then %q", s, canon, back.String())
		}
	})
}

func FuzzParseV4(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseV4(s)
		if err != nil {
			if v != (V4Vector{}) {
				t.Fatalf("%q: error %v with a non-zero vector", s, err)
			}
			return
		}
		// v4 keeps every metric and fixes their order, so a valid vector is
		// already canonical.
		if v.String() != s {
			t.Fatalf("%q: String() = %q", s, v.String())
		}
	})
}

func FuzzParseV2(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseV2(s)
		if err != nil {
			if v != (V2Vector{}) {
				t.Fatalf("%q: error %v with a non-zero vector", s, err)
			}
			return
		}
		checkScore(t, s, v.BaseScore())
		canon := v.String()
		back, err := ParseV2(canon)
		if err != nil || back != v {
			t.Fatalf("%q: String() %q parses to %+v, %v; want %+v", s, canon, back, err, v)
		}
	})
}
