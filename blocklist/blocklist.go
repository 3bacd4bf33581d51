// Package blocklist matches DNS names against lists of blocked domains, each
// domain tagged with a category such as "tracker" or "malware".
//
// A tracker list and a small malware test list ship embedded (see
// lists/SOURCES.md); more lists are imported at run time in plain, hosts-file
// or adblock format.
package blocklist

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"

	"garrison/valid"
)

// Categories of the embedded lists.
const (
	CategoryTracker = "tracker"
	CategoryMalware = "malware"
)

// MaxDomains is the most domains a List holds, across all its categories.
const MaxDomains = 2_000_000

// maxNameLen is the longest DNS name, in its dotted text form without the
// trailing dot.
const maxNameLen = 253

// Sentinel errors of Import; test for them with errors.Is. The wrapped
// messages quote at most a short prefix of the offending input.
var (
	ErrInvalidCategory = errors.New("blocklist: invalid category")
	ErrNoValidDomain   = errors.New("blocklist: no valid domain")
	ErrTooManyDomains  = errors.New("blocklist: too many domains")
)

var (
	//go:embed lists/trackers.txt
	trackersList string
	//go:embed lists/malware.txt
	malwareList string
)

// List maps blocked domains to a category. A domain is blocked when it or any
// parent domain is listed ("ads.example.com" is blocked by "example.com"), but
// a listed child does not block its parent. When both a name and one of its
// parents are listed, the most specific one gives the category.
//
// A domain keeps the category it was first imported with: importing it again
// under another category changes nothing.
//
// A List is safe for concurrent use. Match takes a read lock and does not
// allocate; Import parses outside the lock and holds the write lock only to
// merge. The zero value is an empty List.
type List struct {
	mu      sync.RWMutex
	domains map[string]string // domain → category
	counts  map[string]int    // category → domains

	limit int // most domains; 0 means MaxDomains. Tests lower it.
}

// New returns an empty List.
func New() *List { return &List{} }

// Default returns a new List holding the embedded lists: the tracker list,
// then the malware test list.
func Default() (*List, error) {
	l := New()
	for _, e := range []struct{ category, text string }{
		{CategoryTracker, trackersList},
		{CategoryMalware, malwareList},
	} {
		if _, err := l.Import(strings.NewReader(e.text), e.category); err != nil {
			return nil, fmt.Errorf("blocklist: embedded %s list: %w", e.category, err)
		}
	}
	return l, nil
}

// Match reports whether domain is blocked and under which category. The name
// is trimmed of surrounding space and of one trailing dot and compared without
// regard to ASCII case. IP literals never match.
func (l *List) Match(domain string) (category string, ok bool) {
	domain = strings.TrimSuffix(strings.TrimSpace(domain), ".")
	if domain == "" || len(domain) > maxNameLen || strings.IndexByte(domain, ':') >= 0 {
		return "", false // ':' only appears in IPv6 literals
	}
	var buf [maxNameLen]byte
	name := buf[:len(domain)]
	last := 0 // start of the last label
	for i := range len(domain) {
		c := domain[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c == '.' {
			last = i + 1
		}
		name[i] = c
	}
	if numeric(name[last:]) {
		return "", false // an IPv4 literal; no entry has a numeric last label
	}

	l.mu.RLock()
	defer l.mu.RUnlock()
	for {
		dot := bytes.IndexByte(name, '.')
		if dot < 0 {
			return "", false // a bare top-level domain is never listed
		}
		// The string conversion in a map index does not allocate.
		if c, ok := l.domains[string(name)]; ok {
			return c, true
		}
		name = name[dot+1:]
	}
}

// Len returns the number of listed domains.
func (l *List) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.domains)
}

// Counts returns the number of listed domains per category. The map is the
// caller's.
func (l *List) Counts() map[string]int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.counts == nil {
		return map[string]int{}
	}
	return maps.Clone(l.counts)
}

// Import adds the domains that r lists under category and returns how many
// were not listed before. It accepts, one entry a line:
//
//	example.com                          plain domain
//	0.0.0.0 example.com www.example.com  hosts file
//	||example.com^                       adblock domain rule
//
// A hosts-file line must map its names to an unspecified or loopback address
// (0.0.0.0, 127.0.0.1, ::, ::1); other addresses are real mappings, not
// blocks, and such lines are skipped.
//
// Blank lines, lines starting with '#' or '!', and text after " #" are
// ignored, as are hosts-file entries for localhost and the like. A domain
// must have at least two labels of 1 to 63 characters from [a-z0-9_-] (any
// case), be at most 253 characters and not end in a numeric label; a single
// trailing dot is dropped. Lines that are not entries, and names that are
// not valid, are skipped; only when no line holds a valid domain does Import
// fail, with ErrNoValidDomain naming the first bad line. An input with
// nothing but comments adds nothing and is not an error.
//
// category must match [a-z][a-z0-9-]{0,31} (ErrInvalidCategory). Import fails
// with ErrTooManyDomains when the List would hold more than MaxDomains, and
// on a read error or a line longer than 1 MiB.
// Import is atomic: on error nothing is added, and concurrent calls to Match
// see the List either before or after the whole import.
func (l *List) Import(r io.Reader, category string) (added int, err error) {
	if !validCategory(category) {
		return 0, fmt.Errorf("%w %q: want a lower-case letter and up to 31 of a-z, 0-9, '-'",
			ErrInvalidCategory, clip(category))
	}
	limit := l.max()
	set, err := parse(r, limit)
	if err != nil {
		return 0, err
	}
	// A copy, so that the map's values don't keep a caller's larger buffer alive.
	return l.merge(set, strings.Clone(category), limit)
}

// merge adds the domains of set not yet listed under category.
func (l *List) merge(set map[string]struct{}, category string, limit int) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.domains)+len(set) > limit {
		// Only near the limit is the exact number of new domains worth counting.
		fresh := 0
		for d := range set {
			if _, ok := l.domains[d]; !ok {
				fresh++
			}
		}
		if len(l.domains)+fresh > limit {
			return 0, fmt.Errorf("%w: %d listed and %d new exceed the limit of %d",
				ErrTooManyDomains, len(l.domains), fresh, limit)
		}
	}
	if l.domains == nil {
		l.domains = make(map[string]string, len(set))
		l.counts = make(map[string]int)
	}
	added := 0
	for d := range set {
		if _, ok := l.domains[d]; !ok {
			l.domains[d] = category
			added++
		}
	}
	if added > 0 {
		l.counts[category] += added
	}
	return added, nil
}

func (l *List) max() int {
	if l.limit > 0 {
		return l.limit
	}
	return MaxDomains
}

// validCategory reports whether c matches [a-z][a-z0-9-]{0,31}.
func validCategory(c string) bool {
	if len(c) == 0 || len(c) > 32 || c[0] < 'a' || c[0] > 'z' {
		return false
	}
	for i := 1; i < len(c); i++ {
		if b := c[i]; !('a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '-') {
			return false
		}
	}
	return true
}

// numeric reports whether label is a non-empty run of decimal digits.
func numeric(label []byte) bool {
	for _, c := range label {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(label) > 0
}

// clip shortens untrusted text quoted in an error message.
func clip(s string) string { return valid.Clip(s, 100) }
