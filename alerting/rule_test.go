package alerting

import (
	"strings"
	"testing"

	"garrison/event"
)

func TestRuleSeverity(t *testing.T) {
	for level, want := range map[string]event.Severity{"informational": event.Info, "low": event.Low, "medium": event.Medium,
		"high": event.High, "critical": event.Critical, "": event.Info} {
		if got := RuleSeverity(level); got != want {
			t.Errorf("%q: %v, want %v", level, got, want)
		}
	}
}

func TestStrongest(t *testing.T) {
	low, high, high2, crit := &Rule{ID: "l", Level: "low"}, &Rule{ID: "h", Level: "high"}, &Rule{ID: "h2", Level: "high"}, &Rule{ID: "c", Level: "critical"}
	cases := []struct {
		rules []*Rule
		want  *Rule
	}{
		{[]*Rule{low}, low},
		{[]*Rule{low, high, high2}, high},
		{[]*Rule{high2, high}, high2},
		{[]*Rule{high, crit, low}, crit},
	}
	for i, c := range cases {
		if got := Strongest(c.rules); got != c.want {
			t.Errorf("case %d: %s, want %s", i, got.ID, c.want.ID)
		}
	}
}

func TestMatched(t *testing.T) {
	r := &Rule{ID: "r1", Title: "Suspicious thing", Level: "high", Tags: []string{"attack.discovery", "attack.t1087"},
		FalsePositives: []string{"Admin scripts"}}
	e := Event{Asset: "ws-1", Indicator: "10.0.0.9"}
	s := Matched(e, r)
	if s.Severity != event.High || s.Category != event.CategoryReconnaissance || s.Title != "Suspicious thing" || s.Rule != r ||
		!strings.Contains(s.RecommendedAction, "Admin scripts") || !strings.Contains(s.RecommendedAction, "ws-1") {
		t.Fatalf("spec %+v", s)
	}
	// An informational rule does not hide a critical event.
	if got := Matched(Event{Asset: "dc-1", Severity: event.Critical}, &Rule{ID: "i", Level: "informational"}).Severity; got != event.Critical {
		t.Fatalf("a critical event's rule alert is %s", got)
	}
	// One alert per rule and asset.
	if Matched(Event{Asset: "ws-1", Message: "other"}, r).Fingerprint != s.Fingerprint || Matched(Event{Asset: "ws-2"}, r).Fingerprint == s.Fingerprint ||
		Matched(e, &Rule{ID: "r2"}).Fingerprint == s.Fingerprint {
		t.Fatal("fingerprints are not one per rule and asset")
	}
	for tags, want := range map[string]string{"attack.command-and-control": event.CategoryMalware, "attack.execution": event.CategoryIntrusion,
		"": event.CategoryIntrusion, "attack.reconnaissance attack.command-and-control": event.CategoryMalware} {
		if got := ruleCategory(strings.Fields(tags)); got != want {
			t.Errorf("%q: %s, want %s", tags, got, want)
		}
	}
}
