package contact

import (
	"fmt"
	"strings"
)

// A Teams workflow webhook ("post to a channel when a webhook request is
// received") takes a message whose one attachment is an Adaptive Card.
type teamsMessage struct {
	Type        string            `json:"type"`
	Attachments []teamsAttachment `json:"attachments"`
}

type teamsAttachment struct {
	ContentType string    `json:"contentType"`
	ContentURL  *string   `json:"contentUrl"` // null, as the workflow's schema expects
	Content     teamsCard `json:"content"`
}

type teamsCard struct {
	Schema  string           `json:"$schema"`
	Type    string           `json:"type"`
	Version string           `json:"version"`
	Body    []map[string]any `json:"body"`
	Actions []map[string]any `json:"actions"`
	MSTeams map[string]any   `json:"msteams"`
}

type teamsFact struct {
	Title string `json:"title"`
	Value string `json:"value"`
}

func teamsBody(m Message) teamsMessage {
	title := map[string]any{"type": "TextBlock", "text": teamsEscape(m.Title()), "weight": "Bolder", "size": "Medium", "wrap": true}
	if sev := m.severity(); m.Event != Test && (sev == "critical" || sev == "high") {
		title["color"] = "Attention"
	}
	card := teamsCard{
		Schema:  "http://adaptivecards.io/schemas/adaptive-card.json",
		Type:    "AdaptiveCard",
		Version: "1.4",
		Body:    []map[string]any{title},
		Actions: []map[string]any{},
		MSTeams: map[string]any{"width": "Full"},
	}
	facts := []teamsFact{}
	var after []map[string]any // below the facts
	add := func(name, value string, n int) {
		if value = teamsEscape(line(value, n)); value != "" {
			facts = append(facts, teamsFact{Title: name, Value: value})
		}
	}
	switch {
	case m.Event == Test:
		card.Body = append(card.Body, textBlock("Alert notifications for this contact point will arrive here like this one."))
		add("Organization", orgName(m), maxField)
	case m.count() > 1 || len(m.Alerts) != 1:
		intro := fmt.Sprintf("%d alerts", m.count())
		if m.Rule != "" {
			intro += " matched the rule " + teamsEscape(line(m.Rule, maxField))
		}
		card.Body = append(card.Body, textBlock(intro))
		add("Organization", orgName(m), maxField)
		for _, a := range m.Alerts {
			facts = append(facts, teamsFact{Title: teamsEscape(line(strings.ToUpper(a.Severity), 20)),
				Value: teamsEscape(line(alertLine(a)+" · "+a.Category+" · "+eventsSince(a), maxTitle))})
		}
		if more := m.count() - len(m.Alerts); more > 0 && len(m.Alerts) > 0 {
			after = append(after, textBlock(fmt.Sprintf("and %d more not listed here", more)))
		}
	default:
		a := m.Alerts[0]
		add("Severity", strings.ToUpper(a.Severity), maxField)
		add("Asset", a.Asset, maxField)
		add("Category", a.Category, maxField)
		add("Events", eventsSince(a), maxField)
		add("Indicator", a.Indicator, maxField)
		add("Do first", a.RecommendedAction, maxAction)
		add("Organization", orgName(m), maxField)
		add("Rule", m.Rule, maxField)
		if a.Link != "" && len(a.Link) <= maxLink && CheckURL(a.Link) == "" {
			card.Actions = append(card.Actions, map[string]any{"type": "Action.OpenUrl", "title": "Open in Garrison", "url": a.Link})
		}
	}
	card.Body = append(card.Body, map[string]any{"type": "FactSet", "facts": facts})
	card.Body = append(card.Body, after...)
	return teamsMessage{
		Type: "message",
		Attachments: []teamsAttachment{{
			ContentType: "application/vnd.microsoft.card.adaptive",
			Content:     card,
		}},
	}
}

func textBlock(s string) map[string]any {
	return map[string]any{"type": "TextBlock", "text": s, "wrap": true}
}

// teamsMarkdown escapes what Adaptive Cards' Markdown reads as emphasis
// or a link, so outside text shows as written and cannot add a link. A
// bracket alone stays as it is: "[CRITICAL]" is no link, "[x](url)" is.
var teamsMarkdown = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `_`, `\_`, "](", `\](`)

func teamsEscape(s string) string { return teamsMarkdown.Replace(s) }
