package contact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// huge is a message whose every text field is far beyond any bound.
func huge(n int) Message {
	big := strings.Repeat("&<é", 20_000)
	m := Message{ID: "alert:1", Event: Trigger, OrgID: big, OrgName: big, Provider: big, Rule: big, DedupKey: "alt_1", Count: n}
	for range n {
		m.Alerts = append(m.Alerts, Alert{ID: big, Title: big, Severity: big, Category: big, Asset: big, Indicator: big,
			RecommendedAction: big, Events: 1, FirstSeen: seen, Link: "https://garrison.example/alerts/" + big})
	}
	return m
}

// strs calls f on every string in a decoded JSON value.
func strs(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			strs(e, f)
		}
	case map[string]any:
		for _, e := range v {
			strs(e, f)
		}
	}
}

func TestEveryFieldIsBounded(t *testing.T) {
	for _, kind := range []string{Webhook, Slack, Teams, PagerDuty} {
		for _, n := range []int{1, 20} {
			ep := Endpoint{Kind: kind, Secret: NewSecret(), RoutingKey: "R0UT1NGKEY0000000000000000000000"}
			body, _, err := Payload(ep, huge(n), seen)
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			if !utf8.Valid(body) {
				t.Fatalf("%s: payload is not UTF-8", kind)
			}
			if len(body) > maxBody[kind] {
				t.Fatalf("%s with %d alerts: %d bytes, over the receiver's %d", kind, n, len(body), maxBody[kind])
			}
			limit := 6 * maxAction // an escaped action, the longest field
			if kind == Slack || kind == Teams {
				limit = 60_000 // the fallback text and the card hold every listed alert
			}
			strs(decode(t, body), func(s string) {
				if utf8.RuneCountInString(s) > limit {
					t.Fatalf("%s with %d alerts: a string of %d runes", kind, n, utf8.RuneCountInString(s))
				}
			})
			if kind == PagerDuty {
				if summary := obj(decode(t, body)["payload"])["summary"].(string); utf8.RuneCountInString(summary) > maxSummary {
					t.Fatalf("summary of %d runes", utf8.RuneCountInString(summary))
				}
			}
		}
	}
}

// TestSlackLimits keeps every block within what Slack accepts: it
// refuses a whole message for one block over a limit.
func TestOversizedGroupListsFewer(t *testing.T) {
	m := huge(20)
	wide := strings.Repeat("😀", 2000) // four bytes a rune
	for i := range m.Alerts {
		a := &m.Alerts[i]
		a.Title, a.Asset, a.Category, a.Indicator, a.RecommendedAction = wide, wide, wide, wide, wide
	}
	body, header, err := Payload(Endpoint{Kind: Webhook, Secret: specSecret}, m, seen)
	if err != nil {
		t.Fatal(err)
	}
	data := obj(decode(t, body)["data"])
	if n := len(arr(data["alerts"])); len(body) > maxBody[Webhook] || n >= 20 || n < 2 || data["count"] != 20.0 {
		t.Fatalf("%d bytes listing %d alerts, count %v", len(body), n, data["count"])
	}
	if err := Verify(specSecret, header, body, seen); err != nil {
		t.Fatalf("the signature is not over the body sent: %v", err)
	}
}

func TestSlackLimits(t *testing.T) {
	for _, n := range []int{1, 20} {
		body, _, err := Payload(Endpoint{Kind: Slack}, huge(n), seen)
		if err != nil {
			t.Fatal(err)
		}
		blocks := arr(decode(t, body)["blocks"])
		if len(blocks) > 50 {
			t.Fatalf("%d blocks", len(blocks))
		}
		for _, b := range blocks {
			b := obj(b)
			switch b["type"] {
			case "header":
				if s := obj(b["text"])["text"].(string); utf8.RuneCountInString(s) > slackHeader || s == "" {
					t.Fatalf("header of %d", utf8.RuneCountInString(s))
				}
			case "section":
				if text := obj(b["text"]); text != nil && utf8.RuneCountInString(text["text"].(string)) > 3000 {
					t.Fatalf("section text of %d", utf8.RuneCountInString(text["text"].(string)))
				}
				fields := arr(b["fields"])
				if len(fields) > 10 {
					t.Fatalf("%d fields", len(fields))
				}
				for _, f := range fields {
					if s := obj(f)["text"].(string); utf8.RuneCountInString(s) > 2000 || s == "" {
						t.Fatalf("field of %d", utf8.RuneCountInString(s))
					}
				}
			}
		}
	}
}

