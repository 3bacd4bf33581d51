package contact

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, body)
	}
	return m
}

// keys are an object's member names, sorted.
func keys(v any) []string {
	m, _ := v.(map[string]any)
	return slices.Sorted(maps.Keys(m))
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }

func wantKeys(t *testing.T, what string, v any, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := keys(v); !slices.Equal(got, want) {
		t.Fatalf("%s has keys %v, want %v", what, got, want)
	}
}

func TestWebhookReceiver(t *testing.T) {
	secret := NewSecret()
	rc := newReceiver(t, 204, nil, "")
	verified := make(chan error, 1)
	rc.check = func(r received) { verified <- Verify(secret, r.Header, r.Body, time.Now()) }
	m, now := sample(), time.Now()

	res := rc.sender().Send(context.Background(), Endpoint{Kind: Webhook, URL: rc.srv.URL + "/in", Secret: secret}, m, now)
	if !res.OK() || res.Err != nil || res.Status != 204 {
		t.Fatalf("result %+v", res)
	}
	if err := <-verified; err != nil {
		t.Fatalf("the receiver's Verify: %v", err)
	}
	r := rc.only(t)
	for k, want := range map[string]string{"Content-Type": "application/json", "User-Agent": "Garrison-Notifier/1",
		"webhook-id": m.ID, "webhook-timestamp": strconv.FormatInt(now.Unix(), 10)} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if !strings.HasPrefix(r.Header.Get("webhook-signature"), "v1,") {
		t.Errorf("webhook-signature %q", r.Header.Get("webhook-signature"))
	}

	body := decode(t, r.Body)
	wantKeys(t, "envelope", body, "type", "timestamp", "data")
	if body["type"] != "alert.trigger" || body["timestamp"] != now.UTC().Format(time.RFC3339) {
		t.Fatalf("envelope %v", body)
	}
	data := obj(body["data"])
	wantKeys(t, "data", data, "id", "org", "provider", "rule", "count", "escalation", "alerts")
	if data["id"] != m.ID || data["provider"] != "Acme MSP" || data["rule"] != "Critical" || data["count"] != 1.0 || data["escalation"] != 0.0 {
		t.Fatalf("data %v", data)
	}
	if org := obj(data["org"]); org["id"] != "org_1" || org["name"] != "Dental One" || len(org) != 2 {
		t.Fatalf("org %v", org)
	}
	alerts := arr(data["alerts"])
	if len(alerts) != 1 {
		t.Fatalf("alerts %v", alerts)
	}
	a := obj(alerts[0])
	wantKeys(t, "alert", a, "id", "title", "severity", "category", "asset", "indicator", "recommended_action", "events", "first_seen", "link")
	want := map[string]any{"id": "alt_1", "title": m.Alerts[0].Title, "severity": "critical", "category": "malware", "asset": "ws-12",
		"indicator": "203.0.113.9", "recommended_action": "Isolate ws-12 from the network", "events": 3.0,
		"first_seen": "2026-03-02T23:14:05Z", "link": "https://garrison.example/alerts/alt_1"}
	if !maps.Equal(a, want) {
		t.Fatalf("alert\n got %v\nwant %v", a, want)
	}
}

func TestWebhookEventTypes(t *testing.T) {
	secret := NewSecret()
	for ev, typ := range map[string]string{Trigger: "alert.trigger", Resolve: "alert.resolve", Acknowledge: "alert.acknowledge",
		Escalate: "alert.escalate", Test: "test"} {
		m := sample()
		m.Event = ev
		if ev == Test {
			m = Message{ID: "test:tst_1", Event: Test, OrgID: "org_1", OrgName: "Dental One", DedupKey: "test:tst_1"}
		}
		body, _, err := Payload(Endpoint{Kind: Webhook, Secret: secret}, m, seen)
		if err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
		got := decode(t, body)
		if got["type"] != typ {
			t.Errorf("%s: type %v, want %s", ev, got["type"], typ)
		}
		if alerts, ok := obj(got["data"])["alerts"].([]any); !ok || (ev == Test) != (len(alerts) == 0) {
			t.Errorf("%s: alerts %v", ev, obj(got["data"])["alerts"])
		}
	}
}

