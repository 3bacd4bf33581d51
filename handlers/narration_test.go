package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestNarrationCannotHideAHeadline: with a model configured, "All clear,
// nothing to do" while 6 critical alerts are open does not replace the
// daily summary or an agent's summary; a phrasing that leaves them out is
// refused too; one that states them is used.
func TestNarrationCannotHideAHeadline(t *testing.T) {
	model := newFakeLLM(t, "All clear, nothing to do.")
	e := newEnv(t, withLLM(model, time.Minute))
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	at := e.Clock.Now().Add(-time.Hour).Format(time.RFC3339)
	var events []map[string]any
	for _, asset := range []string{"ws-01", "ws-02", "ws-03", "ws-04", "ws-05", "ws-06"} {
		events = append(events, map[string]any{"type": "threat_detected", "severity": "critical", "timestamp": at, "source": "suricata",
			"asset": asset, "message": "ET MALWARE ransomware beacon", "indicator": "evil.test"})
	}
	e.ingest(key, events...).Must(t, http.StatusCreated)
	answer := func(text string) {
		model.mu.Lock()
		model.answer = text
		model.mu.Unlock()
	}
	const plain = "6 high or critical alerts are still open and need attention."

	for _, tc := range []struct{ name, answer, reason string }{
		{"contradiction", "All clear, nothing to do.", `it says "all clear" while there are 6 open critical alerts`},
		{"omission", "6 alerts were raised about evil.test.", "it leaves out the 6 open critical alerts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer(tc.answer)
			sum := e.Do("GET", "/api/dashboard/daily-summary", admin.Token, nil).Must(t, http.StatusOK).Get("data")
			if sum.Get("generated_by").Str() != "facts" || !strings.HasSuffix(sum.Get("summary").Str(), plain) ||
				!strings.Contains(sum.Get("narration_error").Str(), tc.reason) {
				t.Fatalf("daily summary: %v", sum)
			}
			run := e.runToEnd(admin.Token, "account-manager", nil)
			if n := run.Get("output", "narrative"); n.Get("source").Str() != "deterministic" || !strings.Contains(n.Get("fallback_reason").Str(), tc.reason) ||
				!strings.Contains(run.Get("output_summary").Str(), "(6 critical)") {
				t.Fatalf("account manager: %v", run)
			}
		})
	}
	t.Run("a narrative that states them", func(t *testing.T) {
		good := "Six critical alerts about evil.test are still open and need attention now."
		answer(good)
		sum := e.Do("GET", "/api/dashboard/daily-summary", admin.Token, nil).Must(t, http.StatusOK).Get("data")
		if sum.Get("generated_by").Str() != "llm:test-model" || sum.Get("summary").Str() != good || !strings.HasSuffix(sum.Get("facts_summary").Str(), plain) {
			t.Fatalf("daily summary: %v", sum)
		}
		run := e.runToEnd(admin.Token, "account-manager", nil)
		if run.Get("output", "narrative", "source").Str() != "llm" || run.Get("output_summary").Str() != good {
			t.Fatalf("account manager: %v", run)
		}
	})
}
