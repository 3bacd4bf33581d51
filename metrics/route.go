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
	statuses sync.Map // status code → *atomic.Uint64
	// counts has one slot per latency bucket and one for slower requests;
	// the count of requests is their sum, so a scrape racing a request
	// never shows a bucket above the total.
	counts   [len(latencyBuckets) + 1]atomic.Uint64
	sumNanos atomic.Int64
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
	c, ok := rt.statuses.Load(status)
	if !ok {
		c, _ = rt.statuses.LoadOrStore(status, new(atomic.Uint64))
	}
	c.(*atomic.Uint64).Add(1)
	i, seconds := 0, d.Seconds()
	for i < len(latencyBuckets) && seconds > latencyBuckets[i] {
		i++
	}
	rt.counts[i].Add(1)
	rt.sumNanos.Add(int64(d))
}

// snapshot adds the route's figures to the families a scrape writes.
func (rt *Route) snapshot(pattern string, requests *family, durations *histFamily) {
	rt.statuses.Range(func(k, v any) bool {
		requests.values[labelSet([]string{"route", pattern, "status", strconv.Itoa(k.(int))})] = float64(v.(*atomic.Uint64).Load())
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
