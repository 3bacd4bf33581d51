package eve

import (
	"os"
	"path/filepath"
	"testing"

	"garrison/event"
)

// TestSeverityTableOnSamples runs the severity table over every alert of
// the real EVE samples and asserts how many land at each severity. Before
// the table (Suricata's 1 as high, critical when a word said trojan or
// exploit), the full CCDC capture had 110 critical and 93 high alerts, most
// of them ET POLICY and inbound exploit attempts; the Stratosphere capture
// of an exposed host had 743 medium or worse, all internet weather.
func TestSeverityTableOnSamples(t *testing.T) {
	shared := filepath.Join("..", "..", "shared", "data", "netsec")
	cases := []struct {
		path, why string // why: read from the shared tree, and why it is not copied here
		want      map[event.Severity]int
	}{
		{filepath.Join("testdata", "ccdc_sample.jsonl"), "",
			map[event.Severity]int{event.Info: 6, event.Low: 17, event.Medium: 9, event.High: 6, event.Critical: 2}},
		{filepath.Join("testdata", "verify_samples.jsonl"), "",
			map[event.Severity]int{event.Low: 3, event.Medium: 2}},
		{filepath.Join(shared, "suricata_eve_alerts_ccdc_first_honeypot.jsonl"), "the repository keeps only a slice of it",
			map[event.Severity]int{event.Info: 89, event.Low: 259, event.Medium: 111, event.High: 62, event.Critical: 27}},
		{filepath.Join(shared, "suricata_eve_stratosphere.jsonl"), "it is GPL-2.0 and so not copied into this repository",
			map[event.Severity]int{event.Low: 739, event.Medium: 6}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			data, err := os.ReadFile(c.path)
			if os.IsNotExist(err) && c.why != "" {
				t.Skipf("SKIPPED: %s is read at run time from the data tree beside the repository, which this checkout lacks (%s)", c.path, c.why)
			}
			if err != nil {
				t.Fatal(err)
			}
			res, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			got := map[event.Severity]int{}
			for _, e := range res.Events {
				if _, alert := e.Details["signature_class"]; alert {
					got[e.Severity]++
				}
			}
			for _, s := range event.Severities {
				if got[s] != c.want[s] {
					t.Errorf("%s: %d alerts, want %d (all: %v)", s, got[s], c.want[s], got)
				}
			}
		})
	}
}
