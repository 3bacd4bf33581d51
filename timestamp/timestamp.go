// Package timestamp is the API's one time format: RFC 3339, UTC, with the
// Z suffix, to the second on output; any RFC 3339 time on input.
package timestamp

import (
	"time"

	"garrison/valid"
)

// Format writes t in the API's format.
func Format(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Optional is Format for an optional time; nil stays nil (JSON null).
func Optional(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Format(*t)
	return &s
}

// Parse reads an RFC 3339 time, fractions of a second allowed, into UTC.
func Parse(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t.UTC(), err
}

// ParseRange reads the from and to of a list into p's "from" and "to"
// fields: RFC 3339, to given in whole seconds covering that second (times
// are shown to the second), and from not after to. Empty is open.
func ParseRange(p *valid.Problems, from, to string) (*time.Time, *time.Time) {
	f, t := parseOptional(p, "from", from), parseOptional(p, "to", to)
	if t != nil && t.Nanosecond() == 0 {
		end := t.Add(time.Second - time.Millisecond)
		t = &end
	}
	if f != nil && t != nil && f.After(*t) {
		p.Add("from", "must not be after to")
	}
	return f, t
}

func parseOptional(p *valid.Problems, field, v string) *time.Time {
	if v == "" {
		return nil
	}
	t, err := Parse(v)
	if err != nil {
		p.Add(field, "must be an RFC 3339 timestamp")
		return nil
	}
	return &t
}
