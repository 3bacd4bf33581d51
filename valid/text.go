package valid

import (
	"fmt"
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text accepts UTF-8 text without control characters other than newlines
// and tabs: what notes, descriptions and messages may hold.
func Text(s string) bool {
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

// MaxName is the longest name, in characters.
const MaxName = 100

// Name accepts 1 to MaxName printable characters without surrounding
// space: names of people, organizations, keys and sources.
func Name(s string) bool { return Label(s, MaxName) }

// Label accepts 1 to n printable characters (and at most 4n bytes) without
// surrounding space.
func Label(s string, n int) bool {
	if s == "" || len(s) > 4*n || strings.TrimSpace(s) != s || !utf8.ValidString(s) {
		return false
	}
	count := 0
	for _, r := range s {
		if count++; count > n || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Host accepts an IP address or a host name: labels of letters, digits,
// '-' and '_', at most 63 bytes each and 253 in all.
func Host(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	return DomainName(s)
}

// DomainName accepts a host name (not an IP address literal check: see Host).
func DomainName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// TextRule is what a text field must be: at most Max bytes of Text, not
// empty (nor only white space) when Required, without line breaks when
// OneLine.
type TextRule struct {
	Max      int
	Required bool
	OneLine  bool
}

// CheckText records the field's first fault against the rule, each with a
// message of its own: a subject that is too long is not reported missing.
func (p *Problems) CheckText(field, s string, r TextRule) {
	switch {
	case r.Required && strings.TrimSpace(s) == "":
		p.Add(field, "is required")
	case len(s) > r.Max:
		p.Add(field, fmt.Sprintf("must be at most %d bytes (it has %d)", r.Max, len(s)))
	case !Text(s):
		p.Add(field, "must be UTF-8 text without control characters other than newline and tab")
	case r.OneLine && strings.Contains(s, "\n"):
		p.Add(field, "must be one line")
	}
}
