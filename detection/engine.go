package detection

import (
	"sync"

	"garrison/sigma"
)

// Engine holds compiled rules indexed for speed: by log source, and
// within one by the needles each rule's matches must hold (sigma's
// Rule.Needles), found in an event's fields in one Aho–Corasick pass per
// field. Only rules whose needles an event holds, and the few rules with
// none, run their condition. Safe for concurrent use.
type Engine struct {
	buckets map[sigma.Logsource]*bucket
	scratch sync.Pool
}

// bucket is the rules of one log source.
type bucket struct {
	rules  []*sigma.Rule
	always []int32 // rules with no needles: tried on every event
	ac     *automaton
	owners [][]int32 // needle → the rules it stands for
	fields []string  // needle → its field ("" any)
	// scanned are the fields some needle names; with any-field needles
	// (anyField) every field is scanned.
	scanned  map[string]bool
	anyField bool
}

// marks is one evaluation's scratch: which rules an event's needles
// picked, by generation so that nothing is cleared between events.
type marks struct {
	gen  uint32
	seen map[*bucket][]uint32
}

// NewEngine indexes rules.
func NewEngine(rules []*sigma.Rule) *Engine {
	e := &Engine{buckets: map[sigma.Logsource]*bucket{}}
	needles := map[*bucket][]string{}
	ids := map[*bucket]map[sigma.Needle]int32{} // one needle for a text of a field, whichever rules it stands for
	for _, r := range rules {
		b := e.buckets[r.Logsource]
		if b == nil {
			b = &bucket{scanned: map[string]bool{}}
			e.buckets[r.Logsource] = b
		}
		i := int32(len(b.rules))
		b.rules = append(b.rules, r)
		ns, ok := r.Needles()
		if !ok {
			b.always = append(b.always, i)
			continue
		}
		if ids[b] == nil {
			ids[b] = map[sigma.Needle]int32{}
		}
		for _, n := range ns {
			if id, ok := ids[b][n]; ok {
				if owners := b.owners[id]; owners[len(owners)-1] != i {
					b.owners[id] = append(owners, i)
				}
				continue
			}
			ids[b][n] = int32(len(needles[b]))
			needles[b] = append(needles[b], n.Text)
			b.owners = append(b.owners, []int32{i})
			b.fields = append(b.fields, n.Field)
			if n.Field == "" {
				b.anyField = true
			} else {
				b.scanned[n.Field] = true
			}
		}
	}
	for b, ns := range needles {
		b.ac = newAutomaton(ns)
	}
	e.scratch.New = func() any { return &marks{seen: map[*bucket][]uint32{}} }
	return e
}

// Match appends to out the rules the event fires, of the rules of the
// event's log sources.
func (e *Engine) Match(ev sigma.Event, sources []sigma.Logsource, out []*sigma.Rule) []*sigma.Rule {
	m := e.scratch.Get().(*marks)
	defer e.scratch.Put(m)
	p := sigma.Prepare(ev)
	for _, src := range sources {
		b := e.buckets[src]
		if b == nil {
			continue
		}
		for _, i := range b.always {
			if b.rules[i].MatchPrepared(p) {
				out = append(out, b.rules[i])
			}
		}
		if b.ac == nil {
			continue
		}
		m.gen++
		if m.gen == 0 { // wrapped: stale marks could read as this generation
			clear(m.seen)
			m.gen = 1
		}
		seen := m.seen[b]
		if len(seen) < len(b.rules) {
			seen = make([]uint32, len(b.rules))
			m.seen[b] = seen
		}
		for field := range ev {
			if !b.anyField && !b.scanned[field] {
				continue
			}
			lower, _ := p.Lower(field)
			b.ac.find(lower, func(n int32) {
				if f := b.fields[n]; f != "" && f != field {
					return
				}
				for _, i := range b.owners[n] {
					if seen[i] == m.gen {
						continue
					}
					seen[i] = m.gen
					if b.rules[i].MatchPrepared(p) {
						out = append(out, b.rules[i])
					}
				}
			})
		}
	}
	return out
}

// MatchEach is the straightforward evaluator Match is measured against
// (and checked by): every rule of the event's log sources runs its
// condition, in the engine's order.
func (e *Engine) MatchEach(ev sigma.Event, sources []sigma.Logsource, out []*sigma.Rule) []*sigma.Rule {
	p := sigma.Prepare(ev)
	for _, src := range sources {
		b := e.buckets[src]
		if b == nil {
			continue
		}
		for _, r := range b.rules {
			if r.MatchPrepared(p) {
				out = append(out, r)
			}
		}
	}
	return out
}
