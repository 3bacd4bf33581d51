package main

import (
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"garrison/metrics"
)

// TestMetricsFamiliesFromTheFirstScrape: before anything happened, a
// scrape already shows every counter family at zero for each outcome it
// counts, the build and the standard process_* gauges.
func TestMetricsFamiliesFromTheFirstScrape(t *testing.T) {
	e := newTestEnv(t)
	var b strings.Builder
	e.app.Metrics.WriteTo(&b)
	text := b.String()
	if err := metrics.Check(text); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, want := range []string{
		"garrison_ingest_batches_total 0\n",
		"garrison_ingest_events_total 0\n",
		`garrison_mail_deliveries_total{outcome="sent"} 0` + "\n",
		`garrison_mail_deliveries_total{outcome="failed"} 0` + "\n",
		`garrison_agent_runs_total{agent="onboarding",status="completed"} 0` + "\n",
		`garrison_agent_runs_total{agent="msp-hunter",status="failed"} 0` + "\n",
		`garrison_ratelimit_refusals_total{bucket="auth"} 0` + "\n",
		`garrison_ratelimit_refusals_total{bucket="apikey"} 0` + "\n",
		`garrison_build_info{version="` + buildVersion() + `",goversion="` + runtime.Version() + `"} 1` + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the first scrape lacks %q", want)
		}
	}
	for _, gauge := range []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
		"process_open_fds", "process_max_fds", "process_start_time_seconds"} {
		m := regexp.MustCompile(`(?m)^` + gauge + ` (\S+)$`).FindStringSubmatch(text)
		if m == nil {
			t.Errorf("no %s", gauge)
			continue
		}
		if v, err := strconv.ParseFloat(m[1], 64); err != nil || v <= 0 {
			t.Errorf("%s = %s", gauge, m[1])
		}
	}
}
