package cvss

import (
	"math"
	"strings"
)

// V2Vector is a parsed CVSS v2 base vector. Like Vector it keeps only the
// base metrics, which alone determine the base score.
type V2Vector struct {
	m [base2]uint8
}

// Positions of the base metrics in v2Table.
const (
	v2AV = iota
	v2AC
	v2Au
	v2C
	v2I
	v2A
	base2
)

var (
	crV2 = []string{"L", "M", "H", "ND"}
	cia2 = []string{"N", "P", "C"}
)

// v2Table is Table 13 of the v2 guide, whose vector "lists these metrics in
// a predetermined order" (§2.4), so the order is enforced.
var v2Table = table{
	version: "2.0",
	base:    base2,
	ordered: true,
	metrics: []metric{
		{"AV", []string{"L", "A", "N"}},
		{"AC", []string{"H", "M", "L"}},
		{"Au", []string{"M", "S", "N"}},
		{"C", cia2},
		{"I", cia2},
		{"A", cia2},
		// Temporal.
		{"E", []string{"U", "POC", "F", "H", "ND"}},
		{"RL", []string{"OF", "TF", "W", "U", "ND"}},
		{"RC", []string{"UC", "UR", "C", "ND"}},
		// Environmental.
		{"CDP", []string{"N", "L", "LM", "MH", "H", "ND"}},
		{"TD", []string{"N", "L", "M", "H", "ND"}},
		{"CR", crV2},
		{"IR", crV2},
		{"AR", crV2},
	},
}

// Weights from the v2 guide §3.2.1, indexed by stored value.
var (
	weightAV2  = [...]float64{0, 0.395, 0.646, 1.0}
	weightAC2  = [...]float64{0, 0.35, 0.61, 0.71}
	weightAu2  = [...]float64{0, 0.45, 0.56, 0.704}
	weightCIA2 = [...]float64{0, 0, 0.275, 0.660}
)

// ParseV2 parses a CVSS v2 vector such as "AV:N/AC:L/Au:N/C:P/I:P/A:P", the
// form NVD publishes: no prefix, no parentheses. Temporal and environmental
// metrics may follow in the guide's order; they are validated and dropped.
func ParseV2(s string) (V2Vector, error) {
	if err := checkLen(s); err != nil {
		return V2Vector{}, err
	}
	if strings.HasPrefix(s, "CVSS:") {
		return V2Vector{}, badPrefix(s, `"AV:" (CVSS v2 vectors have no prefix)`)
	}
	var vals [maxMetrics]uint8
	if err := v2Table.parse(s, vals[:len(v2Table.metrics)]); err != nil {
		return V2Vector{}, err
	}
	var v V2Vector
	copy(v.m[:], vals[:base2])
	return v, nil
}

// BaseScore is the v2 base equation (guide §3.2.1), rounded to one decimal.
func (v V2Vector) BaseScore() float64 {
	if v.m[v2AV] == 0 { // the zero V2Vector
		return 0
	}
	impact := 10.41 * (1 - (1-weightCIA2[v.m[v2C]])*(1-weightCIA2[v.m[v2I]])*(1-weightCIA2[v.m[v2A]]))
	if impact == 0 {
		return 0 // f(Impact) = 0
	}
	exploitability := 20 * weightAV2[v.m[v2AV]] * weightAC2[v.m[v2AC]] * weightAu2[v.m[v2Au]]
	return math.Round((0.6*impact+0.4*exploitability-1.5)*1.176*10) / 10
}

// String is the canonical base vector, without temporal or environmental
// metrics. The zero V2Vector gives "".
func (v V2Vector) String() string {
	if v.m[v2AV] == 0 {
		return ""
	}
	var buf [32]byte
	return string(v2Table.appendMetrics(buf[:0], v.m[:])[1:]) // no leading "/"
}
