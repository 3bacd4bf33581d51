package cvss

// testdata/nvd_vectors.csv was made once, by a throwaway Python script (not
// kept), from ../shared/data/nvd_cves_sample.json: 982 NVD API 2.0 records
// (feeds of 2024-08-07 … 2024-10-25; see that directory's SOURCES.md). It has
// one row per distinct (cvssData.version, cvssData.vectorString,
// cvssData.baseScore) found in metrics.cvssMetricV31, cvssMetricV30,
// cvssMetricV2 and cvssMetricV40, Primary and Secondary alike, with the
// lowest CVE id that carries it and the score printed with one decimal. The
// copy keeps the test independent of ../shared in CI.

import (
	"encoding/csv"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Rows of each version in testdata/nvd_vectors.csv; the test fails if the
// file shrinks below them, so a bad regeneration cannot pass quietly.
const (
	nvdV31 = 142
	nvdV30 = 51
	nvdV2  = 66
	nvdV40 = 41
)

func TestBaseScoreMatchesNVD(t *testing.T) {
	f, err := os.Open("testdata/nvd_vectors.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != "cve_id,version,vector,published_score" {
		t.Fatalf("unexpected header %q", rows[0])
	}
	count := map[string]int{}
	mismatch := map[string]int{}
	for _, r := range rows[1:] {
		id, version, vector := r[0], r[1], r[2]
		published, err := strconv.ParseFloat(r[3], 64)
		if err != nil {
			t.Fatalf("%s: score %q: %v", id, r[3], err)
		}
		count[version]++
		var got float64
		var canonical string
		switch version {
		case "3.1", "3.0":
			v, err := ParseV3(vector)
			if err != nil {
				t.Errorf("%s: ParseV3(%q): %v", id, vector, err)
				continue
			}
			if v.Version != version {
				t.Errorf("%s: %q parsed as version %q", id, vector, v.Version)
			}
			got, canonical = v.BaseScore(), v.String()
		case "2.0":
			v, err := ParseV2(vector)
			if err != nil {
				t.Errorf("%s: ParseV2(%q): %v", id, vector, err)
				continue
			}
			got, canonical = v.BaseScore(), v.String()
		case "4.0":
			// No v4 score here; every published vector must validate.
			v, err := ParseV4(vector)
			if err != nil {
				t.Errorf("%s: ParseV4(%q): %v", id, vector, err)
			} else if v.String() != vector {
				t.Errorf("%s: ParseV4(%q).String() = %q", id, vector, v.String())
			}
			continue
		default:
			t.Fatalf("%s: unknown version %q", id, version)
		}
		// NVD writes base vectors canonically, so they must round-trip.
		if canonical != vector {
			t.Errorf("%s: String() = %q, want %q", id, canonical, vector)
		}
		if got != published {
			mismatch[version]++
			t.Errorf("%s: %s BaseScore() = %.1f, NVD published %.1f", id, vector, got, published)
		}
	}
	for _, c := range []struct {
		version string
		min     int
	}{{"3.1", nvdV31}, {"3.0", nvdV30}, {"2.0", nvdV2}, {"4.0", nvdV40}} {
		n := count[c.version]
		if n < c.min {
			t.Errorf("only %d v%s vectors in testdata, want at least %d", n, c.version, c.min)
		}
		if c.version == "4.0" {
			t.Logf("%d v4.0 vectors, all valid (v4 scores are not computed)", n)
		} else {
			if mismatch[c.version] == 0 {
				t.Logf("%d v%s vectors, all match NVD's published base score", n, c.version)
			} else {
				t.Logf("%d v%s vectors, %d do not match NVD's published base score", n, c.version, mismatch[c.version])
			}
		}
	}
}

func TestBaseScoreExamples(t *testing.T) {
	tests := []struct {
		vector string
		want   float64
	}{
		// From FIRST's "CVSS v3.1: Examples" document.
		// Shellshock, CVE-2014-6271. By hand: ISS = 1-0.44³ = 0.914816,
		// Impact = 6.42·ISS = 5.87312, Exploitability = 8.22·0.85·0.77·0.85·0.85
		// = 3.88704, sum 9.76016, rounded up 9.8.
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8},
		// phpMyAdmin reflected XSS, CVE-2013-1937 (scope changed). By hand:
		// ISS = 1-0.78² = 0.3916, Impact = 7.52·0.3626 - 3.25·0.3716¹⁵
		// = 2.72675, Exploitability = 8.22·0.85·0.77·0.85·0.62 = 2.83526,
		// 1.08·5.56201 = 6.00697, rounded up 6.1.
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", 6.1},
		// MySQL stored SQL injection, CVE-2013-0375: scope changed with
		// PR:L, which weighs 0.68 instead of 0.62.
		{"CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N", 6.4},
		{"CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H", 9.9},  // VMware guest to host, CVE-2012-1516
		{"CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N", 3.1},  // SSLv3 POODLE, CVE-2014-3566
		{"CVSS:3.1/AV:L/AC:L/PR:H/UI:N/S:U/C:L/I:L/A:L", 4.2},  // Tomcat XML parser, CVE-2009-0783
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N", 7.5},  // Heartbleed, CVE-2014-0160
		{"CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:C/C:N/I:H/A:N", 6.8},  // DNS cache poisoning, CVE-2008-1447
		{"CVSS:3.1/AV:P/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 6.8},  // Sophos login bypass, CVE-2014-2005
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:L/I:N/A:N", 5.8},  // Joomla traversal, CVE-2010-0467
		{"CVSS:3.1/AV:N/AC:L/PR:L/UI:R/S:C/C:L/I:L/A:N", 5.4},  // DokuWiki XSS, CVE-2014-9253
		{"CVSS:3.1/AV:L/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H", 7.8},  // iWork PDF, CVE-2015-1098
		{"CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8},  // the same in 3.0
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", 10.0}, // capped at 10
		// No impact, no score, whatever the exploitability.
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N", 0},
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:N/I:N/A:N", 0},
		{"CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:C/C:N/I:N/A:N", 0},
		// Temporal and environmental metrics do not change the base score.
		{"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:U/RL:O/RC:U/CR:L/MAV:P/MC:N", 9.8},
		// Readers must accept any order (v3.1 spec §6).
		{"CVSS:3.1/A:H/I:H/C:H/S:U/UI:N/PR:N/AC:L/AV:N", 9.8},
		{"CVSS:3.1/E:X/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8},
	}
	for _, tt := range tests {
		v, err := ParseV3(tt.vector)
		if err != nil {
			t.Errorf("ParseV3(%q): %v", tt.vector, err)
			continue
		}
		if got := v.BaseScore(); got != tt.want {
			t.Errorf("%s: BaseScore() = %v, want %v", tt.vector, got, tt.want)
		}
	}
}

func TestV2BaseScoreExamples(t *testing.T) {
	tests := []struct {
		vector string
		want   float64
	}{
		// The three worked examples of the CVSS v2 guide, §3.3.
		{"AV:N/AC:L/Au:N/C:N/I:N/A:C", 7.8},  // CVE-2002-0392, Apache chunked encoding
		{"AV:N/AC:L/Au:N/C:C/I:C/A:C", 10.0}, // CVE-2003-0818, Windows ASN.1
		{"AV:L/AC:H/Au:N/C:C/I:C/A:C", 6.2},  // CVE-2003-0062, NOD32 buffer overflow
		{"AV:N/AC:L/Au:N/C:P/I:P/A:P", 7.5},
		{"AV:N/AC:L/Au:N/C:N/I:N/A:N", 0}, // f(Impact) = 0
		{"AV:N/AC:L/Au:N/C:P/I:P/A:P/E:POC/RL:OF/RC:C/CDP:H/TD:N/CR:H/IR:ND/AR:L", 7.5},
	}
	for _, tt := range tests {
		v, err := ParseV2(tt.vector)
		if err != nil {
			t.Errorf("ParseV2(%q): %v", tt.vector, err)
			continue
		}
		if got := v.BaseScore(); got != tt.want {
			t.Errorf("%s: BaseScore() = %v, want %v", tt.vector, got, tt.want)
		}
	}
}

// TestRoundup pins the difference between the two Roundups. No v3 base
// score shows it (TestBaseScoresExhaustive: every exact base score is at
// least 0.00032 above a multiple of 0.1, far beyond float64 noise), so
// 3.0 and 3.1 base scores always agree. It does show in scores built on a
// base score, e.g. the temporal score of
// CVSS:3.x/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H/RC:U: 10 × 0.92 is
// 9.200000000000001 in float64, which v3.0's plain ceiling turns into 9.3
// and v3.1's Roundup into 9.2.
func TestRoundup(t *testing.T) {
	base, rcU := 10.0, 0.92 // variables, so the product is float64 arithmetic
	tests := []struct {
		x          float64
		want30     float64
		want31     float64
		annotation string
	}{
		{base * rcU, 9.3, 9.2, "10 × RC:U"},
		{5.0 * rcU, 4.7, 4.6, "5.0 × RC:U = 4.6000000000000005"},
		{4.000000000000001, 4.1, 4.0, "a tenth plus noise"},
		{4.00001, 4.1, 4.1, "above five-decimal noise: a real excess"},
		{4.000004, 4.1, 4.0, "below half a unit of the fifth decimal"},
		{4.0, 4.0, 4.0, "exact"},
		{4.02, 4.1, 4.1, "ordinary"},
		{0, 0, 0, "zero"},
		{10, 10, 10, "maximum"},
	}
	for _, tt := range tests {
		if got := roundup30(tt.x); got != tt.want30 {
			t.Errorf("roundup30(%.17g) [%s] = %v, want %v", tt.x, tt.annotation, got, tt.want30)
		}
		if got := roundup31(tt.x); got != tt.want31 {
			t.Errorf("roundup31(%.17g) [%s] = %v, want %v", tt.x, tt.annotation, got, tt.want31)
		}
	}
}

// eachV3 calls f with every one of the 2,592 v3 base vectors.
func eachV3(version string, f func(v Vector)) {
	var rec func(i int, v Vector)
	rec = func(i int, v Vector) {
		if i == v3Base {
			f(v)
			return
		}
		for j := range v3Table.metrics[i].values {
			v.m[i] = uint8(j + 1)
			rec(i+1, v)
		}
	}
	rec(0, Vector{Version: version})
}

// exactV3 is the base score computed in exact rational arithmetic with the
// given version's Roundup, as a reference for the float64 implementation.
func exactV3(v Vector) *big.Rat {
	r := func(s string) *big.Rat {
		x, ok := new(big.Rat).SetString(s)
		if !ok {
			panic(s)
		}
		return x
	}
	w := func(ws ...string) func(uint8) *big.Rat { return func(i uint8) *big.Rat { return r(ws[i-1]) } }
	av, ac, ui := w("0.85", "0.62", "0.55", "0.2"), w("0.77", "0.44"), w("0.85", "0.62")
	pr, cia := w("0.85", "0.62", "0.27"), w("0.56", "0.22", "0")
	changed := v.m[v3S] == scopeChanged
	if changed {
		pr = w("0.85", "0.68", "0.5")
	}
	one := big.NewRat(1, 1)
	keep := new(big.Rat).Set(one)
	for _, i := range []int{v3C, v3I, v3A} {
		keep.Mul(keep, new(big.Rat).Sub(one, cia(v.m[i])))
	}
	iss := new(big.Rat).Sub(one, keep)
	var impact *big.Rat
	if changed {
		pow := new(big.Rat).Set(one)
		d := new(big.Rat).Sub(iss, r("0.02"))
		for range 15 {
			pow.Mul(pow, d)
		}
		impact = new(big.Rat).Mul(r("7.52"), new(big.Rat).Sub(iss, r("0.029")))
		impact.Sub(impact, pow.Mul(pow, r("3.25")))
	} else {
		impact = new(big.Rat).Mul(r("6.42"), iss)
	}
	if impact.Sign() <= 0 {
		return new(big.Rat)
	}
	score := r("8.22")
	for _, x := range []*big.Rat{av(v.m[v3AV]), ac(v.m[v3AC]), pr(v.m[v3PR]), ui(v.m[v3UI])} {
		score.Mul(score, x)
	}
	score.Add(score, impact)
	if changed {
		score.Mul(score, r("1.08"))
	}
	if score.Cmp(big.NewRat(10, 1)) > 0 {
		score.SetInt64(10)
	}
	if v.Version == "3.0" {
		return ceilTenths(score)
	}
	// Appendix A, in exact arithmetic.
	i := floorRat(new(big.Rat).Add(new(big.Rat).Mul(score, big.NewRat(100000, 1)), big.NewRat(1, 2)))
	if new(big.Int).Rem(i, big.NewInt(10000)).Sign() == 0 {
		return new(big.Rat).SetFrac(i, big.NewInt(100000))
	}
	return ceilTenths(new(big.Rat).SetFrac(i, big.NewInt(100000)))
}

func floorRat(x *big.Rat) *big.Int { return new(big.Int).Div(x.Num(), x.Denom()) } // x ≥ 0

func ceilTenths(x *big.Rat) *big.Rat {
	n := new(big.Rat).Mul(x, big.NewRat(10, 1))
	i := floorRat(n)
	if !n.IsInt() {
		i.Add(i, big.NewInt(1))
	}
	return new(big.Rat).SetFrac(i, big.NewInt(10))
}

// TestBaseScoresExhaustive checks every v3 base vector, in both versions,
// against exact arithmetic, so float64 rounding error cannot push a score
// across a tenth anywhere; and records that 3.0 and 3.1 never differ on a
// base score.
func TestBaseScoresExhaustive(t *testing.T) {
	n := 0
	for _, version := range []string{"3.0", "3.1"} {
		eachV3(version, func(v Vector) {
			n++
			got := v.BaseScore()
			want, _ := exactV3(v).Float64()
			if got != want {
				t.Errorf("%s: BaseScore() = %v, exact arithmetic gives %v", v, got, want)
			}
			other := v
			other.Version = map[string]string{"3.0": "3.1", "3.1": "3.0"}[version]
			if o := other.BaseScore(); o != got {
				t.Errorf("%s scores %v, but %v in v%s", v, got, o, other.Version)
			}
			back, err := ParseV3(v.String())
			if err != nil || back != v {
				t.Errorf("%s does not round-trip: %v, %v", v, back, err)
			}
		})
	}
	if n != 2*2592 {
		t.Errorf("checked %d vectors, want %d", n, 2*2592)
	}
}

// TestV2BaseScoresExhaustive checks the 729 v2 base vectors against exact
// arithmetic with round-half-up, which is what the guide's round_to_1_decimal
// means.
func TestV2BaseScoresExhaustive(t *testing.T) {
	r := func(s string) *big.Rat { x, _ := new(big.Rat).SetString(s); return x }
	wAV, wAC, wAu := []string{"0.395", "0.646", "1.0"}, []string{"0.35", "0.61", "0.71"}, []string{"0.45", "0.56", "0.704"}
	wCIA := []string{"0", "0.275", "0.660"}
	n := 0
	for av := range 3 {
		for ac := range 3 {
			for au := range 3 {
				for c := range 3 {
					for i := range 3 {
						for a := range 3 {
							v := V2Vector{m: [base2]uint8{uint8(av + 1), uint8(ac + 1), uint8(au + 1), uint8(c + 1), uint8(i + 1), uint8(a + 1)}}
							one := big.NewRat(1, 1)
							keep := new(big.Rat).Set(one)
							for _, x := range []int{c, i, a} {
								keep.Mul(keep, new(big.Rat).Sub(one, r(wCIA[x])))
							}
							impact := new(big.Rat).Mul(r("10.41"), new(big.Rat).Sub(one, keep))
							var want float64
							if impact.Sign() != 0 {
								e := new(big.Rat).Mul(r("20"), r(wAV[av]))
								e.Mul(e, r(wAC[ac])).Mul(e, r(wAu[au]))
								s := new(big.Rat).Mul(r("0.6"), impact)
								s.Add(s, new(big.Rat).Mul(r("0.4"), e)).Sub(s, r("1.5")).Mul(s, r("1.176"))
								tenths := floorRat(s.Mul(s, big.NewRat(10, 1)).Add(s, big.NewRat(1, 2)))
								want, _ = new(big.Rat).SetFrac(tenths, big.NewInt(10)).Float64()
							}
							if got := v.BaseScore(); got != want {
								t.Errorf("%s: BaseScore() = %v, exact arithmetic gives %v", v, got, want)
							}
							if back, err := ParseV2(v.String()); err != nil || back != v {
								t.Errorf("%s does not round-trip: %v, %v", v, back, err)
							}
							n++
						}
					}
				}
			}
		}
	}
	if n != 729 {
		t.Errorf("checked %d vectors, want 729", n)
	}
}

func TestParseErrors(t *testing.T) {
	const vec31 = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"
	const vec4 = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"
	const vec2 = "AV:N/AC:L/Au:N/C:P/I:P/A:P"
	v3 := func(s string) error { _, err := ParseV3(s); return err }
	v4 := func(s string) error { _, err := ParseV4(s); return err }
	v2 := func(s string) error { _, err := ParseV2(s); return err }
	tests := []struct {
		name  string
		parse func(string) error
		in    string
		want  string
	}{
		{"v3 empty", v3, "", "empty vector"},
		{"v3 no prefix", v3, "AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", `must start with "CVSS:3.0/" or "CVSS:3.1/"`},
		{"v3 lower-case prefix", v3, "cvss:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "must start with"},
		{"v3 leading space", v3, " " + vec31, "must start with"},
		{"v3 unknown version", v3, "CVSS:3.2/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", `unsupported version "3.2"`},
		{"v3 given v4", v3, vec4, `unsupported version "4.0"`},
		{"v3 prefix only", v3, "CVSS:3.1", `no metrics after "CVSS:3.1"`},
		{"v3 prefix and slash", v3, "CVSS:3.1/", "no metrics"},
		{"v3 missing base", v3, "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H", "missing base metric A"},
		{"v3 missing scope", v3, "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/C:H/I:H/A:H", "missing base metric S"},
		{"v3 duplicate base", v3, vec31 + "/AV:N", "metric AV given more than once"},
		{"v3 duplicate conflicting", v3, "CVSS:3.1/AV:N/AV:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "metric AV given more than once"},
		{"v3 duplicate temporal", v3, vec31 + "/E:X/E:H", "metric E given more than once"},
		{"v3 unknown metric", v3, vec31 + "/XX:N", `unknown metric "XX" for CVSS 3.x`},
		{"v3 v4 metric", v3, vec31 + "/AT:N", `unknown metric "AT"`},
		{"v3 bad value", v3, "CVSS:3.1/AV:Q/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", `metric AV: invalid value "Q" (want one of N, A, L, P)`},
		{"v3 X in base", v3, "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:X/I:H/A:H", `metric C: invalid value "X"`},
		{"v3 bad temporal value", v3, vec31 + "/E:Z", `metric E: invalid value "Z"`},
		{"v3 bad environmental value", v3, vec31 + "/MAV:H", `metric MAV: invalid value "H"`},
		{"v3 lower-case value", v3, "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:h/I:H/A:H", `metric C: invalid value "h" (values are case-sensitive: H)`},
		{"v3 lower-case metric", v3, "CVSS:3.1/av:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", `unknown metric "av" (metric names are case-sensitive: AV)`},
		{"v3 trailing slash", v3, vec31 + "/", `ends with "/"`},
		{"v3 double slash", v3, "CVSS:3.1/AV:N//AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "empty component 2"},
		{"v3 no colon", v3, vec31 + "/E", `component 9 "E" is not METRIC:VALUE`},
		{"v3 empty value", v3, "CVSS:3.1/AV:/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", `metric AV: invalid value ""`},
		{"v3 empty name", v3, vec31 + "/:N", `unknown metric ""`},
		{"v3 extra colon", v3, "CVSS:3.1/AV:N:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", `metric AV: invalid value "N:L"`},
		{"v3 trailing space", v3, vec31 + " ", `metric A: invalid value "H "`},
		{"v3 trailing newline", v3, vec31 + "\n", `metric A: invalid value "H\n"`},
		{"v3 too long", v3, vec31 + strings.Repeat("/E:X", 120), "over the 512 allowed"},

		{"v4 empty", v4, "", "empty vector"},
		{"v4 given v3", v4, vec31, `unsupported version "3.1": want a vector starting "CVSS:4.0/"`},
		{"v4 missing base", v4, "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N", "missing base metric SA"},
		{"v4 missing AT", v4, "CVSS:4.0/AV:N/AC:L/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", "missing base metric AT"},
		{"v4 interleaved impacts", v4, "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/SC:N/VI:H/SI:N/VA:H/SA:N", "metric VI must come before SC"},
		{"v4 supplemental first", v4, "CVSS:4.0/AU:Y/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", "metric AV must come before AU"},
		{"v4 duplicate", v4, vec4 + "/E:A/E:A", "metric E given more than once"},
		{"v4 v3 scope", v4, vec4 + "/S:U", `metric S: invalid value "U" (want one of X, N, P)`},
		{"v4 unknown metric", v4, vec4 + "/RL:O", `unknown metric "RL" for CVSS 4.0`},
		{"v4 safety on MSC", v4, vec4 + "/MSC:S", `metric MSC: invalid value "S"`},
		{"v4 bad UI", v4, "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:R/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", `metric UI: invalid value "R" (want one of N, P, A)`},
		{"v4 lower-case urgency", v4, vec4 + "/U:amber", `metric U: invalid value "amber" (values are case-sensitive: Amber)`},
		{"v4 trailing slash", v4, vec4 + "/", `ends with "/"`},
		{"v4 empty component", v4, vec4 + "//E:A", "empty component 12"},
		{"v4 too long", v4, vec4 + strings.Repeat("/U:Clear", 60), "over the 512 allowed"},

		{"v2 empty", v2, "", "empty vector"},
		{"v2 with prefix", v2, "CVSS:2.0/" + vec2, "CVSS v2 vectors have no prefix"},
		{"v2 parenthesised", v2, "(" + vec2 + ")", `unknown metric "(AV"`},
		{"v2 missing base", v2, "AV:N/AC:L/Au:N/C:P/I:P", "missing base metric A"},
		{"v2 out of order", v2, "AC:L/AV:N/Au:N/C:P/I:P/A:P", "metric AV must come before AC"},
		{"v2 temporal before base", v2, "E:F/" + vec2, "metric AV must come before E"},
		{"v2 duplicate", v2, vec2 + "/A:P", "metric A given more than once"},
		{"v2 v3 value", v2, "AV:N/AC:L/Au:N/C:H/I:P/A:P", `metric C: invalid value "H" (want one of N, P, C)`},
		{"v2 v3 metric", v2, "AV:N/AC:L/PR:N/C:P/I:P/A:P", `unknown metric "PR"`},
		{"v2 lower-case metric", v2, "AV:N/AC:L/AU:N/C:P/I:P/A:P", `unknown metric "AU" (metric names are case-sensitive: Au)`},
		{"v2 lower-case value", v2, vec2 + "/E:poc", `values are case-sensitive: POC`},
		{"v2 bad temporal", v2, vec2 + "/E:P", `metric E: invalid value "P" (want one of U, POC, F, H, ND)`},
		{"v2 trailing slash", v2, vec2 + "/", `ends with "/"`},
		{"v2 too long", v2, vec2 + strings.Repeat("/", 500), "over the 512 allowed"},
	}
	for _, tt := range tests {
		err := tt.parse(tt.in)
		switch {
		case err == nil:
			t.Errorf("%s: %q parsed, want error containing %q", tt.name, tt.in, tt.want)
		case !strings.Contains(err.Error(), tt.want):
			t.Errorf("%s: %q: error %q, want it to contain %q", tt.name, tt.in, err, tt.want)
		case !strings.HasPrefix(err.Error(), "cvss: "):
			t.Errorf("%s: error %q lacks the package prefix", tt.name, err)
		}
	}
}

func TestParseAccepts(t *testing.T) {
	for _, s := range []string{
		"CVSS:3.0/AV:P/AC:H/PR:H/UI:R/S:C/C:L/I:L/A:L",
		// Every temporal and environmental metric, explicitly.
		"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:H/RL:U/RC:C/CR:H/IR:M/AR:L/MAV:A/MAC:H/MPR:L/MUI:R/MS:C/MC:L/MI:N/MA:H",
	} {
		if _, err := ParseV3(s); err != nil {
			t.Errorf("ParseV3(%q): %v", s, err)
		}
	}
	for _, s := range []string{
		"CVSS:4.0/AV:P/AC:H/AT:P/PR:H/UI:A/VC:N/VI:L/VA:H/SC:L/SI:N/SA:H",
		"CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:P/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/E:U/MSI:S/MSA:S/S:P/AU:Y/R:I/V:C/RE:H/U:Red",
		"CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/CR:H/IR:M/AR:L/MAV:L/MAC:H/MAT:P/MPR:H/MUI:A/MVC:N/MVI:L/MVA:H/MSC:H/MSI:L/MSA:N/S:N/AU:N/R:A/V:D/RE:L/U:Clear",
	} {
		v, err := ParseV4(s)
		if err != nil {
			t.Errorf("ParseV4(%q): %v", s, err)
		} else if v.String() != s {
			t.Errorf("ParseV4(%q).String() = %q", s, v.String())
		}
	}
	v, err := ParseV3("CVSS:3.1/MC:N/A:H/I:H/C:H/S:U/UI:N/PR:N/AC:L/AV:N/E:U")
	if err != nil {
		t.Fatal(err)
	}
	if want := "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"; v.String() != want {
		t.Errorf("String() = %q, want %q", v, want)
	}
	var zero Vector
	var zero2 V2Vector
	var zero4 V4Vector
	if zero.String() != "" || zero.BaseScore() != 0 || zero2.String() != "" || zero2.BaseScore() != 0 || zero4.String() != "" {
		t.Error("zero vectors must print as \"\" and score 0")
	}
}

func TestTables(t *testing.T) {
	for _, tc := range []struct {
		t    *table
		n    int
		base int
	}{{&v3Table, 22, v3Base}, {&v4Table, len4, base4}, {&v2Table, 14, base2}} {
		if len(tc.t.metrics) != tc.n || tc.t.base != tc.base || tc.n > maxMetrics {
			t.Errorf("CVSS %s: %d metrics (%d base), want %d (%d base), at most %d",
				tc.t.version, len(tc.t.metrics), tc.t.base, tc.n, tc.base, maxMetrics)
		}
		for _, m := range tc.t.metrics {
			if len(m.values) > 255 || tc.t.lookup(m.name) < 0 {
				t.Errorf("CVSS %s: metric %s", tc.t.version, m.name)
			}
		}
	}
}

func TestSeverity(t *testing.T) {
	tests := []struct {
		score float64
		want  string
	}{
		{0, "none"}, {0.1, "low"}, {3.9, "low"}, {3.95, "low"}, {4.0, "medium"},
		{6.9, "medium"}, {7.0, "high"}, {8.9, "high"}, {9.0, "critical"}, {10, "critical"},
		{-1, "none"}, {math.NaN(), "none"}, {0.05, "low"}, {11, "critical"},
	}
	for _, tt := range tests {
		if got := Severity(tt.score); got != tt.want {
			t.Errorf("Severity(%v) = %q, want %q", tt.score, got, tt.want)
		}
	}
}

func TestParseAndScoreDoNotAllocate(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		v, err := ParseV3("CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H/E:F/RL:O/RC:C")
		if err != nil || v.BaseScore() != 9.9 {
			t.Fatal(v, err)
		}
		if _, err := ParseV4("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/E:A"); err != nil {
			t.Fatal(err)
		}
		w, err := ParseV2("AV:N/AC:L/Au:N/C:P/I:P/A:P")
		if err != nil || w.BaseScore() != 7.5 {
			t.Fatal(w, err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per parse and score, want 0", allocs)
	}
}

func BenchmarkParseAndScoreV31(b *testing.B) {
	vectors := []string{
		"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
		"CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N",
		"CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:N/I:L/A:N",
		"CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H/E:F/RL:O/RC:C",
	}
	b.ReportAllocs()
	var sum float64
	i := 0
	for b.Loop() {
		v, err := ParseV3(vectors[i%len(vectors)])
		if err != nil {
			b.Fatal(err)
		}
		sum += v.BaseScore()
		i++
	}
	if sum == 0 {
		b.Fatal("no scores")
	}
}
