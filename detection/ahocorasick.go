package detection

// automaton finds every needle inside a text in one pass (Aho–Corasick):
// a trie of the needles whose states know the longest proper suffix that
// is also in the trie (fail) and the nearest such suffix that ends a
// needle (out), so each byte of the text costs a transition or a few
// falls back along fail links. The shipped rules make hundreds of
// thousands of states, so they are packed: a state is 24 bytes, its edges
// and needles runs of two shared arrays.
type automaton struct {
	states  []acState
	edges   []uint32 // each state's run, sorted by byte: next<<8 | byte
	needles []int32  // each state's run: the needles ending there
	dense   [][256]int32
}

type acState struct {
	edgeStart, needleStart int32
	fail                   int32
	out                    int32 // the nearest state along fail links that ends needles, -1 for none
	dense                  int32 // for a state of many edges (the root): its table in dense, -1 for none
	edgeCount, needleCount uint16
}

// step is the state after s on byte b, -1 for none.
func (a *automaton) step(s int32, b byte) int32 {
	st := &a.states[s]
	if st.dense >= 0 {
		return a.dense[st.dense][b]
	}
	for _, e := range a.edges[st.edgeStart : st.edgeStart+int32(st.edgeCount)] {
		if eb := byte(e); eb == b {
			return int32(e >> 8)
		} else if eb > b {
			break
		}
	}
	return -1
}

// maxStates is the most states an edge's 24 bits of state can name.
const maxStates = 1<<24 - 1

// denseEdges is how many edges a state has before it steps by table.
const denseEdges = 6

// trieState is a state while the trie is built.
type trieState struct {
	edges   []uint32
	needles []int32
}

func trieStep(t []trieState, s int32, b byte) int32 {
	for _, e := range t[s].edges {
		if byte(e) == b {
			return int32(e >> 8)
		}
	}
	return -1
}

// newAutomaton builds the automaton of needles; needle i is reported as i.
func newAutomaton(needles []string) *automaton {
	trie := []trieState{{}}
	for i, n := range needles {
		s := int32(0)
		for j := 0; j < len(n); j++ {
			next := trieStep(trie, s, n[j])
			if next < 0 {
				if len(trie) == maxStates { // the rules' size caps keep far below it
					panic("detection: more needle text than an automaton holds")
				}
				next = int32(len(trie))
				trie = append(trie, trieState{})
				trie[s].edges = insertEdge(trie[s].edges, n[j], next)
			}
			s = next
		}
		trie[s].needles = append(trie[s].needles, int32(i))
	}
	a := &automaton{states: make([]acState, len(trie))}
	for i := range trie {
		t, st := &trie[i], &a.states[i]
		st.out, st.dense = -1, -1
		st.edgeStart, st.edgeCount = int32(len(a.edges)), uint16(len(t.edges))
		a.edges = append(a.edges, t.edges...)
		st.needleStart, st.needleCount = int32(len(a.needles)), uint16(len(t.needles))
		a.needles = append(a.needles, t.needles...)
		// States of many edges (the root above all, which every byte of
		// a text not inside a needle starts from) step through a table.
		if len(t.edges) > denseEdges {
			var table [256]int32
			for b := range table {
				table[b] = -1
			}
			for _, e := range t.edges {
				table[byte(e)] = int32(e >> 8)
			}
			st.dense = int32(len(a.dense))
			a.dense = append(a.dense, table)
		}
	}
	trie = nil
	a.edges, a.needles, a.dense = clip(a.edges), clip(a.needles), clip(a.dense)
	// Breadth first: a state's fail is found from its parent's.
	queue := make([]int32, 0, len(a.states))
	for _, e := range a.edgesOf(0) {
		queue = append(queue, int32(e>>8))
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, e := range a.edgesOf(s) {
			b, child := byte(e), int32(e>>8)
			f := a.states[s].fail
			for {
				if next := a.step(f, b); next >= 0 && next != child {
					a.states[child].fail = next
					break
				}
				if f == 0 {
					a.states[child].fail = 0
					break
				}
				f = a.states[f].fail
			}
			fail := a.states[child].fail
			if a.states[fail].needleCount > 0 {
				a.states[child].out = fail
			} else {
				a.states[child].out = a.states[fail].out
			}
			queue = append(queue, child)
		}
	}
	return a
}

func (a *automaton) edgesOf(s int32) []uint32 {
	st := &a.states[s]
	return a.edges[st.edgeStart : st.edgeStart+int32(st.edgeCount)]
}

// clip drops a slice's spare capacity: the arrays live as long as the rules.
func clip[T any](s []T) []T { return append([]T(nil), s...) }

// insertEdge adds an edge to a run kept sorted by byte.
func insertEdge(edges []uint32, b byte, next int32) []uint32 {
	i := 0
	for i < len(edges) && byte(edges[i]) < b {
		i++
	}
	edges = append(edges, 0)
	copy(edges[i+1:], edges[i:])
	edges[i] = uint32(next)<<8 | uint32(b)
	return edges
}

// find calls hit with every needle text holds (a needle found twice is
// reported twice).
func (a *automaton) find(text string, hit func(needle int32)) {
	s := int32(0)
	for i := 0; i < len(text); i++ {
		b := text[i]
		for {
			if next := a.step(s, b); next >= 0 {
				s = next
				break
			}
			if s == 0 {
				break
			}
			s = a.states[s].fail
		}
		for o := s; o >= 0; o = a.states[o].out {
			st := &a.states[o]
			for _, n := range a.needles[st.needleStart : st.needleStart+int32(st.needleCount)] {
				hit(n)
			}
			if o == 0 {
				break
			}
		}
	}
}
