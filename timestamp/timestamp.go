// Package timestamp is the API's one time format: RFC 3339, UTC, with the
// Z suffix, to the second on output; any RFC 3339 time on input.
package timestamp

import (
	"time"
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
