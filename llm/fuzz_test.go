package llm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzCheckAnswer: any model answer is judged without panicking, and an
// answer that only repeats the facts is never called invented.
func FuzzCheckAnswer(f *testing.F) {
	f.Add("There were 1,234 events on 2026-11-21.", `{"events":1234,"day":"2026-11-21"}`)
	f.Add("CVE-2021-44228 was seen 3 times.", `{"cve":"CVE-2021-44228","n":3}`)
	f.Add("7.50 percent", `{"p":7.5}`)
	f.Fuzz(func(t *testing.T, answer, facts string) {
		if !json.Valid([]byte(facts)) {
			return
		}
		checkAnswer(answer, []byte(facts))
		var decoded any
		if json.Unmarshal([]byte(facts), &decoded) != nil {
			return
		}
		if s, ok := decoded.(string); ok && strings.TrimSpace(s) != "" && len(s) <= maxAnswer {
			if err := checkAnswer(s, []byte(facts)); errors.Is(err, ErrInvented) {
				t.Fatalf("the facts themselves called invented: %q: %v", s, err)
			}
		}
	})
}
