package cvss

import (
	"fmt"
	"math"
	"strings"
)

// Vector is a parsed CVSS base vector (v3.0 or v3.1). Only the base metrics
// are kept: they alone determine the base score, and keeping temporal and
// environmental metrics would make two vectors with the same base score
// compare unequal. The zero Vector is not a valid vector: its String is ""
// and its BaseScore 0.
type Vector struct {
	Version string // "3.0" or "3.1"; selects the Roundup function
	m       [v3Base]uint8
}

// Positions of the base metrics in v3Table.
const (
	v3AV = iota
	v3AC
	v3PR
	v3UI
	v3S
	v3C
	v3I
	v3A
	v3Base
)

// Value indexes (index+1, as stored) that the formulas branch on.
const scopeChanged = 2

var (
	requirementXLMH    = []string{"X", "L", "M", "H"}
	modifiedImpactXNLH = []string{"X", "N", "L", "H"}
)

// v3Table is Table 15 of the v3.1 specification (identical in v3.0).
var v3Table = table{
	version: "3.x",
	base:    v3Base,
	metrics: []metric{
		{"AV", []string{"N", "A", "L", "P"}},
		{"AC", []string{"L", "H"}},
		{"PR", []string{"N", "L", "H"}},
		{"UI", []string{"N", "R"}},
		{"S", []string{"U", "C"}},
		{"C", []string{"H", "L", "N"}},
		{"I", []string{"H", "L", "N"}},
		{"A", []string{"H", "L", "N"}},
		// Temporal.
		{"E", []string{"X", "U", "P", "F", "H"}},
		{"RL", []string{"X", "O", "T", "W", "U"}},
		{"RC", []string{"X", "U", "R", "C"}},
		// Environmental.
		{"CR", requirementXLMH},
		{"IR", requirementXLMH},
		{"AR", requirementXLMH},
		{"MAV", []string{"X", "N", "A", "L", "P"}},
		{"MAC", []string{"X", "L", "H"}},
		{"MPR", []string{"X", "N", "L", "H"}},
		{"MUI", []string{"X", "N", "R"}},
		{"MS", []string{"X", "U", "C"}},
		{"MC", modifiedImpactXNLH},
		{"MI", modifiedImpactXNLH},
		{"MA", modifiedImpactXNLH},
	},
}

// Weights from the v3.1 specification §7.4, indexed by stored value (so
// index 0, "not given", is unused).
var (
	weightAV        = [...]float64{0, 0.85, 0.62, 0.55, 0.2}
	weightAC        = [...]float64{0, 0.77, 0.44}
	weightPR        = [...]float64{0, 0.85, 0.62, 0.27}
	weightPRChanged = [...]float64{0, 0.85, 0.68, 0.5} // privileges count for more when they reach across the scope
	weightUI        = [...]float64{0, 0.85, 0.62}
	weightCIA       = [...]float64{0, 0.56, 0.22, 0}
)

// ParseV3 parses a CVSS v3.0 or v3.1 vector such as
// "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H". Temporal and environmental
// metrics may follow; they are validated but do not affect the base score,
// and are not kept. Metrics may come in any order, as the specification
// requires of readers.
func ParseV3(s string) (Vector, error) {
	if err := checkLen(s); err != nil {
		return Vector{}, err
	}
	var v Vector
	var body string
	switch {
	case strings.HasPrefix(s, "CVSS:3.1/"):
		v.Version, body = "3.1", s[len("CVSS:3.1/"):]
	case strings.HasPrefix(s, "CVSS:3.0/"):
		v.Version, body = "3.0", s[len("CVSS:3.0/"):]
	default:
		return Vector{}, badPrefix(s, `"CVSS:3.0/" or "CVSS:3.1/"`)
	}
	var vals [maxMetrics]uint8
	if err := v3Table.parse(body, vals[:len(v3Table.metrics)]); err != nil {
		return Vector{}, err
	}
	copy(v.m[:], vals[:v3Base])
	return v, nil
}

// badPrefix names the version found, since the usual mistake is handing a
// vector of one version to the parser of another.
func badPrefix(s, want string) error {
	if rest, ok := strings.CutPrefix(s, "CVSS:"); ok {
		ver, _, slash := strings.Cut(rest, "/")
		if !slash && strings.Contains(want, `"CVSS:`+ver+`/"`) {
			return fmt.Errorf("cvss: no metrics after %q", s)
		}
		if len(ver) > 8 {
			ver = ver[:8] + "…"
		}
		return fmt.Errorf("cvss: unsupported version %q: want a vector starting %s", ver, want)
	}
	return fmt.Errorf("cvss: vector must start with %s", want)
}

// BaseScore is the base score per the specification of v.Version. The
// formulas are the same in 3.0 and 3.1; only the rounding differs.
func (v Vector) BaseScore() float64 {
	if v.m[v3AV] == 0 { // parsed vectors have every base metric
		return 0
	}
	iss := 1 - (1-weightCIA[v.m[v3C]])*(1-weightCIA[v.m[v3I]])*(1-weightCIA[v.m[v3A]])
	changed := v.m[v3S] == scopeChanged
	var impact, pr float64
	if changed {
		impact = 7.52*(iss-0.029) - 3.25*math.Pow(iss-0.02, 15)
		pr = weightPRChanged[v.m[v3PR]]
	} else {
		impact = 6.42 * iss
		pr = weightPR[v.m[v3PR]]
	}
	if impact <= 0 {
		return 0
	}
	exploitability := 8.22 * weightAV[v.m[v3AV]] * weightAC[v.m[v3AC]] * pr * weightUI[v.m[v3UI]]
	score := impact + exploitability
	if changed {
		score *= 1.08
	}
	score = min(score, 10)
	if v.Version == "3.0" {
		return roundup30(score)
	}
	return roundup31(score)
}

// roundup30 is the v3.0 specification's Roundup: the smallest number with
// one decimal that is >= x. Applied to a floating-point result it also
// rounds up a value that is a tenth plus a rounding error; that is part of
// what v3.0 scores are, so it is kept.
func roundup30(x float64) float64 {
	return math.Ceil(x*10) / 10
}

// roundup31 is Roundup from Appendix A of the v3.1 specification, which
// first rounds to five decimals in integer arithmetic precisely so that
// floating-point noise above a tenth no longer bumps the score.
func roundup31(x float64) float64 {
	i := int64(math.Round(x * 100000))
	if i%10000 == 0 {
		return float64(i) / 100000
	}
	return float64(i/10000+1) / 10
}

// String is the canonical base vector: prefix and base metrics in the
// specification's order, without temporal or environmental metrics.
func (v Vector) String() string {
	if v.m[v3AV] == 0 {
		return ""
	}
	var buf [48]byte
	b := append(buf[:0], "CVSS:"...)
	b = append(b, v.Version...)
	b = v3Table.appendMetrics(b, v.m[:])
	return string(b)
}
