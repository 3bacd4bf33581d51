package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func TestNarrate(t *testing.T) {
	facts := map[string]any{
		"domain":     "example.com",
		"open_ports": []int{22, 443},
		"events":     1234,
		"score":      7.5,
		"first_seen": "2026-11-21",
		"cves":       []string{"CVE-2024-3094"},
		"note":       "<b>&</b>",
	}
	cases := []struct {
		name      string
		answer    string
		invented  bool     // want an error wrapping ErrInvented
		otherErr  bool     // want an error that is not ErrInvented
		mentioned []string // substrings the error must have
	}{
		{name: "all numbers from the facts", answer: "example.com logged 1,234 events, scored 7.5 and exposes ports 22 and 443; it was first seen on 2026-11-21 and is affected by CVE-2024-3094."},
		{name: "date parts and spelt-out month", answer: "It was first seen on 21 November 2026, with 1234 events."},
		{name: "trailing decimal zero", answer: "The score was 7.50 out of ten."},
		{name: "no numbers at all", answer: "The domain looks healthy."},
		{name: "lower-case CVE id from the facts", answer: "It is affected by cve-2024-3094."},
		{name: "invented count", answer: "example.com logged 1,235 events.", invented: true, mentioned: []string{`"1,235"`}},
		{name: "invented port", answer: "Ports 22, 443 and 8443 are open.", invented: true, mentioned: []string{`"8443"`}},
		{name: "rounded score", answer: "It scored 7.4.", invented: true, mentioned: []string{`"7.4"`}},
		{name: "invented CVE id", answer: "It is also exposed to CVE-2023-44487.", invented: true, mentioned: []string{"CVE-2023-44487"}},
		{name: "invented CVE id with typeset hyphens", answer: "It is exposed to CVE\u20112024\u20113094 and CVE\u20112021\u201144228.", invented: true, mentioned: []string{"44228"}},
		{name: "HTML escape digits are not facts", answer: "The note mentions 3 and 26.", invented: true},
		{name: "too long", answer: strings.Repeat("word ", 900), otherErr: true, mentioned: []string{"4000"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, got := fake(t, http.StatusOK, reply(tc.answer))
			c := New(Config{URL: srv.URL + "/v1", Model: "m", HTTP: srv.Client()})
			out, err := c.Narrate(context.Background(), "a threat research report on example.com", facts)

			switch {
			case tc.invented && !errors.Is(err, ErrInvented):
				t.Fatalf("Narrate = %q, %v; want ErrInvented", out, err)
			case tc.otherErr && (err == nil || errors.Is(err, ErrInvented)):
				t.Fatalf("Narrate = %q, %v; want an error other than ErrInvented", out, err)
			case !tc.invented && !tc.otherErr && err != nil:
				t.Fatalf("Narrate: %v", err)
			case err == nil && out != strings.TrimSpace(tc.answer):
				t.Errorf("Narrate = %q, want %q", out, tc.answer)
			}
			for _, s := range tc.mentioned {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %s", err, s)
				}
			}

			// The prompt: task and rules in the system message, facts
			// as indented JSON in the user message.
			var body struct{ Messages []Message }
			if err := json.Unmarshal(receive(t, got).body, &body); err != nil || len(body.Messages) != 2 {
				t.Fatalf("request messages = %+v (%v), want system and user", body.Messages, err)
			}
			sys, user := body.Messages[0], body.Messages[1]
			if sys.Role != "system" || user.Role != "user" {
				t.Errorf("roles = %q, %q", sys.Role, user.Role)
			}
			for _, s := range []string{"a threat research report on example.com", "MSP engineer", "120 words", "only the facts", "CVE ids", "markdown"} {
				if !strings.Contains(sys.Content, s) {
					t.Errorf("system prompt lacks %q:\n%s", s, sys.Content)
				}
			}
			if !strings.Contains(user.Content, "\n  \"domain\": \"example.com\"") || !strings.Contains(user.Content, "<b>&</b>") {
				t.Errorf("user message is not the facts as indented JSON:\n%s", user.Content)
			}
		})
	}
}

func TestCheckAnswer(t *testing.T) {
	facts := []byte(`{"tiny": 1e-7, "big": 12345678901234567890, "ip": "10.0.0.1", "version": "1.2.3", "time": "09:05"}`)
	cases := []struct {
		answer string
		ok     bool
	}{
		{"A value of 0.0000001 was seen.", true},
		{"A count of 12,345,678,901,234,567,890.", true},
		{"The host 10.0.0.1 runs 1.2.3.", true},
		{"It happened at 9:05.", true},
		{"The host 10.0.0.2 is down.", false},
		{"It runs 1.3.", false},
		{"", false},
		{"bad \xff byte", false},
	}
	for _, tc := range cases {
		err := checkAnswer(tc.answer, facts)
		if (err == nil) != tc.ok {
			t.Errorf("checkAnswer(%q) = %v, want ok %v", tc.answer, err, tc.ok)
		}
	}
}

func TestNumbers(t *testing.T) {
	cases := map[string][]string{
		"1,234 and 1,234.50":     {"1234", "1234.5"},
		"ports 80,443":           {"80443"},
		"1234,567":               {"1234", "567"},
		"1,2345":                 {"1", "2345"},
		"2026-11-05T00:00:00Z":   {"2026", "11", "5", "0", "0", "0"},
		"v1.2.3, end.":           {"1.2", "3"},
		"-007 and 0.50 and 3.0%": {"7", "0.5", "3"},
	}
	for in, want := range cases {
		var got []string
		for _, tok := range numbers(in) {
			got = append(got, tok.norm)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("numbers(%q) = %v, want %v", in, got, want)
		}
	}
}
