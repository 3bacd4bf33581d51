package ratelimit

// table maps key hashes to buckets by open addressing with linear probing.
// It replaces a Go map for three reasons that show up under load: a bucket
// is found and updated in place with one probe (a map needs a lookup and an
// assign), the keys are already uniform hashes so no second hash is spent,
// and an update dirties only the slot's cache line (a map also writes its
// header), which matters when cores share a shard. It also shrinks.
//
// A hash of 0 marks an empty slot; hashOf keeps keys away from it.
type table struct {
	slots []slot // length a power of two, at most 3/4 used
	used  int
	shift uint8 // 64 - log2(len(slots)): the top bits pick the home slot
}

type slot struct {
	hash uint64
	b    bucket
}

const minTableSlots = 8

// hashOf maps a key hash onto the non-zero hashes the table stores. Folding
// 0 onto 1 merges two keys in 2⁶⁴, like any other collision.
func hashOf(h uint64) uint64 {
	return max(h, 1)
}

func newTable(slots int) table {
	n := minTableSlots
	for n < slots {
		n *= 2
	}
	shift := uint8(64)
	for size := n; size > 1; size /= 2 {
		shift--
	}
	return table{slots: make([]slot, n), shift: shift}
}

func (t *table) len() int { return t.used }

func (t *table) home(h uint64) int { return int(h >> t.shift) }

// find returns the bucket stored for h, or nil.
func (t *table) find(h uint64) *bucket {
	mask := len(t.slots) - 1
	for i := t.home(h); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.hash == h {
			return &s.b
		}
		if s.hash == 0 {
			return nil
		}
	}
}

// insert stores b for h, which must not be present, and returns where it
// went. The table grows to stay at most 3/4 full.
func (t *table) insert(h uint64, b bucket) *bucket {
	if (t.used+1)*4 > len(t.slots)*3 {
		t.resize(len(t.slots) * 2)
	}
	t.used++
	mask := len(t.slots) - 1
	i := t.home(h)
	for t.slots[i].hash != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = slot{hash: h, b: b}
	return &t.slots[i].b
}

// deleteFunc removes every entry for which drop reports true. Deleting at
// i pulls later entries of the cluster back into i, so i is looked at again
// before moving on; an entry pulled back across the end of the table may be
// shown to drop twice, which is harmless since drop only reads.
func (t *table) deleteFunc(drop func(*bucket) bool) {
	for i := 0; i < len(t.slots); {
		s := &t.slots[i]
		if s.hash != 0 && drop(&s.b) {
			t.removeAt(i)
			continue
		}
		i++
	}
}

// removeAt empties slot i and moves later entries of its cluster back so
// that every entry stays reachable from its home slot (backward shift).
func (t *table) removeAt(i int) {
	mask := len(t.slots) - 1
	hole := i
	for j := (i + 1) & mask; t.slots[j].hash != 0; j = (j + 1) & mask {
		// The entry at j may fill the hole unless its home lies
		// cyclically in (hole, j].
		home := t.home(t.slots[j].hash)
		if (j-home)&mask >= (j-hole)&mask {
			t.slots[hole] = t.slots[j]
			hole = j
		}
	}
	t.slots[hole] = slot{}
	t.used--
}

// shrink hands memory back when the table is mostly empty, e.g. after a
// flood has been swept away.
func (t *table) shrink() {
	if len(t.slots) > minTableSlots && t.used*8 < len(t.slots) {
		t.resize(t.used * 2)
	}
}

func (t *table) resize(slots int) {
	old := t.slots
	*t = newTable(slots)
	for _, s := range old {
		if s.hash != 0 {
			t.insert(s.hash, s.b)
		}
	}
}
