package sigma

import "strings"

// Needle is text an event's field must hold, in lower case, for a rule to
// match: a rule's needles are a set of which every match holds at least
// one, so an engine may skip a rule when an event holds none of them.
type Needle struct {
	Field string // "" for any field (a keyword)
	Text  string
}

// Needles returns a set of needles every match of the rule holds one of,
// choosing the longest where the rule offers several (an and of searches,
// a map of fields); false when there is none (a condition under not, a
// regular expression, null, a number compared …): then every event of the
// rule's log source must be tried.
func (r *Rule) Needles() ([]Needle, bool) { return condNeedles(r.cond) }

func condNeedles(c condition) ([]Needle, bool) {
	switch c := c.(type) {
	case searchCond:
		return matcherNeedles(c.m)
	case andCond:
		return best(len(c), func(i int) ([]Needle, bool) { return condNeedles(c[i]) })
	case orCond:
		return union(len(c), func(i int) ([]Needle, bool) { return condNeedles(c[i]) })
	case ofCond:
		each := func(i int) ([]Needle, bool) { return matcherNeedles(c.ms[i]) }
		if c.n == 0 {
			return best(len(c.ms), each)
		}
		return union(len(c.ms), each)
	}
	return nil, false // not: its operand's absence has no text
}

func matcherNeedles(m matcher) ([]Needle, bool) {
	switch m := m.(type) {
	case allOf:
		return best(len(m), func(i int) ([]Needle, bool) { return fieldNeedles(&m[i]) })
	case anyOf:
		return union(len(m), func(i int) ([]Needle, bool) { return matcherNeedles(m[i]) })
	case keywords:
		return union(len(m), func(i int) ([]Needle, bool) { return patternNeedles("", m[i]) })
	}
	return nil, false
}

func fieldNeedles(f *fieldMatcher) ([]Needle, bool) {
	if f.exists != 0 {
		return nil, false
	}
	// A keyword list with modifiers has no field: its needles, Field "",
	// may be in any.
	each := func(i int) ([]Needle, bool) { return valueNeedles(f.field, f.values[i]) }
	if f.all {
		return best(len(f.values), each)
	}
	return union(len(f.values), each)
}

func valueNeedles(field string, v valueMatcher) ([]Needle, bool) {
	switch v := v.(type) {
	case *pattern:
		return patternNeedles(field, v)
	case anyValue:
		return union(len(v), func(i int) ([]Needle, bool) { return valueNeedles(field, v[i]) })
	}
	return nil, false
}

// patternNeedles is a pattern's longest literal.
func patternNeedles(field string, p *pattern) ([]Needle, bool) {
	longest := p.lit
	if p.shape == shapeGlob {
		for _, t := range p.tokens {
			if t.kind == tokLiteral && len(t.lit) > len(longest) {
				longest = t.lit
			}
		}
	}
	if longest == "" {
		return nil, false
	}
	return []Needle{{Field: field, Text: strings.ToLower(longest)}}, true
}

// best picks, among alternatives every match holds all of, the one whose
// shortest needle is longest (the most selective); false if none has
// needles.
func best(n int, of func(int) ([]Needle, bool)) ([]Needle, bool) {
	var chosen []Needle
	score := -1
	for i := range n {
		needles, ok := of(i)
		if !ok {
			continue
		}
		if s := shortest(needles); s > score {
			chosen, score = needles, s
		}
	}
	return chosen, score >= 0
}

// union joins alternatives any match holds one of: false if one has no
// needles.
func union(n int, of func(int) ([]Needle, bool)) ([]Needle, bool) {
	var all []Needle
	for i := range n {
		needles, ok := of(i)
		if !ok {
			return nil, false
		}
		all = append(all, needles...)
	}
	return all, len(all) > 0
}

func shortest(needles []Needle) int {
	s := -1
	for _, n := range needles {
		if s < 0 || len(n.Text) < s {
			s = len(n.Text)
		}
	}
	return s
}
