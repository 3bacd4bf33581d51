package alerting

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"garrison/event"
)

func TestAttacker(t *testing.T) {
	ip := func(s string) netip.Addr { return netip.MustParseAddr(s) }
	cases := []struct {
		name string
		e    Event
		want string
	}{
		{"inbound: the outside source", Event{SrcIP: ip("203.0.113.5"), DstIP: ip("10.0.0.1")}, "ip:203.0.113.5"},
		{"outbound: the server called", Event{SrcIP: ip("10.0.0.5"), DstIP: ip("198.51.100.9")}, "ip:198.51.100.9"},
		{"internal: the source", Event{SrcIP: ip("10.0.0.5"), DstIP: ip("10.0.0.6")}, "ip:10.0.0.5"},
		{"external: the source", Event{SrcIP: ip("203.0.113.5"), DstIP: ip("198.51.100.9")}, "ip:203.0.113.5"},
		{"source only", Event{SrcIP: ip("192.0.2.66"), User: "root"}, "ip:192.0.2.66"},
		{"an account", Event{User: "Alice"}, "user:alice"},
		{"nothing", Event{Message: "x"}, ""},
	}
	for _, c := range cases {
		if got := Attacker(c.e); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestTactics(t *testing.T) {
	rule := func(tags ...string) *Rule { return &Rule{Tags: tags} }
	cases := []struct {
		name   string
		alerts []Alert
		want   string
	}{
		{"kill-chain order, each once", []Alert{{Rule: rule("attack.command-and-control", "attack.t1071")},
			{Rule: rule("attack.execution", "attack.t1059.001")}, {Rule: rule("attack.initial-access", "attack.execution")}},
			"initial-access,execution,command-and-control"},
		{"underscored tags", []Alert{{Rule: rule("attack.lateral_movement", "attack.credential_access")}}, "credential-access,lateral-movement"},
		{"a category without a rule", []Alert{{Category: event.CategoryReconnaissance}, {Category: event.CategoryMalware}},
			"reconnaissance,command-and-control"},
		{"a rule's tags win over its category", []Alert{{Category: event.CategoryMalware, Rule: rule("attack.discovery")}}, "discovery"},
		{"none", []Alert{{Category: event.CategoryBurst}}, ""},
	}
	for _, c := range cases {
		if got := strings.Join(Tactics(c.alerts), ","); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	var in Incident
	in.Summarize([]Alert{
		{Status: Resolved, Severity: event.Medium, Asset: "web-2", FirstSeen: t0.Add(time.Hour), LastSeen: t0.Add(2 * time.Hour)},
		{Status: Open, Severity: event.Critical, Asset: "web-1", FirstSeen: t0, LastSeen: t0.Add(time.Minute)},
		{Status: Resolved, Severity: event.Low, Asset: "web-1", FirstSeen: t0.Add(3 * time.Hour), LastSeen: t0.Add(3 * time.Hour)},
	})
	if in.Status != Open || in.Severity != event.Critical || in.AlertCount != 3 || strings.Join(in.Assets, ",") != "web-1,web-2" ||
		!in.FirstSeen.Equal(t0) || !in.LastSeen.Equal(t0.Add(3*time.Hour)) {
		t.Fatalf("%+v", in)
	}
	in = Incident{}
	in.Summarize([]Alert{{Status: Resolved, Asset: "a", FirstSeen: t0, LastSeen: t0}})
	if in.Status != Resolved {
		t.Fatalf("all resolved: %s", in.Status)
	}
}
