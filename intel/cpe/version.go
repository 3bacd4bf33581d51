package cpe

import "strings"

// Compare orders two version strings, returning -1, 0 or +1.
//
// An epoch, leading digits followed by ":" as in Debian's "2:1.0", is
// compared first (a missing epoch is 0), and a "v" or "V" just before a digit
// at the start is ignored ("v1.2" == "1.2"). The rest is split into runs of
// digits and runs of letters: any byte that is neither (". - _ + : ( )" and
// the like) separates runs, and a run also ends where digits meet letters, so
// "1.0rc1" is 1, 0, rc, 1 and "12.2(15)zj3" is 12, 2, 15, zj, 3; "~" is a run of
// its own. Runs are compared in order, and at any position they sort
// "~" < pre-release word < end of version < other word < number.
// Numbers compare by value, of any length and without overflow (leading zeros
// are dropped, then the longer is greater, then the lexically greater).
// The pre-release words dev < alpha < beta < pre < rc, and "~", sort before
// the release, so "1.0rc1" < "1.0" and "1.0~1" < "1.0". Any other word
// compares case-insensitively and sorts after the release but before any
// further number: "1.0" < "1.0a" < "1.0b" < "1.0.1" < "1.1" (as rpm and dpkg
// order "1.0a" and "1.0.1"). A run of zeros counts only when a non-zero
// number follows it, so a missing run equals 0: "1.0" == "1.0.0",
// "1.0.0-rc1" == "1.0-rc1" and "1.0a" == "1a". The empty string equals "0".
// The order is total (antisymmetric and transitive) for any input, which
// sorting and range checks rely on, but it is a heuristic: no single order is
// right for every vendor's scheme, and where a scheme defines its own
// (semver build metadata, Maven qualifiers) the result can differ.
func Compare(a, b string) int {
	ea, ra := splitEpoch(a)
	eb, rb := splitEpoch(b)
	if c := cmpNum(ea, eb); c != 0 {
		return c
	}
	sa, sb := newScan(ra, false), newScan(rb, false)
	for {
		ta, tb := sa.next(), sb.next()
		if c := cmpTok(ta, tb); c != 0 {
			return c
		}
		if ta.kind == kEnd {
			return 0
		}
	}
}

// hasVersionPrefix reports whether v starts with every run of p, as written
// (no zeros skipped): the "5.4" series of a CVE 5 "5.4.*" bound holds 5.4.260
// but not 5.5.
func hasVersionPrefix(v, p string) bool {
	ev, rv := splitEpoch(v)
	ep, rp := splitEpoch(p)
	if cmpNum(ev, ep) != 0 {
		return false
	}
	sv, sp := newScan(rv, true), newScan(rp, true)
	for {
		tp := sp.next()
		if tp.kind == kEnd {
			return true
		}
		if cmpTok(sv.next(), tp) != 0 {
			return false
		}
	}
}

// splitEpoch returns the epoch's digits without leading zeros ("" for none)
// and the rest.
func splitEpoch(s string) (epoch, rest string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ':' && i > 0 {
			return trimZeros(s[:i]), s[i+1:]
		}
		if !isDigit(c) {
			break
		}
	}
	return "", s
}

// Token kinds, numbered in their sort order at a given position.
const (
	kTilde uint8 = iota
	kPre
	kEnd
	kWord
	kNum
)

type vtok struct {
	kind uint8
	rank uint8  // pre-release rank
	s    string // digits without leading zeros, or the word
}

// vscan yields the runs of a version one at a time, so that Compare needs no
// allocation and stops at the first difference.
type vscan struct {
	s    string
	i    int
	raw  bool // keep every zero (prefix checks)
	keep int  // zeros that start before this index have a number after them
}

func newScan(s string, raw bool) vscan {
	if len(s) > 1 && (s[0] == 'v' || s[0] == 'V') && isDigit(s[1]) {
		s = s[1:]
	}
	return vscan{s: s, raw: raw}
}

func (v *vscan) next() vtok {
	for {
		for v.i < len(v.s) && isSep(v.s[v.i]) {
			v.i++
		}
		if v.i == len(v.s) {
			return vtok{kind: kEnd}
		}
		start := v.i
		c := v.s[start]
		switch {
		case c == '~':
			v.i++
			return vtok{kind: kTilde}
		case isDigit(c):
			for v.i < len(v.s) && isDigit(v.s[v.i]) {
				v.i++
			}
			d := trimZeros(v.s[start:v.i])
			if d != "" || v.raw || start < v.keep {
				return vtok{kind: kNum, s: d}
			}
			// A run of zeros counts only if a non-zero number follows it;
			// otherwise it is padding ("1.0" == "1", "1.0rc1" == "1rc1").
			end, numberFollows := v.zeroRunEnd()
			if numberFollows {
				v.keep = end
				return vtok{kind: kNum}
			}
			v.i = end
		default:
			for v.i < len(v.s) && isLetter(v.s[v.i]) {
				v.i++
			}
			w := v.s[start:v.i]
			if r := preRank(w); r != 0 {
				return vtok{kind: kPre, rank: r, s: w}
			}
			return vtok{kind: kWord, s: w}
		}
	}
}

// zeroRunEnd looks past the zero numbers from v.i on: it returns where the
// run ends and whether a non-zero number starts there.
func (v *vscan) zeroRunEnd() (int, bool) {
	j := v.i
	for {
		for j < len(v.s) && isSep(v.s[j]) {
			j++
		}
		if j == len(v.s) || !isDigit(v.s[j]) {
			return j, false
		}
		k := j
		for k < len(v.s) && v.s[k] == '0' {
			k++
		}
		if k < len(v.s) && isDigit(v.s[k]) {
			return j, true
		}
		j = k
	}
}

func cmpTok(a, b vtok) int {
	if a.kind != b.kind {
		if a.kind < b.kind {
			return -1
		}
		return 1
	}
	switch a.kind {
	case kNum:
		return cmpNum(a.s, b.s)
	case kPre:
		if a.rank != b.rank {
			if a.rank < b.rank {
				return -1
			}
			return 1
		}
		return cmpFold(a.s, b.s)
	case kWord:
		return cmpFold(a.s, b.s)
	}
	return 0
}

// cmpNum compares digit strings without leading zeros: a longer number is
// greater, so there is no parsing and no overflow.
func cmpNum(a, b string) int {
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// cmpFold compares ASCII case-insensitively, other bytes as they are.
func cmpFold(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := lower(a[i]), lower(b[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

func preRank(w string) uint8 {
	switch len(w) {
	case 2:
		if cmpFold(w, "rc") == 0 {
			return 5
		}
	case 3:
		switch {
		case cmpFold(w, "dev") == 0:
			return 1
		case cmpFold(w, "pre") == 0:
			return 4
		}
	case 4:
		if cmpFold(w, "beta") == 0 {
			return 3
		}
	case 5:
		if cmpFold(w, "alpha") == 0 {
			return 2
		}
	}
	return 0
}

func trimZeros(d string) string {
	i := 0
	for i < len(d) && d[i] == '0' {
		i++
	}
	return d[i:]
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isLetter counts every non-ASCII byte as a letter, so that versions in other
// scripts still compare byte by byte rather than collapse into separators.
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80 }

func isSep(c byte) bool { return c < 0x80 && !isAlnum(c) && c != '~' }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
