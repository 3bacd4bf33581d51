package sigma

import (
	"strings"
	"unicode/utf8"
)

// matchKind is where a value may sit in the field: the whole of it, or
// inside, at the start or at the end.
type matchKind int

const (
	matchExact matchKind = iota
	matchContains
	matchStartsWith
	matchEndsWith
)

// shape is how a pattern is matched: the common shapes by the strings
// package, the rest by glob.
type shape int

const (
	shapeEqual shape = iota
	shapePrefix
	shapeSuffix
	shapeContains
	shapeGlob
)

type tokenKind int

const (
	tokLiteral tokenKind = iota
	tokStar              // any run of characters
	tokOne               // any one character
)

type token struct {
	kind tokenKind
	lit  string
}

// pattern is one string value with Sigma's wildcards, matched in lower
// case unless cased.
type pattern struct {
	shape  shape
	lit    string // the literal of the simple shapes
	tokens []token
	cased  bool
}

// compileGlob reads a value's escapes and wildcards (\ escapes *, ? and
// itself; elsewhere it is a backslash) and places it as kind says.
func compileGlob(raw string, kind matchKind, cased bool) (*pattern, error) {
	var toks []token
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			s := lit.String()
			if !cased {
				s = strings.ToLower(s)
			}
			toks = append(toks, token{kind: tokLiteral, lit: s})
			lit.Reset()
		}
	}
	wild := func(k tokenKind) {
		flush()
		if k == tokStar && len(toks) > 0 && toks[len(toks)-1].kind == tokStar {
			return
		}
		toks = append(toks, token{kind: k})
	}
	escaped := false
	for _, c := range raw {
		switch {
		case escaped:
			if c != '*' && c != '?' && c != '\\' {
				lit.WriteByte('\\')
			}
			lit.WriteRune(c)
			escaped = false
		case c == '\\':
			escaped = true
		case c == '*':
			wild(tokStar)
		case c == '?':
			wild(tokOne)
		default:
			lit.WriteRune(c)
		}
	}
	if escaped {
		lit.WriteByte('\\')
	}
	flush()
	if kind == matchContains || kind == matchEndsWith {
		if len(toks) == 0 || toks[0].kind != tokStar {
			toks = append([]token{{kind: tokStar}}, toks...)
		}
	}
	if kind == matchContains || kind == matchStartsWith {
		if len(toks) == 0 || toks[len(toks)-1].kind != tokStar {
			toks = append(toks, token{kind: tokStar})
		}
	}
	return simplify(toks, cased), nil
}

// simplify finds the shapes the strings package matches.
func simplify(toks []token, cased bool) *pattern {
	p := &pattern{shape: shapeGlob, tokens: toks, cased: cased}
	isLit := func(i int) bool { return i >= 0 && i < len(toks) && toks[i].kind == tokLiteral }
	isStar := func(i int) bool { return i >= 0 && i < len(toks) && toks[i].kind == tokStar }
	switch {
	case len(toks) == 0:
		p.shape = shapeEqual
	case len(toks) == 1 && isLit(0):
		p.shape, p.lit = shapeEqual, toks[0].lit
	case len(toks) == 1 && isStar(0):
		p.shape = shapeContains // "*": anything, the empty literal
	case len(toks) == 2 && isLit(0) && isStar(1):
		p.shape, p.lit = shapePrefix, toks[0].lit
	case len(toks) == 2 && isStar(0) && isLit(1):
		p.shape, p.lit = shapeSuffix, toks[1].lit
	case len(toks) == 3 && isStar(0) && isLit(1) && isStar(2):
		p.shape, p.lit = shapeContains, toks[1].lit
	}
	return p
}

// matchLower matches v, given also in lower case.
func (p *pattern) matchLower(v, lower string) bool {
	s := lower
	if p.cased {
		s = v
	}
	switch p.shape {
	case shapeEqual:
		return s == p.lit
	case shapePrefix:
		return strings.HasPrefix(s, p.lit)
	case shapeSuffix:
		return strings.HasSuffix(s, p.lit)
	case shapeContains:
		return strings.Contains(s, p.lit)
	}
	return globMatch(p.tokens, s)
}

// globMatch matches s whole against tokens, going back to the last star
// on a mismatch.
func globMatch(toks []token, s string) bool {
	ti, si := 0, 0
	starT, starS := -1, 0
	for {
		if ti < len(toks) {
			t := toks[ti]
			switch {
			case t.kind == tokStar:
				starT, starS = ti, si
				ti++
				continue
			case t.kind == tokOne && si < len(s):
				_, w := utf8.DecodeRuneInString(s[si:])
				si += w
				ti++
				continue
			case t.kind == tokLiteral && strings.HasPrefix(s[si:], t.lit):
				si += len(t.lit)
				ti++
				continue
			}
		} else if si == len(s) {
			return true
		}
		if starT < 0 || starS >= len(s) {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		ti, si = starT+1, starS
	}
}
