package eve

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// record is one decoded EVE object. Its accessors treat a value of the
// wrong JSON type as absent, so hostile input can only make fields missing.
type record map[string]any

func (r record) str(key string) string {
	s, _ := r[key].(string)
	return s
}

func (r record) obj(key string) (record, bool) {
	m, ok := r[key].(map[string]any)
	return record(m), ok
}

// int returns an integral JSON number (1 and 1.0 alike).
func (r record) int(key string) (int64, bool) {
	n, ok := r[key].(json.Number)
	if !ok {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// port returns a TCP/UDP port, 0..65535.
func (r record) port(key string) (uint16, bool) {
	n, ok := r.int(key)
	if !ok || n < 0 || n > math.MaxUint16 {
		return 0, false
	}
	return uint16(n), true
}

// addr parses an IP field; an unparseable one counts as absent.
func (r record) addr(key string) netip.Addr {
	s := r.str(key)
	if s == "" || len(s) > 64 {
		return netip.Addr{}
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

// scalar converts a JSON scalar for Details: numbers become int64 or
// float64, strings are made single-line and capped. Objects, arrays and
// null are not scalars.
func scalar(v any) (any, bool) {
	switch v := v.(type) {
	case string:
		return clean(v, maxText), true
	case bool:
		return v, true
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i, true
		}
		if f, err := v.Float64(); err == nil {
			return f, true
		}
		return v, true // out of float64 range: still a JSON number when re-encoded
	}
	return nil, false
}

// copyTo puts r[key] into d under name when it is a scalar.
func (r record) copyTo(d map[string]any, name, key string) {
	if v, ok := scalar(r[key]); ok {
		d[name] = v
	}
}

// timestampLayouts are the forms seen in EVE: Suricata's "-0600" offset,
// RFC 3339's "-06:00" or "Z", and (in older sensors' output) no zone at
// all, read as UTC. Fractional seconds are optional in all three.
var timestampLayouts = [...]string{
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05",
}

func (r record) timestamp() (time.Time, error) {
	v, ok := r["timestamp"]
	if !ok {
		return time.Time{}, errors.New("missing timestamp")
	}
	s, ok := v.(string)
	if !ok {
		return time.Time{}, fmt.Errorf("timestamp is a JSON %s, not a string", jsonKind(v))
	}
	if len(s) <= 64 {
		for _, layout := range timestampLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC(), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("unparseable timestamp %s", quote(s))
}

// quote renders an input value for an error message, capped so errors stay
// short however long the input.
func quote(s string) string {
	const max = 64
	if len(s) > max {
		return strconv.Quote(strings.ToValidUTF8(s[:max], "")) + "..."
	}
	return strconv.Quote(s)
}
