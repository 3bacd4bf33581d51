package alerting

import (
	"strings"

	"garrison/event"
)

// Rule is the detection rule an alert was opened by (a Sigma rule): what
// it is, who wrote it and where it is published. The Detection Rule
// License of SigmaHQ's rules asks every message based on a match to keep
// the rule's author, so an alert carries them all.
type Rule struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Author string   `json:"author"`
	Level  string   `json:"level"`
	Link   string   `json:"link"`
	Tags   []string `json:"tags"` // ATT&CK tactics and techniques as the rule names them (attack.t1059.001)
	// FalsePositives are the rule's own words on what else fires it,
	// for the recommended action (not stored with the alert).
	FalsePositives []string `json:"-"`
}

// RuleSeverity is the severity of an alert a rule of the Sigma level opens.
func RuleSeverity(level string) event.Severity {
	switch level {
	case "critical":
		return event.Critical
	case "high":
		return event.High
	case "medium":
		return event.Medium
	case "low":
		return event.Low
	}
	return event.Info
}

// Matched returns the alert an event raises or joins for a rule it fired:
// one open alert per rule and asset, at the rule's level, or the event's
// own severity when that is higher (an informational rule must not hide a
// critical event).
func Matched(e Event, r *Rule) Spec {
	category := ruleCategory(r.Tags)
	action := "Review what \"" + r.Title + "\" describes on " + e.Asset + ": open the event, confirm who ran it and why, " +
		"and isolate " + e.Asset + " if nobody can account for it."
	if len(r.FalsePositives) > 0 {
		action += " The rule's author notes it may also fire on: " + strings.Join(r.FalsePositives, "; ") + "."
	}
	return Spec{
		Fingerprint:       fingerprint("rule", r.ID, e.Asset),
		Severity:          max(RuleSeverity(r.Level), e.Severity),
		Category:          category,
		Title:             oneLine(r.Title, 200),
		Asset:             e.Asset,
		Indicator:         e.Indicator,
		RecommendedAction: oneLine(action, 2000),
		Rule:              r,
	}
}

// Strongest is the rule of several an event fired whose alert it joins:
// the highest level, the first given of equals.
func Strongest(rules []*Rule) *Rule {
	var top *Rule
	for _, r := range rules {
		if top == nil || RuleSeverity(r.Level) > RuleSeverity(top.Level) {
			top = r
		}
	}
	return top
}

// ruleCategory is the alert category of a rule's ATT&CK tactics.
func ruleCategory(tags []string) string {
	for _, t := range tags {
		switch t {
		case "attack.command-and-control", "attack.command_and_control":
			return event.CategoryMalware
		}
	}
	for _, t := range tags {
		switch t {
		case "attack.discovery", "attack.reconnaissance":
			return event.CategoryReconnaissance
		}
	}
	return event.CategoryIntrusion
}
