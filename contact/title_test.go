package contact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTitle(t *testing.T) {
	beacon := Alert{ID: "alt_1", Title: "Ransomware beacon", Severity: "critical", Asset: "ws-12"}
	burst := Alert{ID: "alt_2", Title: "Burst of port scan events from ws-12", Severity: "high", Asset: "ws-12"}
	medium := Alert{ID: "alt_3", Title: "Odd DNS", Severity: "medium", Asset: "ws-3"}
	tests := []struct {
		name string
		m    Message
		want string
	}{
		{"single", Message{Event: Trigger, OrgName: "Dental One", Alerts: []Alert{beacon}, Count: 1},
			"[CRITICAL] Dental One: Ransomware beacon on ws-12"},
		{"asset already named", Message{Event: Trigger, OrgName: "Dental One", Alerts: []Alert{burst}, Count: 1},
			"[HIGH] Dental One: Burst of port scan events from ws-12"},
		{"no asset", Message{Event: Trigger, OrgName: "Acme", Alerts: []Alert{{Title: "Lateral movement", Severity: "low"}}},
			"[LOW] Acme: Lateral movement"},
		{"group", Message{Event: Trigger, OrgName: "Dental One", Rule: "Night shift", Alerts: []Alert{medium, burst}, Count: 7},
			"[HIGH] Dental One: 7 alerts (rule Night shift)"},
		{"group lists more than its count", Message{Event: Trigger, OrgName: "Acme", Alerts: []Alert{medium, medium}},
			"[MEDIUM] Acme: 2 alerts"},
		{"test", Message{Event: Test, OrgName: "Dental One"}, "Test from Garrison"},
		{"resolve", Message{Event: Resolve, OrgName: "Dental One", Alerts: []Alert{beacon}, Count: 1},
			"Resolved: [CRITICAL] Dental One: Ransomware beacon on ws-12"},
		{"acknowledge", Message{Event: Acknowledge, OrgName: "Dental One", Alerts: []Alert{beacon}, Count: 1},
			"Acknowledged: [CRITICAL] Dental One: Ransomware beacon on ws-12"},
		{"escalate", Message{Event: Escalate, OrgName: "Dental One", Alerts: []Alert{beacon}, Count: 1, Escalation: 2},
			"Escalation 2: [CRITICAL] Dental One: Ransomware beacon on ws-12"},
		{"one line", Message{Event: Trigger, OrgName: "Acme\r\nBcc: x", Alerts: []Alert{{Title: "a\nb", Severity: "info"}}},
			"[INFO] Acme  Bcc: x: a b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.m.Title(); got != tc.want {
				t.Fatalf("Title() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTitleIsBounded(t *testing.T) {
	m := Message{Event: Trigger, OrgName: "Acme", Alerts: []Alert{{Title: strings.Repeat("é", 1000), Severity: "high"}}}
	got := m.Title()
	if n := utf8.RuneCountInString(got); n != maxTitle || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Fatalf("title of %d runes (valid %v): %q", n, utf8.ValidString(got), got)
	}
}
