package eve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"garrison/event"
)

var severities = map[event.Severity]bool{
	event.Info: true, event.Low: true, event.Medium: true, event.High: true, event.Critical: true,
}

var eventTypes = map[string]bool{
	event.TypeThreat: true, event.TypeBlocked: true, event.TypeDNS: true, event.TypePolicy: true,
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func countLines(data []byte) int {
	n := 0
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			n++
		}
	}
	return n
}

func TestRealCCDC(t *testing.T) {
	data := readFile(t, filepath.Join("testdata", "ccdc_sample.jsonl"))
	res, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if n := countLines(data); len(res.Events) != n || res.Skipped != 0 || len(res.DNS) != 0 {
		t.Fatalf("%d lines gave %d events, %d dns, %d skipped", n, len(res.Events), len(res.DNS), res.Skipped)
	}
	bySev := map[event.Severity]int{}
	for i, e := range res.Events {
		if e.Type != event.TypeThreat || !severities[e.Severity] || e.Asset == "" || e.Asset == "unknown" ||
			e.Message == "" || e.Indicator == "" || e.Timestamp.IsZero() {
			t.Errorf("event %d: %+v", i+1, e)
		}
		bySev[e.Severity]++
	}
	// Severity 1 in this slice is a mix of compromise and policy alerts.
	if bySev[event.Critical] == 0 || bySev[event.High] == 0 || bySev[event.Medium] == 0 || bySev[event.Low] == 0 {
		t.Errorf("severity spread %v: want every level but info", bySev)
	}
	t.Logf("ccdc sample: %d events %v", len(res.Events), bySev)
}

// TestRealCCDCFull runs the whole 548-alert file the sample was cut from,
// where the shared tree exists.
func TestRealCCDCFull(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "data", "netsec", "suricata_eve_alerts_ccdc_first_honeypot.jsonl")
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("SKIPPED: the full CCDC capture is read at run time from %s, a data tree beside the repository that this checkout lacks; "+
			"the repository keeps only a slice of it (testdata/ccdc_sample.jsonl)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res)
	bySev := map[event.Severity]int{}
	for _, e := range res.Events {
		if e.Type != event.TypeThreat || e.Asset == "unknown" {
			t.Errorf("%+v", e)
		}
		bySev[e.Severity]++
	}
	if n := countLines(data); len(res.Events) != n {
		t.Errorf("%d lines gave %d events", n, len(res.Events))
	}
	t.Logf("ccdc full: %d events %v", len(res.Events), bySev)
}

func TestRealVerifySamples(t *testing.T) {
	data := readFile(t, filepath.Join("testdata", "verify_samples.jsonl"))
	res, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res)
	// 5 alerts; 6 DNS requests, each answered by the 18 v1 answer lines
	// (11 of them one multi-RR response over TCP); tls 2 + flow 1 +
	// fileinfo 1 skipped.
	if len(res.Events) != 5 || len(res.DNS) != 6 || res.Skipped != 4 {
		t.Errorf("got %d events, %d dns, %d skipped; want 5, 6, 4", len(res.Events), len(res.DNS), res.Skipped)
	}
	for _, q := range res.DNS {
		if q.RCode != "NOERROR" || q.Client != "10.16.1.11" {
			t.Errorf("query %+v: want answered NOERROR from 10.16.1.11", q)
		}
	}
	t.Logf("verify samples: %d events, %d dns, %d skipped", len(res.Events), len(res.DNS), res.Skipped)
}

// TestRealStratosphere reads GPL-licensed data that must not be copied
// into this repository, so it is used only where the shared tree exists.
func TestRealStratosphere(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "data", "netsec", "suricata_eve_stratosphere.jsonl")
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("SKIPPED: the Stratosphere capture is GPL-2.0, so it is not copied into this repository; it is read at run time "+
			"from %s, which this checkout lacks", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res)
	if len(res.Events) == 0 || len(res.DNS) == 0 {
		t.Fatalf("got %d events and %d dns queries, want some of each", len(res.Events), len(res.DNS))
	}
	types, sevs, rcodes := map[string]int{}, map[event.Severity]int{}, map[string]int{}
	for _, e := range res.Events {
		types[e.Type]++
		sevs[e.Severity]++
		if e.Asset != "192.168.1.129" {
			t.Errorf("asset %q: the capture's exposed host is 192.168.1.129", e.Asset)
		}
	}
	for _, q := range res.DNS {
		rcodes[q.RCode]++
	}
	t.Logf("stratosphere: %d records -> %d events %v %v, %d dns queries (rcodes %v), %d skipped",
		countLines(data), len(res.Events), types, sevs, len(res.DNS), rcodes, res.Skipped)
}

// checkResult holds for every successful Parse.
func checkResult(t *testing.T, res Result) {
	t.Helper()
	for i, e := range res.Events {
		if !eventTypes[e.Type] || !severities[e.Severity] {
			t.Errorf("event %d: type %q severity %q", i, e.Type, e.Severity)
		}
		if strings.ContainsAny(e.Message, "\r\n") || strings.ContainsAny(e.Indicator, "\r\n") {
			t.Errorf("event %d: multi-line text %q / %q", i, e.Message, e.Indicator)
		}
		if e.Asset == "" || e.Timestamp.Location().String() != "UTC" {
			t.Errorf("event %d: asset %q, time %v", i, e.Asset, e.Timestamp)
		}
	}
	for i, q := range res.DNS {
		if q.Domain == "" || q.Domain != strings.ToLower(q.Domain) || strings.HasSuffix(q.Domain, ".") ||
			q.Client == "" || q.Timestamp.Location().String() != "UTC" {
			t.Errorf("dns %d: %+v", i, q)
		}
	}
}
