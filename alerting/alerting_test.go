package alerting

import (
	"strings"
	"testing"
	"time"

	"garrison/event"
)

func TestCategories(t *testing.T) {
	tests := []struct {
		typ, msg, category, want string
	}{
		{event.TypeThreat, "ET MALWARE Win32/Emotet CnC Activity", "", event.CategoryMalware},
		{event.TypeThreat, "Beacon to C2 server", "", event.CategoryMalware},
		{event.TypeThreat, "Connection to ec2-1-2-3-4.compute-1.amazonaws.com", "", event.CategoryIntrusion},
		{event.TypeThreat, "hash 9c2f0e", "", event.CategoryIntrusion},
		{event.TypeThreat, "ET SCAN Nmap Scripting Engine", "", event.CategoryReconnaissance},
		{event.TypeThreat, "Port sweep", "", event.CategoryReconnaissance},
		{event.TypeThreat, "Odd traffic", "Attempted Information Leak", event.CategoryReconnaissance},
		{event.TypeThreat, "Escan antivirus update", "", event.CategoryIntrusion},
		{event.TypeThreat, "ET EXPLOIT Struts", "", event.CategoryIntrusion},
		{event.TypeBlocked, "Dropped", "", event.CategoryBlocked},
		{event.TypeDNS, "Tunnel", "", event.CategoryDNS},
		{event.TypePolicy, "USB", "", event.CategoryPolicy},
	}
	for _, tc := range tests {
		spec, ok := Immediate(Event{Type: tc.typ, Severity: 3, Asset: "h", Message: tc.msg, Category: tc.category})
		if !ok || spec.Category != tc.want {
			t.Errorf("%q: %s, want %s", tc.msg, spec.Category, tc.want)
		}
		if !strings.Contains(spec.RecommendedAction, "h") || spec.Title != tc.msg {
			t.Errorf("%q: action %q title %q", tc.msg, spec.RecommendedAction, spec.Title)
		}
	}
}

func TestImmediateOnlyHighAndCritical(t *testing.T) {
	for sev, want := range []bool{false, false, false, true, true} {
		if _, ok := Immediate(Event{Type: event.TypeThreat, Severity: event.Severity(sev), Asset: "h", Message: "m"}); ok != want {
			t.Errorf("severity %d: alert %v", sev, ok)
		}
	}
}

func TestFingerprints(t *testing.T) {
	a, _ := Immediate(Event{Type: event.TypeThreat, Severity: 3, Asset: "h1", Message: "m", Indicator: "1.2.3.4"})
	b, _ := Immediate(Event{Type: event.TypeThreat, Severity: 4, Asset: "h1", Message: "other text", Indicator: "1.2.3.4"})
	c, _ := Immediate(Event{Type: event.TypeThreat, Severity: 3, Asset: "h2", Message: "m", Indicator: "1.2.3.4"})
	if a.Fingerprint != b.Fingerprint || a.Fingerprint == c.Fingerprint {
		t.Fatal("one threat on one asset must share a fingerprint; another asset must not")
	}
	if Burst(event.TypeBlocked, "h1", 1).Fingerprint == Burst(event.TypeThreat, "h1", 1).Fingerprint {
		t.Fatal("bursts of different types share a fingerprint")
	}
	if s := Burst(event.TypeBlocked, "h1", 1).Severity; s != 2 {
		t.Fatalf("burst severity %d, want at least medium", s)
	}
}

func TestWindow(t *testing.T) {
	at := time.Date(2026, 1, 1, 10, 17, 42, 0, time.UTC)
	if w := Window(at); !w.Equal(time.Date(2026, 1, 1, 10, 10, 0, 0, time.UTC)) {
		t.Fatalf("window %v", w)
	}
}

func TestTitleIsOneLine(t *testing.T) {
	spec, _ := Immediate(Event{Type: event.TypeThreat, Severity: 3, Asset: "h", Message: "line\nBcc: x\r" + strings.Repeat("y", 300)})
	if strings.ContainsAny(spec.Title, "\r\n") || len(spec.Title) > 200 {
		t.Fatalf("title %q", spec.Title)
	}
}

func TestRecommendBlocksOnlyWhatCanBeBlocked(t *testing.T) {
	cases := []struct{ indicator, want, not string }{
		{"185.220.101.4", "Block 185.220.101.4 at the firewall", ""},
		{"evil.example.com", "Block evil.example.com at the firewall", ""},
		{"ET MALWARE Win32/Emotet CnC Activity", "Block the outside address behind it at the firewall", "Block ET MALWARE"},
		{"", "Block the outside address behind it", ""},
	}
	for _, c := range cases {
		got := recommend(event.CategoryMalware, "ws-07", c.indicator)
		if !strings.Contains(got, c.want) || (c.not != "" && strings.Contains(got, c.not)) {
			t.Errorf("%q: %s", c.indicator, got)
		}
	}
}

func TestBurstDecision(t *testing.T) {
	for _, tc := range []struct {
		name             string
		before, added    int64
		open             bool
		reached          bool
		joins, takeEarly bool
	}{
		{"quiet window", 0, BurstThreshold - 1, false, false, false, false},
		{"a batch alone reaches it", 0, BurstThreshold, false, true, true, false},
		{"crossing brings the earlier events", 3, BurstThreshold - 3, false, true, true, true},
		{"crossing into an open alert of an earlier window", 3, BurstThreshold, true, true, true, true},
		{"past it, alert open: stragglers join", BurstThreshold, 1, true, true, true, false},
		{"past it, alert resolved: stragglers raise nothing", BurstThreshold + 5, 1, false, true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := BurstReached(tc.before + tc.added); got != tc.reached {
				t.Fatalf("BurstReached(%d) = %v", tc.before+tc.added, got)
			}
			if !tc.reached {
				return
			}
			joins, early := BurstJoins(tc.before, tc.open)
			if joins != tc.joins || early != tc.takeEarly {
				t.Fatalf("BurstJoins(%d, %v) = %v, %v; want %v, %v", tc.before, tc.open, joins, early, tc.joins, tc.takeEarly)
			}
		})
	}
}
