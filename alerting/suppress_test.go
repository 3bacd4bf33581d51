package alerting

import (
	"testing"
	"time"
)

func TestSuppressionMatches(t *testing.T) {
	ev := Event{Message: "ET SCAN Nmap", Asset: "scanner", Indicator: "10.0.0.5"}
	for _, tc := range []struct {
		name string
		s    Suppression
		want bool
	}{
		{"its signature", Suppression{Signature: "ET SCAN Nmap"}, true},
		{"its signature and asset", Suppression{Signature: "ET SCAN Nmap", Asset: "scanner"}, true},
		{"its signature on another asset", Suppression{Signature: "ET SCAN Nmap", Asset: "dc-01"}, false},
		{"its indicator", Suppression{Indicator: "10.0.0.5"}, true},
		{"its source", Suppression{Source: "suricata"}, true},
		{"another source", Suppression{Source: "edr"}, false},
		{"a signature it only contains", Suppression{Signature: "ET SCAN"}, false},
	} {
		if got := tc.s.Matches(ev, "suricata"); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	ended := now.Add(-time.Minute)
	for _, tc := range []struct {
		name string
		s    Suppression
		want bool
	}{
		{"before its expiry", Suppression{ExpiresAt: now.Add(time.Second)}, true},
		{"at its expiry", Suppression{ExpiresAt: now}, false},
		{"ended early", Suppression{ExpiresAt: now.Add(time.Hour), EndedAt: &ended}, false},
	} {
		if got := tc.s.Active(now); got != tc.want {
			t.Errorf("%s: active %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNewSuppressionCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    NewSuppression
		ok   bool
	}{
		{"an asset for a day", NewSuppression{Asset: "scanner", Reason: "ours", For: 24 * time.Hour}, true},
		{"nothing to match", NewSuppression{Reason: "ours", For: time.Hour}, false},
		{"no reason", NewSuppression{Asset: "scanner", For: time.Hour}, false},
		{"under a minute", NewSuppression{Asset: "scanner", Reason: "ours", For: 59 * time.Second}, false},
		{"ninety days", NewSuppression{Asset: "scanner", Reason: "ours", For: MaxSuppressionFor}, true},
		{"past ninety days", NewSuppression{Asset: "scanner", Reason: "ours", For: MaxSuppressionFor + time.Minute}, false},
		{"a two-line signature", NewSuppression{Signature: "a\nb", Reason: "ours", For: time.Hour}, false},
	} {
		if err := tc.n.Check(); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	for in, want := range map[string]time.Duration{"90m": 90 * time.Minute, "8h": 8 * time.Hour, "7d": 7 * 24 * time.Hour} {
		if got, ok := ParsePeriod(in); !ok || got != want {
			t.Errorf("ParsePeriod(%q) = %s %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "d", "-1d", "7 days", "x"} {
		if _, ok := ParsePeriod(in); ok {
			t.Errorf("ParsePeriod(%q) accepted", in)
		}
	}
}
