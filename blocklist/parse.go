package blocklist

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
)

// maxLine is the longest line Import reads; a longer one fails the import.
const maxLine = 1 << 20

// parse reads a list into a set of lower-case domains. It stops with
// ErrTooManyDomains as soon as the set holds more than limit domains, so that
// an endless input cannot grow it without bound.
func parse(r io.Reader, limit int) (map[string]struct{}, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	set := make(map[string]struct{})
	var (
		names   [][]byte
		lineNo  int
		badNo   int // first line that was neither a comment nor wholly valid
		badText string
	)
	for sc.Scan() {
		lineNo++
		var bad bool
		names, bad = parseLine(sc.Bytes(), names[:0])
		if bad && badNo == 0 {
			badNo, badText = lineNo, clip(strings.TrimSpace(sc.Text()))
		}
		for _, n := range names {
			set[strings.ToLower(string(n))] = struct{}{}
		}
		if len(set) > limit {
			return nil, fmt.Errorf("%w: more than %d in the input", ErrTooManyDomains, limit)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("blocklist: line %d: longer than %d bytes", lineNo+1, maxLine)
		}
		return nil, fmt.Errorf("blocklist: read: %w", err)
	}
	if len(set) == 0 && badNo != 0 {
		return nil, fmt.Errorf("%w: line %d: %q", ErrNoValidDomain, badNo, badText)
	}
	return set, nil
}

// parseLine appends to dst the valid domains that line lists, as they are
// written (any case, trailing dot dropped). bad is set when the line is not
// a comment and is not an entry, or holds a name that is not valid.
func parseLine(line []byte, dst [][]byte) (names [][]byte, bad bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] == '#' || line[0] == '!' {
		return dst, false
	}
	if i := commentStart(line); i >= 0 {
		line = bytes.TrimSpace(line[:i])
	}
	// "||example.com^"; rules with options, paths or exceptions are not
	// plain domain blocks and are skipped.
	if rest, ok := bytes.CutPrefix(line, []byte("||")); ok {
		name, ok := bytes.CutSuffix(rest, []byte("^"))
		if !ok {
			return dst, true
		}
		return appendName(dst, name)
	}
	fields := bytes.Fields(line)
	if len(fields) == 1 {
		return appendName(dst, fields[0])
	}
	// A hosts-file line: an address, then names.
	addr, err := netip.ParseAddr(string(fields[0]))
	if err != nil {
		return dst, true
	}
	hosts := fields[1:]
	if allBoilerplate(hosts) {
		return dst, false
	}
	if !addr.IsUnspecified() && !addr.IsLoopback() {
		return dst, true // a real mapping, not a block entry
	}
	for _, h := range hosts {
		if boilerplate(h) {
			continue
		}
		var b bool
		dst, b = appendName(dst, h)
		bad = bad || b
	}
	return dst, bad
}

// commentStart returns the index of a '#' that starts a trailing comment: one
// preceded by a space or tab. Adblock element-hiding rules ("example.com##.ad")
// have none, and stay invalid as a whole.
func commentStart(line []byte) int {
	for i := 1; i < len(line); i++ {
		if line[i] == '#' && (line[i-1] == ' ' || line[i-1] == '\t') {
			return i
		}
	}
	return -1
}

// boilerplate reports whether a hosts file name is one that maps the machine
// itself rather than a block; lines listing only such names are ignored.
func boilerplate(name []byte) bool {
	switch string(name) {
	case "localhost", "localhost.localdomain", "local", "broadcasthost", "0.0.0.0",
		"ip6-localhost", "ip6-loopback", "ip6-localnet", "ip6-mcastprefix",
		"ip6-allnodes", "ip6-allrouters", "ip6-allhosts":
		return true
	}
	return false
}

func allBoilerplate(hosts [][]byte) bool {
	for _, h := range hosts {
		if !boilerplate(h) {
			return false
		}
	}
	return true
}

// appendName appends name, without a trailing dot, to dst when it is a valid
// domain, and otherwise reports it bad.
func appendName(dst [][]byte, name []byte) ([][]byte, bool) {
	name = bytes.TrimSuffix(name, []byte("."))
	if !validName(name) {
		return dst, true
	}
	return append(dst, name), false
}

// validName reports whether name is a domain a List accepts: at most 253
// bytes, at least two labels of 1 to 63 characters from [A-Za-z0-9_-], the
// last one not all digits (which rejects IPv4 literals; no top-level domain
// is numeric).
func validName(name []byte) bool {
	if len(name) == 0 || len(name) > maxNameLen {
		return false
	}
	labels, start := 0, 0
	for i := 0; i <= len(name); i++ {
		if i == len(name) || name[i] == '.' {
			if n := i - start; n < 1 || n > 63 {
				return false
			}
			labels++
			if i < len(name) {
				start = i + 1
			}
			continue
		}
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return labels >= 2 && !numeric(name[start:])
}
