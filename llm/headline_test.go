package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// TestCheckHeadlines: a narrative must state each headline fact (its
// number, or a clear mention) and must not deny it or say all is well
// while it stands.
func TestCheckHeadlines(t *testing.T) {
	six, two := OpenCriticalAlerts(6), OpenHighAlerts(2)
	tests := []struct {
		name      string
		answer    string
		headlines []Headline
		hidden    string // "" for none; else part of the error
	}{
		{"states both with their numbers", "6 critical alerts are still open and 2 high-severity ones need attention.", []Headline{six, two}, ""},
		{"one sentence, combined count", "Eight high or critical alerts are still open.", []Headline{six, two}, ""},
		{"the number in words", "Six critical alerts remain open. Two high alerts too.", []Headline{six, two}, ""},
		{"a clear mention without the number", "Critical alerts are still open and need a person today; so do high ones.", []Headline{six, two}, ""},
		{"the count given, a negation beside it", "6 critical alerts are open and none was resolved; 2 high alerts wait.", []Headline{six, two}, ""},
		{"no headline: all clear is true", "All clear, nothing to do.", nil, ""},
		{"a count of 0 is no headline", "All clear, nothing to do.", []Headline{OpenCriticalAlerts(0), EscalatedTickets(0)}, ""},
		{"all clear with 6 critical alerts open", "All clear, nothing to do.", []Headline{six}, `it says "all clear" while there are 6 open critical alerts`},
		{"nothing to do, the numbers stated", "6 critical alerts are open, but there is nothing to do.", []Headline{six}, `"nothing to do"`},
		{"no alerts", "No alerts today.", []Headline{six}, `"no alerts"`},
		{"critical left out", "The day was busy: 12 events and 2 high alerts.", []Headline{six, two}, "it leaves out the 6 open critical alerts"},
		{"high left out", "6 critical alerts are open.", []Headline{six, two}, "it leaves out the 2 open high-severity alerts"},
		{"critical denied", "There are no critical alerts; 2 high alerts are open.", []Headline{six, two}, "it denies the 6 open critical alerts"},
		{"critical denied with a zero", "Critical alerts: 0. High: 2.", []Headline{six, two}, "it denies the 6 open critical alerts"},
		{"denied with n't", "Nothing critical isn't handled. 2 high alerts are open.", []Headline{six, two}, "it denies the 6 open critical alerts"},
		{"high denied, critical stated", "6 critical alerts are open, and no high ones.", []Headline{six, two}, "it denies the 2 open high-severity alerts"},
		{"the count nearby, denied at the mention", "6 alerts were raised, none of them critical. 2 high alerts are open.", []Headline{six, two},
			"it denies the 6 open critical alerts"},
		{"a negation elsewhere in the sentence", "Critical alerts are not being handled: 6 are open. 2 high ones are open.", []Headline{six, two}, ""},
		{"critical denied after the mention", "Critical alerts: none. 2 high alerts are open.", []Headline{six, two}, "it denies the 6 open critical alerts"},
		{"an escalation stated", "A technician should take the ticket: its triage confidence is low.", []Headline{EscalatedTickets(1)}, ""},
		{"an escalation left out", "The ticket is a printer problem.", []Headline{EscalatedTickets(1)}, "it leaves out the 1 escalated tickets"},
		{"a KEV exposure stated", "One of the CVEs is known-exploited (KEV).", []Headline{KEVExposures(1)}, ""},
		{"a KEV exposure denied", "None of these CVEs is exploited.", []Headline{KEVExposures(1)}, "it denies the 1 known-exploited (KEV) vulnerabilities"},
		{"open alerts about an indicator", "The address has 3 open alerts.", []Headline{OpenAlerts(3)}, ""},
		{"open alerts about an indicator denied", "The address raised nothing: it has no open alert.", []Headline{OpenAlerts(3)}, "it denies the 3 open alerts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkHeadlines(tc.answer, tc.headlines)
			if tc.hidden == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrHidden) || !strings.Contains(err.Error(), tc.hidden) {
				t.Fatalf("got %v, want ErrHidden naming %q", err, tc.hidden)
			}
		})
	}
}

// TestPhraseRefusesAHiddenHeadline: over a real local HTTP server, a
// narrative that leaves out or contradicts a headline fact is refused like
// an invented number: the plain text is used and the reason says why. The
// model is told the headline facts; a narrative that states them is used.
func TestPhraseRefusesAHiddenHeadline(t *testing.T) {
	facts := map[string]any{"open_critical_alerts": 6, "open_high_alerts": 0, "alerts_raised": 6}
	const plain = "6 alerts were raised and 0 were resolved. 6 high or critical alerts are still open and need attention."
	heads := []Headline{OpenCriticalAlerts(6), OpenHighAlerts(0)}
	tests := []struct {
		name, answer string
		byModel      bool
		reason       string
	}{
		{"contradiction", "All clear, nothing to do.", false,
			`The language model's text left out or contradicted a headline fact (it says "all clear" while there are 6 open critical alerts); the deterministic summary is shown.`},
		{"omission", "6 alerts were raised today.", false,
			"The language model's text left out or contradicted a headline fact (it leaves out the 6 open critical alerts); the deterministic summary is shown."},
		{"negation", "6 alerts were raised, none of them critical.", false,
			"The language model's text left out or contradicted a headline fact (it denies the 6 open critical alerts); the deterministic summary is shown."},
		{"a good narrative", "Six critical alerts are still open and need attention; 6 were raised today.", true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, got := fake(t, http.StatusOK, reply(tc.answer))
			c := New(Config{URL: srv.URL + "/v1", Model: "m", HTTP: srv.Client()})
			ph, err := Phrase(context.Background(), c, "a summary of the day's security activity", facts, plain, heads...)
			if ph.ByModel() != tc.byModel || ph.FallbackReason != tc.reason {
				t.Fatalf("phrasing %+v (%v), want by model %v, reason %q", ph, err, tc.byModel, tc.reason)
			}
			if want := map[bool]string{true: tc.answer, false: plain}[tc.byModel]; ph.Text != want {
				t.Errorf("text %q, want %q", ph.Text, want)
			}
			var body struct{ Messages []Message }
			if err := json.Unmarshal(receive(t, got).body, &body); err != nil || len(body.Messages) != 2 {
				t.Fatalf("request: %v", err)
			}
			if sys := body.Messages[0].Content; !strings.Contains(sys, "State each of these facts, with its number: 6 open critical alerts. Never write that all is clear") ||
				strings.Contains(sys, "high-severity") {
				t.Errorf("the system prompt does not name the headline facts (and only those above 0):\n%s", sys)
			}
		})
	}
}
