package alerting

import (
	"net/netip"
	"strings"
	"testing"

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
