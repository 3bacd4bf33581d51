package agents

import (
	"reflect"
	"testing"

	"garrison/alerting"
	"garrison/llm"
)

// TestHeadlines: the headline facts a narrative must state are read from
// the outputs that carry them; other outputs have none.
func TestHeadlines(t *testing.T) {
	tests := []struct {
		name string
		out  map[string]any
		want []llm.Headline
	}{
		{"an onboarding checklist", map[string]any{"checklist": []any{}, "percent_complete": 55}, nil},
		{"the account manager's open alerts", map[string]any{"open_alerts": map[string]any{"total": 9, "critical": 6, "high": 3}},
			[]llm.Headline{llm.OpenCriticalAlerts(6)}},
		{"the alerts about a researched indicator", map[string]any{"alerts": []map[string]any{
			{"status": alerting.Open, "severity": "high"}, {"status": "resolved", "severity": "critical"}, {"status": alerting.Open, "severity": "low"}}},
			[]llm.Headline{llm.OpenAlerts(2)}},
		{"known-exploited CVEs matched", map[string]any{"cves": map[string]any{"available": true,
			"matches": []CVERecord{{ID: "CVE-1", KnownExploited: true}, {ID: "CVE-2"}}}}, []llm.Headline{llm.KEVExposures(1)}},
		{"a ticket escalated", map[string]any{"escalated": true}, []llm.Headline{llm.EscalatedTickets(1)}},
		{"a ticket kept", map[string]any{"escalated": false}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := headlines(tc.out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
