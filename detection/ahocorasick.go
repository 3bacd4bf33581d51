package detection

// automaton finds every needle inside a text in one pass (Aho–Corasick):
// a trie of the needles whose states know the longest proper suffix that
// is also in the trie (fail) and the nearest such suffix that ends a
// needle (out), so each byte of the text costs a transition or a few
// falls back along fail links.
type automaton struct {
	states []acState
}

type acState struct {
	edges   []acEdge    // sorted by byte; most states have one
	dense   *[256]int32 // for a state of many edges (the root): the next state by byte, -1 for none
	fail    int32
	out     int32   // the nearest state along fail links that ends needles, -1 for none
	needles []int32 // the needles ending here
}

type acEdge struct {
	b    byte
	next int32
}

func (s *acState) step(b byte) int32 {
	if s.dense != nil {
		return s.dense[b]
	}
	for _, e := range s.edges {
		if e.b == b {
			return e.next
		}
		if e.b > b {
			break
		}
	}
	return -1
}

// denseEdges is how many edges a state has before it steps by table.
const denseEdges = 6

// newAutomaton builds the automaton of needles; needle i is reported as i.
func newAutomaton(needles []string) *automaton {
	a := &automaton{states: []acState{{out: -1}}}
	for i, n := range needles {
		s := int32(0)
		for j := 0; j < len(n); j++ {
			next := a.states[s].step(n[j])
			if next < 0 {
				next = int32(len(a.states))
				a.states = append(a.states, acState{out: -1})
				a.addEdge(s, n[j], next)
			}
			s = next
		}
		a.states[s].needles = append(a.states[s].needles, int32(i))
	}
	// States of many edges (the root above all, which every byte of a
	// text not inside a needle starts from) step through a table.
	for i := range a.states {
		if st := &a.states[i]; len(st.edges) > denseEdges {
			st.dense = new([256]int32)
			for b := range st.dense {
				st.dense[b] = -1
			}
			for _, e := range st.edges {
				st.dense[e.b] = e.next
			}
		}
	}
	// Breadth first: a state's fail is found from its parent's.
	queue := make([]int32, 0, len(a.states))
	for _, e := range a.states[0].edges {
		a.states[e.next].fail = 0
		queue = append(queue, e.next)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, e := range a.states[s].edges {
			f := a.states[s].fail
			for {
				if next := a.states[f].step(e.b); next >= 0 && next != e.next {
					a.states[e.next].fail = next
					break
				}
				if f == 0 {
					a.states[e.next].fail = 0
					break
				}
				f = a.states[f].fail
			}
			fail := a.states[e.next].fail
			if len(a.states[fail].needles) > 0 {
				a.states[e.next].out = fail
			} else {
				a.states[e.next].out = a.states[fail].out
			}
			queue = append(queue, e.next)
		}
	}
	return a
}

func (a *automaton) addEdge(s int32, b byte, next int32) {
	edges := a.states[s].edges
	i := 0
	for i < len(edges) && edges[i].b < b {
		i++
	}
	edges = append(edges, acEdge{})
	copy(edges[i+1:], edges[i:])
	edges[i] = acEdge{b: b, next: next}
	a.states[s].edges = edges
}

// find calls hit with every needle text holds (a needle found twice is
// reported twice).
func (a *automaton) find(text string, hit func(needle int32)) {
	s := int32(0)
	for i := 0; i < len(text); i++ {
		b := text[i]
		for {
			if next := a.states[s].step(b); next >= 0 {
				s = next
				break
			}
			if s == 0 {
				break
			}
			s = a.states[s].fail
		}
		for o := s; o >= 0; o = a.states[o].out {
			for _, n := range a.states[o].needles {
				hit(n)
			}
			if o == 0 {
				break
			}
		}
	}
}
