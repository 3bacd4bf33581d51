package cvss

import (
	"errors"
	"fmt"
	"strings"
)

// maxLen bounds the input: the longest legitimate vector (v4.0 with every
// optional metric) is under 200 bytes, and anything far longer is garbage
// or an attempt to make us spend time on it.
const maxLen = 512

// maxMetrics is the size of the scratch array parse fills: v4.0 has the
// most metrics (32).
const maxMetrics = 32

// metric is one metric name and its values in specification order. Parsed
// vectors store a value as its index+1, so 0 always means "not given" and
// the zero vector can never pass for a real one.
type metric struct {
	name   string
	values []string
}

// table describes one CVSS version's vector grammar.
type table struct {
	version string   // for error messages: "3.x", "4.0", "2.0"
	metrics []metric // base metrics first
	base    int      // metrics[:base] are mandatory
	// ordered: v2 and v4.0 define the vector as a fixed sequence, while
	// v3.x readers "must accept metrics in any order" (v3.1 spec, §6).
	ordered bool
}

// parse reads the "/"-separated NAME:VALUE components of s (the prefix
// already removed) into out, which has one slot per metric and must be
// zeroed. It does not allocate unless it fails.
func (t *table) parse(s string, out []uint8) error {
	if s == "" {
		return errors.New("cvss: no metrics in vector")
	}
	prev := -1 // last metric seen, for the order check
	for pos := 1; ; pos++ {
		comp, rest, more := strings.Cut(s, "/")
		if comp == "" {
			if !more {
				return errors.New(`cvss: vector ends with "/"`)
			}
			return fmt.Errorf(`cvss: empty component %d (stray "/")`, pos)
		}
		name, val, ok := strings.Cut(comp, ":")
		if !ok {
			return fmt.Errorf("cvss: component %d %q is not METRIC:VALUE", pos, comp)
		}
		i := t.lookup(name)
		if i < 0 {
			return t.unknownMetric(name)
		}
		m := &t.metrics[i]
		if out[i] != 0 {
			return fmt.Errorf("cvss: metric %s given more than once", name)
		}
		if t.ordered && i < prev {
			return fmt.Errorf("cvss: metric %s must come before %s (CVSS %s fixes the order of metrics)",
				name, t.metrics[prev].name, t.version)
		}
		v := -1
		for j, want := range m.values {
			if val == want {
				v = j
				break
			}
		}
		if v < 0 {
			return badValue(m, val)
		}
		out[i] = uint8(v + 1)
		prev = i
		if !more {
			break
		}
		s = rest
	}
	for i := range t.base {
		if out[i] == 0 {
			return fmt.Errorf("cvss: missing base metric %s", t.metrics[i].name)
		}
	}
	return nil
}

// lookup is a linear scan: with at most 32 short names it beats a map and
// needs no initialisation.
func (t *table) lookup(name string) int {
	for i := range t.metrics {
		if t.metrics[i].name == name {
			return i
		}
	}
	return -1
}

func (t *table) unknownMetric(name string) error {
	for i := range t.metrics {
		if strings.EqualFold(t.metrics[i].name, name) {
			return fmt.Errorf("cvss: unknown metric %q (metric names are case-sensitive: %s)", name, t.metrics[i].name)
		}
	}
	return fmt.Errorf("cvss: unknown metric %q for CVSS %s", name, t.version)
}

func badValue(m *metric, val string) error {
	for _, want := range m.values {
		if strings.EqualFold(want, val) {
			return fmt.Errorf("cvss: metric %s: invalid value %q (values are case-sensitive: %s)", m.name, val, want)
		}
	}
	return fmt.Errorf("cvss: metric %s: invalid value %q (want one of %s)", m.name, val, strings.Join(m.values, ", "))
}

// checkLen rejects inputs no real vector comes near before any work is done.
func checkLen(s string) error {
	if s == "" {
		return errors.New("cvss: empty vector")
	}
	if len(s) > maxLen {
		return fmt.Errorf("cvss: vector is %d bytes, over the %d allowed", len(s), maxLen)
	}
	return nil
}

// appendMetrics writes "/NAME:VALUE" for every given metric in table order,
// which is the canonical order for every version.
func (t *table) appendMetrics(b []byte, vals []uint8) []byte {
	for i, v := range vals {
		if v == 0 {
			continue
		}
		m := &t.metrics[i]
		b = append(b, '/')
		b = append(b, m.name...)
		b = append(b, ':')
		b = append(b, m.values[v-1]...)
	}
	return b
}
