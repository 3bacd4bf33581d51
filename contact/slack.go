package contact

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Slack's limits (api.slack.com/reference/block-kit): a header's text is
// at most 150 characters and a button's URL 3000; a section's text 3000
// and a field 2000. Escaping may make text five times as long ("&" is
// "&amp;"), so raw text is cut well below them first.
const (
	slackHeader = 150
	slackButton = 3000
	slackField  = 300 // 1500 escaped
	slackText   = 500 // 2500 escaped: the recommended action's section
	slackShort  = 200 // the second line of a group's alert, under its title
)

type slackMessage struct {
	Text   string           `json:"text"` // complete alone: Mattermost and notifications read only this
	Blocks []map[string]any `json:"blocks"`
}

// slackBody is a Slack incoming-webhook message: a fallback text that
// says everything, and blocks that lay the same out.
func slackBody(m Message) slackMessage {
	title := m.Title()
	blocks := []map[string]any{{"type": "header", "text": plain(cut(title, slackHeader))}}
	var text strings.Builder
	text.WriteString(slackEscape(title))
	switch {
	case m.Event == Test:
		s := "Alert notifications for " + slackEscape(line(m.OrgName, slackField)) + " will arrive here like this one."
		text.WriteString("\n" + s)
		blocks = append(blocks, map[string]any{"type": "section", "text": mrkdwn(s)})
	case m.count() > 1 || len(m.Alerts) != 1:
		blocks = slackGroup(m, blocks, &text)
	default:
		blocks = slackSingle(m, m.Alerts[0], blocks, &text)
	}
	return slackMessage{Text: text.String(), Blocks: blocks}
}

func slackSingle(m Message, a Alert, blocks []map[string]any, text *strings.Builder) []map[string]any {
	var fields []map[string]any
	add := func(name, value string) {
		if value = slackEscape(line(value, slackField)); value != "" {
			fields = append(fields, mrkdwn("*"+name+"*\n"+value))
			fmt.Fprintf(text, "\n%s: %s", name, value)
		}
	}
	add("Severity", strings.ToUpper(a.Severity))
	add("Asset", a.Asset)
	add("Category", a.Category)
	add("Events", eventsSince(a))
	add("Indicator", a.Indicator)
	add("Organization", orgName(m))
	add("Rule", m.Rule)
	if len(fields) > 0 { // a section needs text or fields
		blocks = append(blocks, map[string]any{"type": "section", "fields": fields})
	}
	if act := slackEscape(line(a.RecommendedAction, slackText)); act != "" {
		blocks = append(blocks, map[string]any{"type": "section", "text": mrkdwn("*Do first:* " + act)})
		text.WriteString("\nDo first: " + act)
	}
	if button, ok := slackLink(a.Link); ok {
		blocks = append(blocks, map[string]any{"type": "actions", "elements": []any{button}})
		text.WriteString("\nOpen: " + slackURL.Replace(a.Link))
	}
	return blocks
}

func slackGroup(m Message, blocks []map[string]any, text *strings.Builder) []map[string]any {
	intro := fmt.Sprintf("%d alerts in *%s*", m.count(), slackEscape(line(orgName(m), slackField)))
	if m.Rule != "" {
		intro += " matched the rule *" + slackEscape(line(m.Rule, slackField)) + "*"
	}
	blocks = append(blocks, map[string]any{"type": "section", "text": mrkdwn(intro)})
	text.WriteString("\n" + intro)
	for _, a := range m.Alerts {
		s := fmt.Sprintf("*[%s]* %s\n%s", slackEscape(line(strings.ToUpper(a.Severity), 20)),
			slackEscape(line(alertLine(a), slackField)), slackEscape(line(a.Category+" · "+eventsSince(a), slackShort)))
		block := map[string]any{"type": "section", "text": mrkdwn(s)}
		text.WriteString("\n• " + strings.ReplaceAll(s, "\n", " · "))
		if button, ok := slackLink(a.Link); ok {
			block["accessory"] = button
			text.WriteString(" " + slackURL.Replace(a.Link))
		}
		blocks = append(blocks, block)
	}
	if more := m.count() - len(m.Alerts); more > 0 && len(m.Alerts) > 0 {
		s := fmt.Sprintf("and %d more not listed here", more)
		blocks = append(blocks, map[string]any{"type": "context", "elements": []any{mrkdwn(s)}})
		text.WriteString("\n" + s)
	}
	return blocks
}

// slackLink is a button opening the alert, when its link is one Slack
// takes: a block Slack refuses loses the whole message.
func slackLink(link string) (map[string]any, bool) {
	if link == "" || len(link) > slackButton || CheckURL(link) != "" {
		return nil, false
	}
	return map[string]any{"type": "button", "text": plain("Open in Garrison"), "url": link}, true
}

// slackURL escapes our own link for Slack's text, where it stays a link.
var slackURL = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func plain(s string) map[string]any {
	return map[string]any{"type": "plain_text", "text": s}
}

// mrkdwn is formatted text Slack shows verbatim: no automatic links,
// channel names or mentions from what it holds.
func mrkdwn(s string) map[string]any {
	return map[string]any{"type": "mrkdwn", "text": s, "verbatim": true}
}

// slackEscape makes outside text inert in Slack and its look-alikes:
// &, < and > as Slack asks (so no <!channel>, <@U…> or <url|text>); a
// zero-width space after an @ that starts a word, which Mattermost and
// Rocket.Chat would read as a mention; and between "]" and "(", which
// they would read as a Markdown link or image.
func slackEscape(s string) string {
	var b strings.Builder
	prev := ' '
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '@' && !isWord(prev):
			b.WriteString("@\u200b")
		case r == '(' && prev == ']':
			b.WriteString("\u200b(")
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

func isWord(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '-')
}
