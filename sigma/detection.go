package sigma

import (
	"go.yaml.in/yaml/v3"
)

// matcher is one compiled search of a rule's detection.
type matcher interface {
	match(e *Prepared) bool
}

// allOf is a map of field conditions: all must hold.
type allOf []fieldMatcher

func (a allOf) match(e *Prepared) bool {
	for i := range a {
		if !a[i].match(e) {
			return false
		}
	}
	return true
}

// anyOf is a list of maps: one must hold.
type anyOf []matcher

func (a anyOf) match(e *Prepared) bool {
	for _, m := range a {
		if m.match(e) {
			return true
		}
	}
	return false
}

// keywords is a list of plain values: one must appear in some field.
type keywords []*pattern

func (k keywords) match(e *Prepared) bool {
	for field := range e.event {
		v, lower, _ := e.get(field)
		for _, p := range k {
			if p.matchLower(v, lower) {
				return true
			}
		}
	}
	return false
}

func (r *Rule) compileDetection(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return errAt(n, "detection is a mapping of searches and a condition")
	}
	r.searches = map[string]matcher{}
	var cond *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		switch key.Value {
		case "condition":
			cond = value
			continue
		case "timeframe":
			continue // meaningful only to aggregations, which are refused below
		}
		if _, dup := r.searches[key.Value]; dup {
			return errAt(key, "search %q is given twice", key.Value)
		}
		m, err := compileSearch(value)
		if err != nil {
			return err
		}
		r.searches[key.Value] = m
		r.names = append(r.names, key.Value)
	}
	if cond == nil {
		return errAt(n, "detection has no condition")
	}
	var exprs []*yaml.Node
	switch cond.Kind {
	case yaml.ScalarNode:
		exprs = []*yaml.Node{cond}
	case yaml.SequenceNode:
		exprs = cond.Content // several conditions: any of them
	default:
		return errAt(cond, "condition must be text or a list of texts")
	}
	var parts []condition
	for _, e := range exprs {
		if e.Kind != yaml.ScalarNode {
			return errAt(e, "condition must be text")
		}
		c, err := parseCondition(e.Value, r)
		if err != nil {
			return &Error{Line: e.Line, Msg: "condition: " + err.Error()}
		}
		parts = append(parts, c)
	}
	if len(parts) == 1 {
		r.cond = parts[0]
	} else {
		r.cond = orCond(parts)
	}
	return nil
}

// compileSearch compiles one named search: a map of fields, a list of
// maps, or a list of keywords.
func compileSearch(n *yaml.Node) (matcher, error) {
	switch n.Kind {
	case yaml.MappingNode:
		return compileMap(n)
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return nil, errAt(n, "a search must not be an empty list")
		}
		if n.Content[0].Kind == yaml.MappingNode {
			var any anyOf
			for _, c := range n.Content {
				if c.Kind != yaml.MappingNode {
					return nil, errAt(c, "a list of field maps cannot also hold other values")
				}
				m, err := compileMap(c)
				if err != nil {
					return nil, err
				}
				any = append(any, m)
			}
			return any, nil
		}
		var kw keywords
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, errAt(c, "a list of keywords holds only plain values")
			}
			p, err := compileGlob(c.Value, matchContains, false)
			if err != nil {
				return nil, errAt(c, "%v", err)
			}
			kw = append(kw, p)
		}
		return kw, nil
	case yaml.ScalarNode:
		p, err := compileGlob(n.Value, matchContains, false)
		if err != nil {
			return nil, errAt(n, "%v", err)
		}
		return keywords{p}, nil
	}
	return nil, errAt(n, "a search is a map of fields, a list of maps or a list of keywords")
}

func compileMap(n *yaml.Node) (allOf, error) {
	var all allOf
	for i := 0; i+1 < len(n.Content); i += 2 {
		f, err := compileField(n.Content[i], n.Content[i+1])
		if err != nil {
			return nil, err
		}
		all = append(all, f)
	}
	return all, nil
}
