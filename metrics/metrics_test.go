package metrics

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestExposition(t *testing.T) {
	r := New()
	r.Route("GET /api/events").Observe(0, 200, 3*time.Millisecond)
	r.Route("GET /api/events").Observe(1, 200, 30*time.Second)
	r.Route("POST /api/events").Observe(2, 429, time.Millisecond)
	r.Add("garrison_ratelimit_refusals_total", "Refusals.", 1, "bucket", `a"b\c`)
	r.Gauge("garrison_queue", "Queue.", func() []Sample { return []Sample{{Value: 3}} })
	var b strings.Builder
	r.WriteTo(&b)
	out := b.String()
	if err := Check(out); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		`garrison_http_requests_total{route="GET /api/events",status="200"} 2`,
		`garrison_http_requests_total{route="POST /api/events",status="429"} 1`,
		`garrison_http_request_duration_seconds_bucket{route="GET /api/events",le="0.005"} 1`,
		`garrison_http_request_duration_seconds_bucket{route="GET /api/events",le="+Inf"} 2`,
		`garrison_http_request_duration_seconds_count{route="GET /api/events"} 2`,
		`garrison_http_request_duration_seconds_sum{route="GET /api/events"} 30.003`,
		`garrison_ratelimit_refusals_total{bucket="a\"b\\c"} 1`,
		"garrison_queue 3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

// A node's name comes first on every series: counters, histograms (each
// bucket, sum and count) and gauges, with labels of their own or none.
func TestConstLabel(t *testing.T) {
	r := New()
	r.ConstLabel("node", "soc-2")
	r.Route("GET /api/events").Observe(0, 200, 3*time.Millisecond)
	r.Add("garrison_ratelimit_refusals_total", "Refusals.", 1)
	r.Gauge("garrison_queue", "Queue.", func() []Sample { return []Sample{{Value: 3}, {Labels: []string{"agent", "triage"}, Value: 1}} })
	var b strings.Builder
	r.WriteTo(&b)
	out := b.String()
	if err := Check(out); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		`garrison_http_requests_total{node="soc-2",route="GET /api/events",status="200"} 1`,
		`garrison_http_request_duration_seconds_bucket{node="soc-2",route="GET /api/events",le="0.005"} 1`,
		`garrison_http_request_duration_seconds_count{node="soc-2",route="GET /api/events"} 1`,
		`garrison_ratelimit_refusals_total{node="soc-2"} 1`,
		`garrison_queue{node="soc-2"} 3`,
		`garrison_queue{node="soc-2",agent="triage"} 1`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	for name, text := range map[string]string{
		"no TYPE":         "# HELP x_total X.\nx_total 1\n",
		"bad name":        "# HELP 1x X.\n# TYPE 1x counter\n1x 1\n",
		"bad value":       "# HELP x_total X.\n# TYPE x_total counter\nx_total one\n",
		"repeated series": "# HELP x_total X.\n# TYPE x_total counter\nx_total 1\nx_total 2\n",
		"counter name":    "# HELP x X.\n# TYPE x counter\nx 1\n",
		"buckets down":    "# HELP h X.\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
		"no +Inf":         "# HELP h X.\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",
		"unescaped label": "# HELP x_total X.\n# TYPE x_total counter\nx_total{a=\"b\"c\"} 1\n",
	} {
		if Check(text) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// BenchmarkScrape writes 100 routes' counters and histograms.
func BenchmarkScrape(b *testing.B) {
	r := New()
	for i := range 100 {
		for _, st := range []int{200, 400, 429} {
			r.Route("GET /api/route"+strings.Repeat("x", i%7)+string(rune('a'+i%26))).Observe(uint(i), st, time.Millisecond)
		}
	}
	var sb strings.Builder
	for b.Loop() {
		sb.Reset()
		r.WriteTo(&sb)
	}
}

// A scrape racing requests still writes a valid exposition: no bucket
// above its total, every series once.
func TestScrapeWhileCounting(t *testing.T) {
	r := New()
	rt := r.Route("GET /api/events")
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				rt.Observe(uint(w), 200+w, time.Duration(i%20)*time.Millisecond)
			}
		})
	}
	for range 200 {
		var b strings.Builder
		r.WriteTo(&b)
		if err := Check(b.String()); err != nil {
			close(done)
			wg.Wait()
			t.Fatalf("%v\n%s", err, b.String())
		}
	}
	close(done)
	wg.Wait()
	var b strings.Builder
	r.WriteTo(&b)
	if !strings.Contains(b.String(), `garrison_http_requests_total{route="GET /api/events",status="203"}`) {
		t.Errorf("a status counted by one writer is missing:\n%s", b.String())
	}
}

// BenchmarkRouteObserve is the cost every API request pays for its metrics,
// with requests on every core counting in one copy of the counters
// ("shared") or, as the middleware's hints make them, in their own.
//
//	go test -run XXX -bench RouteObserve ./metrics
func BenchmarkRouteObserve(b *testing.B) {
	for _, spread := range []bool{false, true} {
		name := map[bool]string{false: "shared", true: "spread"}[spread]
		b.Run(name, func(b *testing.B) {
			rt := New().Route("GET /api/dashboard/health")
			var next atomic.Uint32
			b.RunParallel(func(pb *testing.PB) {
				hint := uint(0)
				if spread {
					hint = uint(next.Add(1))
				}
				for pb.Next() {
					rt.Observe(hint, 200, 3*time.Millisecond)
				}
			})
		})
	}
}

func TestDeclare(t *testing.T) {
	r := New()
	r.Declare("x_total", "X.")
	r.Declare("y_total", "Y.", []string{"k", "a"}, []string{"k", "b"})
	r.Add("y_total", "Y.", 2, "k", "b")
	r.Declare("y_total", "Y.", []string{"k", "b"}) // declaring again keeps the count
	var b strings.Builder
	r.WriteTo(&b)
	want := "# HELP x_total X.\n# TYPE x_total counter\nx_total 0\n" +
		"# HELP y_total Y.\n# TYPE y_total counter\ny_total{k=\"a\"} 0\ny_total{k=\"b\"} 2\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	if err := Check(b.String()); err != nil {
		t.Fatal(err)
	}
}
