package detection

import (
	"testing"
	"time"

	"garrison/store"
	"garrison/telemetry"
)

// A provider's rule is compiled once for all its clients, and clients that
// run the same rules share one engine; a client with a rule of its own,
// or one that turned the provider's off, gets its own. A stored rule this
// release cannot read is left out of the engine, and ingest goes on.
func TestCustomRulesCompiledOnce(t *testing.T) {
	cat, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	rule := func(org, id, cmd string) store.CustomRule {
		return store.CustomRule{OrgID: org, ID: id, CreatedAt: created, YAML: "title: t " + id + "\nid: " + id +
			"\nlevel: high\nlogsource:\n  product: windows\n  category: process_creation\ndetection:\n  sel:\n    CommandLine|contains: " +
			cmd + "\n  condition: sel\n"}
	}
	provider := rule("prov", "11111111-1111-1111-1111-111111111111", "evil-tool")
	own := rule("dental", "22222222-2222-2222-2222-222222222222", "other-tool")
	broken := store.CustomRule{OrgID: "prov", ID: "33333333-3333-3333-3333-333333333333", CreatedAt: created, YAML: "title: [unclosed"}
	off := []store.DetectionChoice{{Kind: "rule", Name: provider.ID, Enabled: false}}

	var cache customCache
	clientA := newDetector(cat, store.DetectionConfig{Rules: []store.CustomRule{provider, broken}}, &cache)
	clientB := newDetector(cat, store.DetectionConfig{Rules: []store.CustomRule{provider, broken}}, &cache)
	withOwn := newDetector(cat, store.DetectionConfig{Rules: []store.CustomRule{own, provider, broken}}, &cache)
	turnedOff := newDetector(cat, store.DetectionConfig{Own: off, Rules: []store.CustomRule{provider, broken}}, &cache)
	if clientA.custom == nil || clientA.custom != clientB.custom {
		t.Fatal("clients running the same rules do not share an engine")
	}
	if withOwn.custom == clientA.custom || turnedOff.custom != nil {
		t.Fatal("different rules share an engine")
	}
	if len(cache.rules) != 3 || len(cache.engines) != 2 {
		t.Fatalf("%d rules and %d engines compiled, want 3 and 2", len(cache.rules), len(cache.engines))
	}
	res, err := telemetry.Parse(telemetry.FormatWindows, []byte(`{"EventID":1,"Channel":"Microsoft-Windows-Sysmon/Operational",`+
		`"Hostname":"ws-1","@timestamp":"2026-11-20T10:00:00Z","CommandLine":"evil-tool --all"}`), created)
	if err != nil || len(res.Records) != 1 {
		t.Fatal(err, res)
	}
	for name, d := range map[string]*Detector{"client": clientA, "with own": withOwn} {
		if got := d.Match(res.Records[0].Raw); len(got) != 1 || got[0].ID != provider.ID {
			t.Errorf("%s: fired %v", name, got)
		}
	}
	if got := turnedOff.Match(res.Records[0].Raw); len(got) != 0 {
		t.Errorf("turned off: fired %v", got)
	}
}