func TestGroupMessages(t *testing.T) {
	a, b := sample().Alerts[0], sample().Alerts[0]
	b.ID, b.Severity, b.Title, b.Link = "alt_2", "medium", "Odd DNS", "javascript:alert(1)"
	m := Message{ID: "group:1", Event: Trigger, OrgName: "Dental One", Rule: "Night shift", Alerts: []Alert{a, b}, Count: 7}

	body, _, err := Payload(Endpoint{Kind: Slack}, m, seen)
	if err != nil {
		t.Fatal(err)
	}
	slack := decode(t, body)
	text := slack["text"].(string)
	for _, want := range []string{"[CRITICAL] Dental One: 7 alerts (rule Night shift)", "7 alerts in *Dental One* matched the rule *Night shift*",
		"*[MEDIUM]* Odd DNS on ws-12", "and 5 more not listed here", "https://garrison.example/alerts/alt_1"} {
		if !strings.Contains(text, want) {
			t.Errorf("slack text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(string(body), "javascript:") {
		t.Errorf("a link that is no http(s) URL was sent: %s", body)
	}
	blocks := arr(slack["blocks"])
	if len(blocks) != 5 || obj(obj(blocks[2])["accessory"])["url"] != a.Link || obj(blocks[3])["accessory"] != nil || obj(blocks[4])["type"] != "context" {
		t.Fatalf("slack blocks %v", blocks)
	}

	body, _, err = Payload(Endpoint{Kind: Teams}, m, seen)
	if err != nil {
		t.Fatal(err)
	}
	card := obj(obj(arr(decode(t, body)["attachments"])[0])["content"])
	cardBody := arr(card["body"])
	facts := arr(obj(cardBody[2])["facts"])
	if len(cardBody) != 4 || len(facts) != 3 || obj(facts[2])["title"] != "MEDIUM" || len(arr(card["actions"])) != 0 ||
		obj(cardBody[3])["text"] != "and 5 more not listed here" || obj(cardBody[0])["color"] != "Attention" {
		t.Fatalf("teams card %v", card)
	}
}

func TestTestMessages(t *testing.T) {
	m := Message{ID: "test:tst_1", Event: Test, OrgID: "org_1", OrgName: "Dental One", DedupKey: "test:tst_1"}
	for _, kind := range []string{Webhook, Slack, Teams, PagerDuty} {
		body, _, err := Payload(Endpoint{Kind: kind, Secret: NewSecret(), RoutingKey: "R0UT1NGKEY0000000000000000000000"}, m, seen)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if kind != Webhook && !strings.Contains(string(body), "Test from Garrison") {
			t.Errorf("%s test: %s", kind, body)
		}
	}
}

func TestWebhookHeaders(t *testing.T) {
	secret := NewSecret()
	body, header, err := Payload(Endpoint{Kind: Webhook, Secret: secret}, sample(), seen)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(secret, header, body, seen); err != nil {
		t.Fatalf("own payload: %v", err)
	}
	if _, _, err := Payload(Endpoint{Kind: Webhook, Secret: secret}, Message{Event: Trigger}, seen); err == nil {
		t.Fatal("a webhook without an id was built")
	}
	for _, kind := range []string{Slack, Teams, PagerDuty} {
		_, h, err := Payload(Endpoint{Kind: kind, RoutingKey: "k"}, sample(), seen)
		if err != nil || h.Get("Content-Type") != "application/json" || h.Get("webhook-signature") != "" {
			t.Fatalf("%s headers %v, %v", kind, h, err)
		}
	}
}
