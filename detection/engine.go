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
	always []int32   // rules with no needles: tried on every event
	owners [][]int32 // needle → the rules it stands for
	// byField scans a field for its own needles and the fieldless ones
	// (keywords); anyField scans the other fields for the fieldless ones
	// alone (nil when the bucket has none, and those fields are skipped).
	byField  map[string]*fieldScan
	anyField *fieldScan
}

// fieldScan is one automaton over some of a bucket's needles.
type fieldScan struct {
	ac  *automaton
	ids []int32 // the automaton's needle i is the bucket's needle ids[i]
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
	type needle struct {
		text  string
		field string
	}
	needles := map[*bucket][]needle{}
	ids := map[*bucket]map[sigma.Needle]int32{} // one needle for a text of a field, whichever rules it stands for
	for _, r := range rules {
		b := e.buckets[r.Logsource]
		if b == nil {
			b = &bucket{byField: map[string]*fieldScan{}}
			e.buckets[r.Logsource] = b
			ids[b] = map[sigma.Needle]int32{}
		}
		i := int32(len(b.rules))
		b.rules = append(b.rules, r)
		ns, ok := r.Needles()
		if !ok {
			b.always = append(b.always, i)
			continue
		}
		for _, n := range ns {
			if id, ok := ids[b][n]; ok {
				if owners := b.owners[id]; owners[len(owners)-1] != i {
					b.owners[id] = append(owners, i)
				}
				continue
			}
			ids[b][n] = int32(len(needles[b]))
			needles[b] = append(needles[b], needle{n.Text, n.Field})
			b.owners = append(b.owners, []int32{i})
		}
	}
	for b, ns := range needles {
		perField := map[string][]int32{}
		var fieldless []int32
		for id, n := range ns {
			if n.field == "" {
				fieldless = append(fieldless, int32(id))
			} else {
				perField[n.field] = append(perField[n.field], int32(id))
			}
		}
		scan := func(ids []int32) *fieldScan {
			texts := make([]string, len(ids))
			for i, id := range ids {
				texts[i] = ns[id].text
			}
			return &fieldScan{ac: newAutomaton(texts), ids: ids}
		}
		for field, own := range perField {
			b.byField[field] = scan(append(own, fieldless...))
		}
		if len(fieldless) > 0 {
			b.anyField = scan(fieldless)
		}
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
		if len(b.byField) == 0 && b.anyField == nil {
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
			fs := b.byField[field]
			if fs == nil {
				if fs = b.anyField; fs == nil {
					continue
				}
			}
			lower, _ := p.Lower(field)
			fs.ac.find(lower, func(n int32) {
				for _, i := range b.owners[fs.ids[n]] {
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
