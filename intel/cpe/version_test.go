package cpe

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		// Equal, and equal in spite of spelling.
		{"1.0", "1.0", 0},
		{"2.4.49", "2.4.49", 0},
		{"1.0", "1.0.0", 0},
		{"1", "1.0.0.0", 0},
		{"1.0-0", "1", 0},
		{"01.002", "1.2", 0},
		{"11.0.08", "11.0.8", 0},
		{"1.0-1", "1.0.1", 0},
		{"1.0_1", "1.0+1", 0},
		{"1.0RC1", "1.0rc1", 0},
		{"1.0-rc.1", "1.0rc1", 0},
		{"1.0.0-rc1", "1.0-rc1", 0},
		{"1.0a", "1.0.0a", 0},
		{"v1.2.3", "1.2.3", 0},
		{"V1.2.3", "1.2.3", 0},
		{"0:1.0", "1.0", 0},
		{"00:1.0", "1.0", 0},
		{"", "", 0},
		{"", "0", 0},
		{"", "0.0.0", 0},
		{"...", "", 0},
		{"9.1.7(9)", "9.1.7.9", 0},
		{`9.1.7\(9\)`, "9.1.7(9)", 0},
		{"ABC", "abc", 0},

		// Numbers by value, not by text.
		{"1.10", "1.9", 1},
		{"1.9", "1.10", -1},
		{"2.4.9", "2.4.10", -1},
		{"10", "9", 1},
		{"1.0.10", "1.0.9", 1},
		{"7.10.5", "7.6.3", 1},
		{"12.0.0.1419", "12.0.0.1420", -1},
		// Leading zeros.
		{"1.01", "1.1", 0},
		{"1.010", "1.9", 1},
		{"0001", "2", -1},
		{"11.0.08", "11.0.7", 1},
		// Numbers far beyond 64 bits.
		{"1.99999999999999999999999", "1.100000000000000000000000", -1},
		{"1.100000000000000000000000", "1.99999999999999999999999", 1},
		{"18446744073709551616", "18446744073709551615", 1},
		{"99999999999999999999999999999999999999", "0099999999999999999999999999999999999999", 0},
		{"1.000000000000000000000000000001", "1.1", 0},

		// Longer is later, when the rest is equal.
		{"1.0", "1.0.1", -1},
		{"1.0.1", "1", 1},
		{"2.6.31", "2.6.31.1", -1},

		// Pre-releases sort before the release.
		{"1.0rc1", "1.0", -1},
		{"1.0", "1.0rc1", 1},
		{"1.0-alpha", "1.0", -1},
		{"1.0-beta.2", "1.0", -1},
		{"1.0.dev3", "1.0", -1},
		{"1.0pre2", "1.0", -1},
		{"5.0.0-beta.2", "5.0.0", -1},
		{"5.0.0-beta.2", "4.44.1", 1},
		{"1.0rc1", "1.0rc2", -1},
		{"1.0rc10", "1.0rc9", 1},
		{"1.0dev", "1.0alpha", -1},
		{"1.0alpha", "1.0beta", -1},
		{"1.0beta", "1.0pre", -1},
		{"1.0pre", "1.0rc", -1},
		{"1.0rc", "1.0", -1},
		{"1.0-ALPHA", "1.0-alpha", 0},
		{"1.0rc1", "0.9", 1},
		{"0rc1", "", -1},
		// "~" sorts before anything, the end included (Debian).
		{"1.0~rc1", "1.0", -1},
		{"1.0~", "1.0", -1},
		{"1.0~~", "1.0~", -1},
		{"1.0~rc1", "1.0rc1", -1},
		{"1.0~1", "1.0~2", -1},

		// Other letters sort after the release, before a further number.
		{"1.0", "1.0a", -1},
		{"1.0a", "1.0b", -1},
		{"1.0a", "1.0.1", -1},
		{"1.0.1", "1.0a", 1},
		{"1.0z", "1.1", -1},
		{"1.0.1", "1.0.1a", -1},
		{"1.0.1a", "1.0.2", -1},
		{"2.3", "2.3c", -1},
		{"2.3b", "2.3c", -1},
		{"2.3c", "2.3m", -1},
		{"2.07", "2.07b02", -1},
		{"2.07b02", "2.07b03", -1},
		{"1.0+dfsg", "1.0", 1},
		{"1.0a", "1.0rc1", 1},
		{"12.2(15)zj3", "12.2(15)zj4", -1},
		{"12.2(15)zj", "12.2(15)zj3", -1},
		{"12.2(15)zj3", "12.2(16)", -1},
		{"12.1x46", "12.1x47", -1},
		{"7.3.10-u32", "7.3.10-u35", -1},
		{"2023.Q3.1", "2023.Q4.0", -1},
		{"v100r001c02b219", "v200r001c00spc200", -1},

		// Epochs first.
		{"2:1.0", "1:9.9", 1},
		{"1:1.0", "9.9", 1},
		{"1:1.0", "1:1.0", 0},
		{"2:1.0", "10:1.0", -1},
		{"1:2.0", "1:10.0", -1},
		// Not an epoch: the colon is only a separator then.
		{"a:1", "a.1", 0},
		{"1.2:3", "1.2.3", 0},
		{":1", "1", 0},

		// Empty strings and junk.
		{"", "1", -1},
		{"1", "", 1},
		{"", "a", -1}, // a word sorts after the end
		{"", "rc1", 1},
		{"é", "e", 1},
		{"1.0é", "1.0e", 1},
	}
	for _, tt := range tests {
		if got := Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Compare(tt.b, tt.a); got != -tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

// versionCorpus mixes real versions from NVD and CVE 5 data with edge cases,
// for the order properties.
var versionCorpus = []string{
	"", "0", "0.0", "00", "1", "1.0", "1.0.0", "1.0.1", "1.0a", "1.0b", "1.0z", "1.0.0a",
	"1.0rc1", "1.0-rc1", "1.0rc2", "1.0-alpha", "1.0-beta.2", "1.0.dev3", "1.0pre", "1.0~rc1", "1.0~",
	"1.0~~", "1.1", "1.9", "1.10", "1.01", "v1.0", "V2", "2:1.0", "1:9.9", "0:1.0", "10:0",
	"2.4.49", "2.4.50", "2.4.0", "0.10.0", "0.18.1", "2.6.31", "2.6.31.1", "3.2.59", "7.6.3",
	"7.10.6", "9.1.7(9)", "9.1.7(12)", `9.1.7\(9\)`, "12.2(15)zj3", "12.2(15)zj", "12.1x46",
	"2.3", "2.3b", "2.3c", "2.07b02", "11.0.08", "11.0.8", "12.0.0.1420", "5.0.0-beta.2",
	"5.4.*", "5.4.260", "v100r001c02b219", "b0.1.9.1", "2023.Q3.1", "7.3.10-u32", "latest",
	"n/a", "unspecified", "8c805b4eb19cf2af689c860b77e6111d2ee439d5", "1.99999999999999999999999",
	"1.100000000000000000000000", "~", "~~", "rc", "a", "A", "é", "1.0é", "1..0", "-1", "+1",
	"1.0+dfsg", "1.0-1", "1.0.0-0", "0rc1", ":", "1:", ":1", "a:1", "00:00", "1.0.0.0.0.0.1",
	"0.0.0.0.0.0.0", "1.0.0.0.0.0.0a", "1a0", "1a00", "1a.0.0", "rc1", "dev", "alpha.1",
}

func TestCompareProperties(t *testing.T) {
	c := versionCorpus
	for _, a := range c {
		if Compare(a, a) != 0 {
			t.Errorf("Compare(%q, %q) != 0", a, a)
		}
		for _, b := range c {
			ab, ba := Compare(a, b), Compare(b, a)
			if ab != -ba || ab < -1 || ab > 1 {
				t.Errorf("Compare(%q, %q) = %d but Compare(%q, %q) = %d", a, b, ab, b, a, ba)
			}
		}
	}
	// Transitivity on every triple would be 10^6 comparisons; random triples
	// from a fixed seed, plus the order of a sort, cover it well.
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		a, b, d := c[r.IntN(len(c))], c[r.IntN(len(c))], c[r.IntN(len(c))]
		ab, bd, ad := Compare(a, b), Compare(b, d), Compare(a, d)
		if ab <= 0 && bd <= 0 && ad > 0 {
			t.Fatalf("not transitive: %q <= %q <= %q but Compare(%q, %q) = %d", a, b, d, a, d, ad)
		}
		if ab == 0 && bd == 0 && ad != 0 {
			t.Fatalf("equality not transitive: %q == %q == %q but Compare(%q, %q) = %d", a, b, d, a, d, ad)
		}
	}
	sorted := slices.Clone(c)
	slices.SortFunc(sorted, Compare)
	for i := range sorted {
		for j := i + 1; j < len(sorted); j++ {
			if Compare(sorted[i], sorted[j]) > 0 {
				t.Fatalf("after sorting, %q (at %d) > %q (at %d)", sorted[i], i, sorted[j], j)
			}
		}
	}
}

func TestHasVersionPrefix(t *testing.T) {
	tests := []struct {
		v, p string
		want bool
	}{
		{"5.4.260", "5.4.", true},
		{"5.4", "5.4", true},
		{"5.4.0.1", "5.4", true},
		{"5.40", "5.4", false},
		{"5.5", "5.4.", false},
		{"5.1", "5.0", false},
		{"5.0.3", "5.0.", true},
		{"2rc1", "2.", true},
		{"1:5.4.1", "1:5.4", true},
		{"1:5.4.1", "5.4", false},
		{"anything", "", true},
	}
	for _, tt := range tests {
		if got := hasVersionPrefix(tt.v, tt.p); got != tt.want {
			t.Errorf("hasVersionPrefix(%q, %q) = %v, want %v", tt.v, tt.p, got, tt.want)
		}
	}
}

func TestCompareAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		Compare("1:2.4.49-rc1~x", "1:2.4.50.0.0a")
		Compare("1.99999999999999999999999", "1.100000000000000000000000")
	}); n != 0 {
		t.Errorf("Compare allocates %v times, want 0", n)
	}
}

func BenchmarkCompare(b *testing.B) {
	for b.Loop() {
		Compare("12.0.0.1420", "12.2.0.334")
	}
}
