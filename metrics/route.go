package metrics

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Route counts one route's requests. It is made once, when the routes are
// wired, so that counting a request takes no lock shared with other
// requests and builds no string: every API request passes through it.
type Route struct {
	stripes [routeStripes]routeStripe
	others  sync.Map // any status code without a slot → *atomic.Uint64
}

// routeStripes is how many copies of its counters a route keeps. Requests
// served at the same moment on different cores count in different copies
// (see Observe), so they do not pass one cache line back and forth: under
// health checks on two cores the shared counters cost Observe more than
// everything else it does. A scrape adds the copies up.
const routeStripes = 8

// routeStripe is one copy of a route's counters.
type routeStripe struct {
	common [len(commonStatuses)]atomic.Uint64 // by statusSlot
	// counts has one slot per latency bucket and one for slower requests;
	// the count of requests is their sum, so a scrape racing a request
	// never shows a bucket above the total.
	counts   [len(latencyBuckets) + 1]atomic.Uint64
	sumNanos atomic.Int64
	_        [64]byte // no cache line holds counters of two copies
}

// commonStatuses are the statuses the API answers with, each counted in a
// slot of its own: profiled under health checks, the sync.Map lookup
// (hashing a boxed int) was more than half of what Observe cost.
var commonStatuses = [...]int{200, 201, 202, 204, 206, 301, 302, 303, 304, 307, 308,
	400, 401, 403, 404, 405, 406, 408, 409, 410, 411, 412, 413, 414, 415, 416, 422, 428, 429, 431,
	500, 501, 502, 503, 504, 507}

// statusSlots maps a status below 600 to its slot in commonStatuses plus one.
var statusSlots = func() (slots [600]uint8) {
	for i, status := range commonStatuses {
		slots[status] = uint8(i + 1)
	}
	return slots
}()

// statusSlot is the status's slot in commonStatuses, -1 when it has none.
func statusSlot(status int) int {
	if status < 0 || status >= len(statusSlots) {
		return -1
	}
	return int(statusSlots[status]) - 1
}

// Route returns the counters of a route pattern, made on first use.
func (r *Registry) Route(pattern string) *Route {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt, ok := r.routes[pattern]
	if !ok {
		rt = &Route{}
		r.routes[pattern] = rt
	}
	return rt
}

// Observe counts one answered request: its status and how long it took.
// hint picks the copy of the counters; any number that differs between
// requests served at the same time spreads them (the middleware uses the
// client's port), and every hint counts alike.
func (rt *Route) Observe(hint uint, status int, d time.Duration) {
	s := &rt.stripes[hint%routeStripes]
	if slot := statusSlot(status); slot >= 0 {
		s.common[slot].Add(1)
	} else {
		c, ok := rt.others.Load(status)
		if !ok {
			c, _ = rt.others.LoadOrStore(status, new(atomic.Uint64))
		}
		c.(*atomic.Uint64).Add(1)
	}
	i, seconds := 0, d.Seconds()
	for i < len(latencyBuckets) && seconds > latencyBuckets[i] {
		i++
	}
	s.counts[i].Add(1)
	s.sumNanos.Add(int64(d))
}

// snapshot adds the route's figures to the families a scrape writes.
func (rt *Route) snapshot(pattern string, requests *family, durations *histFamily) {
	count := func(status int, n uint64) {
		requests.values[labelSet([]string{"route", pattern, "status", strconv.Itoa(status)})] = float64(n)
	}
	for i, status := range commonStatuses {
		var n uint64
		for j := range rt.stripes {
			n += rt.stripes[j].common[i].Load()
		}
		if n > 0 {
			count(status, n)
		}
	}
	rt.others.Range(func(k, v any) bool {
		count(k.(int), v.(*atomic.Uint64).Load())
		return true
	})
	h := &histogram{counts: make([]uint64, len(latencyBuckets))}
	var sum int64
	for j := range rt.stripes {
		s := &rt.stripes[j]
		sum += s.sumNanos.Load()
		for i := range s.counts {
			n := s.counts[i].Load()
			if i < len(h.counts) {
				h.counts[i] += n
			}
			h.n += n
		}
	}
	h.sum = time.Duration(sum).Seconds()
	durations.series[labelSet([]string{"route", pattern})] = h
}
