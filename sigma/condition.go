package sigma

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// condition is a compiled condition expression.
type condition interface {
	eval(r *Rule, e *Prepared) bool
}

type searchCond struct{ m matcher }

func (c searchCond) eval(_ *Rule, e *Prepared) bool { return c.m.match(e) }

type andCond []condition

func (c andCond) eval(r *Rule, e *Prepared) bool {
	for _, x := range c {
		if !x.eval(r, e) {
			return false
		}
	}
	return true
}

type orCond []condition

func (c orCond) eval(r *Rule, e *Prepared) bool {
	for _, x := range c {
		if x.eval(r, e) {
			return true
		}
	}
	return false
}

type notCond struct{ c condition }

func (c notCond) eval(r *Rule, e *Prepared) bool { return !c.c.eval(r, e) }

// ofCond is "N of pattern" (at least n) or "all of pattern" (n 0).
type ofCond struct {
	n  int
	ms []matcher
}

func (c ofCond) eval(_ *Rule, e *Prepared) bool {
	hits := 0
	for _, m := range c.ms {
		if m.match(e) {
			hits++
			if c.n > 0 && hits >= c.n {
				return true
			}
		} else if c.n == 0 {
			return false
		}
	}
	return c.n == 0
}

// condParser reads a condition: or of and of not of atoms, an atom a
// search, "( … )" or "N of …" / "all of …" over a name pattern or them.
type condParser struct {
	toks []string
	pos  int
	rule *Rule
}

func parseCondition(s string, r *Rule) (condition, error) {
	if strings.Contains(s, "|") {
		return nil, errors.New("aggregations (| count() …) are not supported")
	}
	p := &condParser{toks: tokenize(s), rule: r}
	if len(p.toks) == 0 {
		return nil, errors.New("the condition is empty")
	}
	c, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q", p.toks[p.pos])
	}
	return c, nil
}

func tokenize(s string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, c := range s {
		switch {
		case c == '(' || c == ')':
			flush()
			out = append(out, string(c))
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush()
		default:
			cur.WriteRune(c)
		}
	}
	flush()
	return out
}

func (p *condParser) peek() string {
	if p.pos < len(p.toks) {
		return strings.ToLower(p.toks[p.pos])
	}
	return ""
}

func (p *condParser) or() (condition, error) {
	return p.joined("or", p.and, func(c []condition) condition { return orCond(c) })
}

func (p *condParser) and() (condition, error) {
	return p.joined("and", p.not, func(c []condition) condition { return andCond(c) })
}

// joined reads operands of the next level joined by word.
func (p *condParser) joined(word string, operand func() (condition, error), join func([]condition) condition) (condition, error) {
	first, err := operand()
	if err != nil {
		return nil, err
	}
	parts := []condition{first}
	for p.peek() == word {
		p.pos++
		next, err := operand()
		if err != nil {
			return nil, err
		}
		parts = append(parts, next)
	}
	if len(parts) == 1 {
		return first, nil
	}
	return join(parts), nil
}

func (p *condParser) not() (condition, error) {
	if p.peek() == "not" {
		p.pos++
		c, err := p.not()
		if err != nil {
			return nil, err
		}
		return notCond{c}, nil
	}
	return p.atom()
}

func (p *condParser) atom() (condition, error) {
	if p.pos >= len(p.toks) {
		return nil, errors.New("ends where a search name was expected")
	}
	tok := p.toks[p.pos]
	p.pos++
	switch strings.ToLower(tok) {
	case "(":
		c, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, errors.New("a ( is not closed")
		}
		p.pos++
		return c, nil
	case ")", "and", "or", "of", "them":
		return nil, fmt.Errorf("unexpected %q", tok)
	}
	if p.peek() == "of" {
		n := 0
		if !strings.EqualFold(tok, "all") {
			var err error
			if n, err = strconv.Atoi(tok); err != nil || n < 1 {
				if !strings.EqualFold(tok, "any") {
					return nil, fmt.Errorf("%q of: say 1 of, N of or all of", tok)
				}
				n = 1
			}
		}
		p.pos++
		if p.pos >= len(p.toks) {
			return nil, errors.New("ends after \"of\"")
		}
		target := p.toks[p.pos]
		p.pos++
		ms, err := p.rule.searchesMatching(target)
		if err != nil {
			return nil, err
		}
		return ofCond{n: n, ms: ms}, nil
	}
	m, ok := p.rule.searches[tok]
	if !ok {
		return nil, fmt.Errorf("names %q, which is not a search of the detection", tok)
	}
	return searchCond{m}, nil
}

// searchesMatching returns the searches a pattern names: "them" is every
// search not starting with _, a pattern with * those it matches.
func (r *Rule) searchesMatching(pattern string) ([]matcher, error) {
	var out []matcher
	for _, name := range r.names {
		var ok bool
		if strings.EqualFold(pattern, "them") {
			ok = !strings.HasPrefix(name, "_")
		} else {
			ok, _ = path.Match(pattern, name)
		}
		if ok {
			out = append(out, r.searches[name])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q names no search of the detection", pattern)
	}
	return out, nil
}