func TestSlackReceiver(t *testing.T) {
	rc := newReceiver(t, 200, nil, "ok")
	m := sample()
	res := rc.sender().Send(context.Background(), Endpoint{Kind: Slack, URL: rc.srv.URL + "/services/T0/B0/x"}, m, time.Now())
	if !res.OK() || res.Body != "ok" {
		t.Fatalf("result %+v", res)
	}
	r := rc.only(t)
	if r.Path != "/services/T0/B0/x" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("request %s %v", r.Path, r.Header)
	}
	body := decode(t, r.Body)
	wantKeys(t, "message", body, "text", "blocks")
	text := body["text"].(string)
	for _, want := range []string{
		"[CRITICAL] Dental One: Ransomware beacon &lt;b&gt;&amp;&lt;/b&gt; @\u200bhere [x]\u200b(http://evil.test) *bold* on ws-12",
		"Asset: ws-12", "Category: malware", "Events: 3 events since 2026-03-02T23:14:05Z", "Indicator: 203.0.113.9",
		"Organization: Dental One (client of Acme MSP)", "Rule: Critical",
		"Do first: Isolate ws-12 from the network", "Open: https://garrison.example/alerts/alt_1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.ContainsAny(strings.ReplaceAll(text, "https://garrison.example/alerts/alt_1", ""), "<>") {
		t.Errorf("text holds markup: %s", text)
	}

	blocks := arr(body["blocks"])
	var types []string
	for _, b := range blocks {
		types = append(types, obj(b)["type"].(string))
	}
	if !slices.Equal(types, []string{"header", "section", "section", "actions"}) {
		t.Fatalf("blocks %v", types)
	}
	header := obj(obj(blocks[0])["text"])
	if header["type"] != "plain_text" || !strings.HasPrefix(header["text"].(string), "[CRITICAL] Dental One: Ransomware beacon <b>") {
		t.Fatalf("header %v", header)
	}
	var fields []string
	for _, f := range arr(obj(blocks[1])["fields"]) {
		f := obj(f)
		if f["type"] != "mrkdwn" || f["verbatim"] != true {
			t.Fatalf("field %v", f)
		}
		fields = append(fields, f["text"].(string))
	}
	if !slices.Contains(fields, "*Severity*\nCRITICAL") || !slices.Contains(fields, "*Asset*\nws-12") || !slices.Contains(fields, "*Events*\n3 events since 2026-03-02T23:14:05Z") {
		t.Fatalf("fields %q", fields)
	}
	button := obj(arr(obj(blocks[3])["elements"])[0])
	if button["type"] != "button" || button["url"] != "https://garrison.example/alerts/alt_1" {
		t.Fatalf("button %v", button)
	}
}

func TestTeamsReceiver(t *testing.T) {
	rc := newReceiver(t, 202, nil, "")
	m := sample()
	res := rc.sender().Send(context.Background(), Endpoint{Kind: Teams, URL: rc.srv.URL + "/workflows/x/triggers/manual/paths/invoke?sig=s"}, m, time.Now())
	if !res.OK() {
		t.Fatalf("result %+v", res)
	}
	body := decode(t, rc.only(t).Body)
	wantKeys(t, "message", body, "type", "attachments")
	att := arr(body["attachments"])
	if body["type"] != "message" || len(att) != 1 {
		t.Fatalf("message %v", body)
	}
	wantKeys(t, "attachment", att[0], "contentType", "contentUrl", "content")
	if obj(att[0])["contentType"] != "application/vnd.microsoft.card.adaptive" || obj(att[0])["contentUrl"] != nil {
		t.Fatalf("attachment %v", att[0])
	}
	card := obj(obj(att[0])["content"])
	if card["$schema"] != "http://adaptivecards.io/schemas/adaptive-card.json" || card["type"] != "AdaptiveCard" || card["version"] != "1.4" {
		t.Fatalf("card %v", card)
	}
	cardBody := arr(card["body"])
	title := obj(cardBody[0])
	if title["type"] != "TextBlock" || title["weight"] != "Bolder" || title["color"] != "Attention" ||
		title["text"] != `[CRITICAL] Dental One: Ransomware beacon <b>&</b> @here [x\](http://evil.test) \*bold\* on ws-12` {
		t.Fatalf("title %v", title)
	}
	factSet := obj(cardBody[len(cardBody)-1])
	facts := map[string]any{}
	for _, f := range arr(factSet["facts"]) {
		facts[obj(f)["title"].(string)] = obj(f)["value"]
	}
	if factSet["type"] != "FactSet" || facts["Asset"] != "ws-12" || facts["Severity"] != "CRITICAL" || facts["Do first"] != "Isolate ws-12 from the network" ||
		facts["Organization"] != "Dental One (client of Acme MSP)" {
		t.Fatalf("facts %v", facts)
	}
	actions := arr(card["actions"])
	if len(actions) != 1 || obj(actions[0])["type"] != "Action.OpenUrl" || obj(actions[0])["url"] != "https://garrison.example/alerts/alt_1" {
		t.Fatalf("actions %v", actions)
	}
}

