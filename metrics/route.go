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
	common [len(commonStatuses)]atomic.Uint64 // by statusSlot
	others sync.Map                           // any other status code → *atomic.Uint64
	// counts has one slot per latency bucket and one for slower requests;
	// the count of requests is their sum, so a scrape racing a request
	// never shows a bucket above the total.
	counts   [len(latencyBuckets) + 1]atomic.Uint64
	sumNanos atomic.Int64
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
func (rt *Route) Observe(status int, d time.Duration) {
	if slot := statusSlot(status); slot >= 0 {
		rt.common[slot].Add(1)
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
	rt.counts[i].Add(1)
	rt.sumNanos.Add(int64(d))
}

// snapshot adds the route's figures to the families a scrape writes.
func (rt *Route) snapshot(pattern string, requests *family, durations *histFamily) {
	count := func(status int, n uint64) {
		requests.values[labelSet([]string{"route", pattern, "status", strconv.Itoa(status)})] = float64(n)
	}
	for i, status := range commonStatuses {
		if n := rt.common[i].Load(); n > 0 {
			count(status, n)
		}
	}
	rt.others.Range(func(k, v any) bool {
		count(k.(int), v.(*atomic.Uint64).Load())
		return true
	})
	h := &histogram{counts: make([]uint64, len(latencyBuckets)), sum: time.Duration(rt.sumNanos.Load()).Seconds()}
	for i := range rt.counts {
		n := rt.counts[i].Load()
		if i < len(h.counts) {
			h.counts[i] = n
		}
		h.n += n
	}
	durations.series[labelSet([]string{"route", pattern})] = h
}
