package ingest

import (
	"context"
	"slices"
	"sync"
)

// turns hands the store to one batch at a time, taking the organizations
// with batches waiting in turn rather than in arrival order: a tenant
// with forty senders queued gets one batch stored, then the next
// organization gets one, so a flood from one organization delays another's
// batch by one of its batches, not by all of them. Batches are stored one
// at a time anyway (the store has one writer), so nothing is slower.
type turns struct {
	mu      sync.Mutex
	busy    bool
	waiting map[string][]chan struct{} // each organization's batches, oldest first
	order   []string                   // organizations with batches waiting, next first
}

func newTurns() *turns { return &turns{waiting: map[string][]chan struct{}{}} }

// take waits for the organization's turn; release hands it on. A batch
// whose request ends while it waits leaves the queue. Nil turns let every
// batch through at once, to the store's own queue in arrival order (the
// benchmark's comparison).
func (t *turns) take(ctx context.Context, org string) (release func(), err error) {
	if t == nil {
		return func() {}, nil
	}
	t.mu.Lock()
	if !t.busy {
		t.busy = true
		t.mu.Unlock()
		return t.release, nil
	}
	turn := make(chan struct{})
	if len(t.waiting[org]) == 0 {
		t.order = append(t.order, org)
	}
	t.waiting[org] = append(t.waiting[org], turn)
	t.mu.Unlock()
	select {
	case <-turn:
		return t.release, nil
	case <-ctx.Done():
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	queue := t.waiting[org]
	i := slices.Index(queue, turn)
	if i < 0 { // handed over as the request ended: the batch may go on
		return t.release, nil
	}
	if t.waiting[org] = slices.Delete(queue, i, i+1); len(t.waiting[org]) == 0 {
		delete(t.waiting, org)
		t.order = slices.DeleteFunc(t.order, func(o string) bool { return o == org })
	}
	return nil, ctx.Err()
}

func (t *turns) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.order) == 0 {
		t.busy = false
		return
	}
	org := t.order[0]
	t.order = t.order[1:]
	queue := t.waiting[org]
	next := queue[0]
	if t.waiting[org] = queue[1:]; len(t.waiting[org]) > 0 {
		t.order = append(t.order, org) // its next batch waits for the others
	} else {
		delete(t.waiting, org)
	}
	close(next)
}

// queued is how many batches wait, for tests.
func (t *turns) queued() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, q := range t.waiting {
		n += len(q)
	}
	return n
}
