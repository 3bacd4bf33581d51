package contact

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds of the text a payload carries, in runes. Receivers refuse
// oversized fields (Slack a whole message for one long block), and an
// alert's text comes from the monitored network.
const (
	maxTitle   = 300  // a headline or an alert title
	maxSummary = 1024 // PagerDuty's payload.summary
	maxField   = 500  // an asset, category, indicator, name or id
	maxAction  = 1000 // a recommended action
	maxLink    = 2048 // a URL, as CheckURL allows
)

// line is s on one line: control characters become spaces, invalid UTF-8
// becomes U+FFFD, and it is cut to at most n runes.
func line(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	return cut(strings.TrimSpace(s), n)
}

// cut shortens s to at most n runes, ending with "…" when it cut, on a
// rune boundary so the result stays valid UTF-8.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	i, runes := 0, 0
	for i < len(s) && runes < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		runes++
	}
	return s[:i] + "…"
}

// utc formats a time as RFC 3339 in UTC, or nil for the zero time so
// JSON receivers read null rather than year 1.
func utc(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}
