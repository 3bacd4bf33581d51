// Package metrics counts what the server does and writes it in the
// Prometheus text exposition format (version 0.0.4), with no dependency:
// counters and histograms fed as things happen, gauges read at scrape time.
package metrics

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// latencyBuckets are the request duration buckets, in seconds.
var latencyBuckets = [...]float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Registry holds the server's metrics.
type Registry struct {
	mu       sync.Mutex
	counters map[string]*family // by name
	gauges   []gauge
	routes   map[string]*Route // by pattern
	// constant is the label set every series carries first (a cluster
	// node's name), "" for none: the braces' inside, with its comma.
	constant string
}

// ConstLabel makes every series carry name="value" (a cluster's node, so
// that series of several nodes stay apart wherever they are gathered).
func (r *Registry) ConstLabel(name, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.constant += strings.TrimSuffix(strings.TrimPrefix(labelSet([]string{name, value}), "{"), "}") + ","
}

// labelled is a series' label set with the constant labels put first.
func (r *Registry) labelled(set string) string {
	if r.constant == "" {
		return set
	}
	if set == "" {
		return "{" + strings.TrimSuffix(r.constant, ",") + "}"
	}
	return "{" + r.constant + set[1:]
}

type family struct {
	help, typ string
	values    map[string]float64 // by rendered label set
}

type histFamily struct {
	help    string
	buckets []float64
	series  map[string]*histogram
}

type histogram struct {
	counts []uint64 // per bucket, cumulative on output
	sum    float64
	n      uint64
}

type gauge struct {
	name, help, typ string
	read            func() []Sample
}

// Sample is one gauge value with its labels.
type Sample struct {
	Labels []string // name, value, name, value…
	Value  float64
}

// New makes an empty registry.
func New() *Registry {
	return &Registry{counters: map[string]*family{}, routes: map[string]*Route{}}
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// labelSet renders name/value pairs as {a="x",b="y"} (values escaped).
func labelSet(kv []string) string {
	if len(kv) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(kv[i])
		b.WriteString(`="`)
		b.WriteString(labelEscaper.Replace(kv[i+1]))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// Add adds v to a counter (made on first use).
func (r *Registry) Add(name, help string, v float64, labels ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.counters[name]
	if !ok {
		f = &family{help: help, typ: "counter", values: map[string]float64{}}
		r.counters[name] = f
	}
	f.values[labelSet(labels)] += v
}

// Declare makes a counter present from the first scrape: at zero for each
// label set given (name, value, name, value…), or unlabelled when none is.
// A scraper then sees the family before anything happened, and rates over
// it start from zero instead of from the first event.
func (r *Registry) Declare(name, help string, labelSets ...[]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.counters[name]
	if !ok {
		f = &family{help: help, typ: "counter", values: map[string]float64{}}
		r.counters[name] = f
	}
	if len(labelSets) == 0 {
		labelSets = [][]string{nil}
	}
	for _, labels := range labelSets {
		k := labelSet(labels)
		if _, ok := f.values[k]; !ok {
			f.values[k] = 0
		}
	}
}

// Gauge registers a gauge read at each scrape.
func (r *Registry) Gauge(name, help string, read func() []Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gauges = append(r.gauges, gauge{name, help, "gauge", read})
}

// CounterFunc registers a counter the process keeps elsewhere (the CPU
// time the kernel counts), read at each scrape.
func (r *Registry) CounterFunc(name, help string, read func() []Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gauges = append(r.gauges, gauge{name, help, "counter", read})
}

// Names and help of the per-route families.
const (
	requestsName  = "garrison_http_requests_total"
	requestsHelp  = "API requests answered, by route pattern and status."
	durationsName = "garrison_http_request_duration_seconds"
	durationsHelp = "API request latency, by route pattern."
)

func number(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// WriteTo writes every metric in the text exposition format, families in
// name order, series in label order.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	r.mu.Lock()
	gauges := append([]gauge(nil), r.gauges...)
	counters, hists := maps.Clone(r.counters), map[string]*histFamily{}
	if len(r.routes) > 0 {
		requests := &family{help: requestsHelp, typ: "counter", values: map[string]float64{}}
		durations := &histFamily{help: durationsHelp, buckets: latencyBuckets[:], series: map[string]*histogram{}}
		for pattern, rt := range r.routes {
			rt.snapshot(pattern, requests, durations)
		}
		counters[requestsName], hists[durationsName] = requests, durations
	}
	for _, n := range slices.Sorted(maps.Keys(counters)) {
		f := counters[n]
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", n, f.help, n, f.typ)
		for _, k := range slices.Sorted(maps.Keys(f.values)) {
			fmt.Fprintf(&b, "%s%s %s\n", n, r.labelled(k), number(f.values[k]))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(hists)) {
		f := hists[n]
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s histogram\n", n, f.help, n)
		for _, k := range slices.Sorted(maps.Keys(f.series)) {
			h := f.series[k]
			k := r.labelled(k)
			inner := strings.TrimSuffix(strings.TrimPrefix(k, "{"), "}")
			sep := ""
			if inner != "" {
				sep = ","
			}
			var cum uint64
			for i, le := range f.buckets {
				cum += h.counts[i]
				fmt.Fprintf(&b, "%s_bucket{%s%sle=\"%s\"} %d\n", n, inner, sep, number(le), cum)
			}
			fmt.Fprintf(&b, "%s_bucket{%s%sle=\"+Inf\"} %d\n", n, inner, sep, h.n)
			fmt.Fprintf(&b, "%s_sum%s %s\n%s_count%s %d\n", n, k, number(h.sum), n, k, h.n)
		}
	}
	constant := r.labelled
	r.mu.Unlock()
	sort.Slice(gauges, func(i, j int) bool { return gauges[i].name < gauges[j].name })
	for _, g := range gauges {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", g.name, g.help, g.name, g.typ)
		for _, s := range g.read() {
			fmt.Fprintf(&b, "%s%s %s\n", g.name, constant(labelSet(s.Labels)), number(s.Value))
		}
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}
