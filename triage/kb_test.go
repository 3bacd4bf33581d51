package triage

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

var slug = regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)

func TestKnowledgeBaseArticles(t *testing.T) {
	arts := KnowledgeBase()
	seen := map[string]bool{}
	for _, a := range arts {
		if !slug.MatchString(a.Category) {
			t.Errorf("%q: category is not a slug", a.Category)
		}
		if seen[a.Category] {
			t.Errorf("%q: duplicate category", a.Category)
		}
		seen[a.Category] = true
		if a.Title == "" {
			t.Errorf("%s: no title", a.Category)
		}
		if !slices.Contains(levels, a.Priority) {
			t.Errorf("%s: invalid priority %q", a.Category, a.Priority)
		}
		if n := len(a.Steps); n < 5 || n > 8 {
			t.Errorf("%s: %d steps, want 5–8", a.Category, n)
		}
		for i, s := range a.Steps {
			if len(s) < 30 || !strings.HasSuffix(s, ".") {
				t.Errorf("%s step %d is not a full sentence: %q", a.Category, i+1, s)
			}
		}
		if a.Category != generalCategory && len(a.match) == 0 {
			t.Errorf("%s: no phrases", a.Category)
		}
		if len(a.critical) > 0 && a.criticalWhy == "" {
			t.Errorf("%s: critical phrases without criticalWhy", a.Category)
		}
	}
	required := []string{
		"account_lockout", "password_reset", "mfa", "phishing_report", "malware_alert",
		"ransomware", "vpn", "email_delivery", "printer", "backup_failure", "slow_computer",
		"network_outage", "software_install", "disk_space", "user_onboarding",
		"user_offboarding", "hardware_failure", generalCategory,
	}
	for _, c := range required {
		if !seen[c] {
			t.Errorf("category %s missing", c)
		}
	}
	if last := arts[len(arts)-1]; last.Category != generalCategory || len(last.match) != 0 {
		t.Errorf("general must be last and match nothing, got %s with %d phrases", last.Category, len(last.match))
	}
	if p := byCategory(t, "ransomware").Priority; p != PriorityHigh {
		t.Errorf("ransomware base priority %s, want high", p)
	}
	if p := byCategory(t, "malware_alert").Priority; p != PriorityHigh {
		t.Errorf("malware_alert base priority %s, want high", p)
	}
}

// Each phrase must survive normalisation and appear once per article, or
// its weight would silently count twice or never.
func TestPhrases(t *testing.T) {
	for _, a := range kb {
		dup := map[string]string{}
		for _, tm := range slices.Concat(a.match, a.critical) {
			if len(tm.tokens) == 0 || tm.weight <= 0 {
				t.Errorf("%s: phrase %q has no words or no weight", a.Category, tm.phrase)
				continue
			}
			key := strings.Join(tm.tokens, " ")
			if prev, ok := dup[key]; ok {
				t.Errorf("%s: %q and %q normalise to the same words %q", a.Category, prev, tm.phrase, key)
			}
			dup[key] = tm.phrase
		}
	}
	for _, tm := range urgency {
		if len(tm.tokens) == 0 {
			t.Errorf("urgency phrase %q has no words", tm.phrase)
		}
	}
}

func byCategory(t *testing.T, c string) Article {
	t.Helper()
	for _, a := range KnowledgeBase() {
		if a.Category == c {
			return a
		}
	}
	t.Fatalf("no article %s", c)
	return Article{}
}