func TestPagerDutyReceiver(t *testing.T) {
	rc := newReceiver(t, 202, nil, `{"status":"success","message":"Event processed","dedup_key":"alt_1"}`)
	ep := Endpoint{Kind: PagerDuty, URL: rc.srv.URL + "/v2/enqueue", RoutingKey: "R0UT1NGKEY0000000000000000000000"}
	m := sample()
	s := rc.sender()
	if res := s.Send(context.Background(), ep, m, time.Now()); !res.OK() || res.Status != 202 || res.Err != nil {
		t.Fatalf("trigger result %+v", res)
	}
	r := rc.only(t)
	if r.Path != "/v2/enqueue" {
		t.Fatalf("path %s", r.Path)
	}
	body := decode(t, r.Body)
	wantKeys(t, "trigger", body, "routing_key", "event_action", "dedup_key", "payload", "links", "client")
	if body["routing_key"] != ep.RoutingKey || body["event_action"] != "trigger" || body["dedup_key"] != "alt_1" || body["client"] != "Garrison" {
		t.Fatalf("trigger %v", body)
	}
	p := obj(body["payload"])
	wantKeys(t, "payload", p, "summary", "source", "severity", "timestamp", "component", "group", "class", "custom_details")
	if p["summary"] != m.Title() || p["source"] != "ws-12" || p["severity"] != "critical" || p["group"] != "Dental One" ||
		p["class"] != "malware" || p["component"] != "203.0.113.9" || p["timestamp"] != "2026-03-02T23:14:05Z" {
		t.Fatalf("payload %v", p)
	}
	details := obj(p["custom_details"])
	if details["rule"] != "Critical" || details["provider"] != "Acme MSP" || len(arr(details["alerts"])) != 1 {
		t.Fatalf("custom_details %v", details)
	}
	links := arr(body["links"])
	if len(links) != 1 || obj(links[0])["href"] != "https://garrison.example/alerts/alt_1" || obj(links[0])["text"] == "" {
		t.Fatalf("links %v", links)
	}

	for i, ev := range []string{Acknowledge, Resolve} {
		m.Event = ev
		if res := s.Send(context.Background(), ep, m, time.Now()); !res.OK() {
			t.Fatalf("%s result %+v", ev, res)
		}
		got := decode(t, rc.requests()[i+1].Body)
		wantKeys(t, ev, got, "routing_key", "event_action", "dedup_key")
		if got["event_action"] != ev || got["dedup_key"] != "alt_1" {
			t.Fatalf("%s %v", ev, got)
		}
	}
}

func TestPagerDutyEvents(t *testing.T) {
	ep := Endpoint{Kind: PagerDuty, RoutingKey: "R0UT1NGKEY0000000000000000000000"}
	low, high := sample().Alerts[0], sample().Alerts[0]
	low.Severity, high.Severity = "low", "high"
	group := Message{ID: "group:rul_1:1", Event: Trigger, OrgName: "Dental One", Rule: "Night", Alerts: []Alert{low, high}, Count: 7}
	tests := []struct {
		name            string
		m               Message
		action, key     string
		severity, check string
	}{
		{"escalation re-triggers the incident", func() Message { m := sample(); m.Event, m.Escalation = Escalate, 1; return m }(), "trigger", "alt_1", "critical", ""},
		{"test keys on its own id", Message{ID: "test:tst_1", Event: Test, OrgName: "Dental One", DedupKey: "test:tst_1"}, "trigger", "test:tst_1", "info", "Test from Garrison"},
		{"group keys on the message", group, "trigger", "group:rul_1:1", "error", "[HIGH] Dental One: 7 alerts (rule Night)"},
		{"medium is a warning", func() Message { m := sample(); m.Alerts[0].Severity = "medium"; return m }(), "trigger", "alt_1", "warning", ""},
		{"low is info", func() Message { m := sample(); m.Alerts[0].Severity = "low"; return m }(), "trigger", "alt_1", "info", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, _, err := Payload(ep, tc.m, seen)
			if err != nil {
				t.Fatal(err)
			}
			got := decode(t, body)
			p := obj(got["payload"])
			if got["event_action"] != tc.action || got["dedup_key"] != tc.key || p["severity"] != tc.severity || (tc.check != "" && p["summary"] != tc.check) {
				t.Fatalf("%s", body)
			}
		})
	}
	if _, _, err := Payload(Endpoint{Kind: PagerDuty}, sample(), seen); err == nil {
		t.Fatal("an event without a routing key was built")
	}
}
