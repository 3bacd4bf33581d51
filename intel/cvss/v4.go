package cvss

import "strings"

// V4Vector is a parsed and validated CVSS v4.0 vector. Unlike Vector it keeps
// every metric given, threat, environmental and supplemental ones included,
// since validating and showing the vector is all it is for.
type V4Vector struct {
	m [len4]uint8
}

const (
	base4 = 11 // AV AC AT PR UI VC VI VA SC SI SA
	len4  = 32
)

var (
	hlnV4  = []string{"H", "L", "N"}
	xhlnV4 = []string{"X", "H", "L", "N"}
	xshlV4 = []string{"X", "S", "H", "L", "N"} // S (Safety) only for the subsequent system's integrity and availability
	xhmlV4 = []string{"X", "H", "M", "L"}
)

// v4Table follows Table 23 of the v4.0 specification, whose order is
// binding: "every other ordering is invalid". (An early edition of the table
// interleaved VC/SC/VI/SI/VA/SA; FIRST's calculator, JSON schema and NVD use
// VC/VI/VA/SC/SI/SA, as here.)
var v4Table = table{
	version: "4.0",
	base:    base4,
	ordered: true,
	metrics: []metric{
		{"AV", []string{"N", "A", "L", "P"}},
		{"AC", []string{"L", "H"}},
		{"AT", []string{"N", "P"}},
		{"PR", []string{"N", "L", "H"}},
		{"UI", []string{"N", "P", "A"}},
		{"VC", hlnV4},
		{"VI", hlnV4},
		{"VA", hlnV4},
		{"SC", hlnV4},
		{"SI", hlnV4},
		{"SA", hlnV4},
		// Threat.
		{"E", []string{"X", "A", "P", "U"}},
		// Environmental.
		{"CR", xhmlV4},
		{"IR", xhmlV4},
		{"AR", xhmlV4},
		{"MAV", []string{"X", "N", "A", "L", "P"}},
		{"MAC", []string{"X", "L", "H"}},
		{"MAT", []string{"X", "N", "P"}},
		{"MPR", []string{"X", "N", "L", "H"}},
		{"MUI", []string{"X", "N", "P", "A"}},
		{"MVC", xhlnV4},
		{"MVI", xhlnV4},
		{"MVA", xhlnV4},
		{"MSC", xhlnV4},
		{"MSI", xshlV4},
		{"MSA", xshlV4},
		// Supplemental.
		{"S", []string{"X", "N", "P"}},
		{"AU", []string{"X", "N", "Y"}},
		{"R", []string{"X", "A", "U", "I"}},
		{"V", []string{"X", "D", "C"}},
		{"RE", []string{"X", "L", "M", "H"}},
		{"U", []string{"X", "Clear", "Green", "Amber", "Red"}},
	},
}

// ParseV4 parses and validates a CVSS v4.0 vector such as
// "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N". The
// eleven base metrics are mandatory; threat, environmental and supplemental
// metrics are optional. All must come in the specification's order.
func ParseV4(s string) (V4Vector, error) {
	if err := checkLen(s); err != nil {
		return V4Vector{}, err
	}
	body, ok := strings.CutPrefix(s, "CVSS:4.0/")
	if !ok {
		return V4Vector{}, badPrefix(s, `"CVSS:4.0/"`)
	}
	var v V4Vector
	if err := v4Table.parse(body, v.m[:]); err != nil {
		return V4Vector{}, err
	}
	return v, nil
}

// String is the vector in canonical order with every metric that was given,
// including explicit "X" (Not Defined) values, so that it parses back to the
// same V4Vector. The zero V4Vector gives "".
func (v V4Vector) String() string {
	if v.m[0] == 0 {
		return ""
	}
	var buf [200]byte
	return string(v4Table.appendMetrics(append(buf[:0], "CVSS:4.0"...), v.m[:]))
}
