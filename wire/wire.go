// Package wire holds the API's conventions for values on the wire, shared by
// every package that writes answers: timestamps and accepted text.
package wire

import (
	"time"
	"unicode/utf8"
)

// Timestamp is the API's time format: RFC 3339, UTC, Z suffix.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// OptTimestamp is Timestamp for an optional time; nil stays nil (JSON null).
func OptTimestamp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Timestamp(*t)
	return &s
}

// ValidText accepts UTF-8 text without control characters other than
// newlines and tabs.
func ValidText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return false
		}
	}
	return true
}
