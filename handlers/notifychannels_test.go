package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"garrison/handlers/apitest"
)

const routingKey = "R0UT1NGKEY0123456789abcdefABCDEF"

func TestNotificationChannelsAPI(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	member := e.Member(admin, "bob@acme.test", "member")
	other := e.Register("eve@evil.test", "Evil")
	readKey := e.APIKey(admin, "read")

	// A new organization mails its admins of critical and high alerts.
	rules := e.Do("GET", "/api/notification-rules", admin.Token, nil).Must(t, http.StatusOK).Get("data")
	if rules.At(0).Get("min_severity").Str() != "high" || rules.At(0).Get("group_seconds").Any() != float64(60) {
		t.Fatalf("default rule: %v", rules.Any())
	}
	channels := e.Do("GET", "/api/notification-channels", admin.Token, nil).Must(t, http.StatusOK).Get("data")
	if channels.At(0).Get("kind").Str() != "email" || channels.At(0).Get("roles").At(0).Str() != "admin" {
		t.Fatalf("default contact point: %v", channels.Any())
	}
	defaultChannel := channels.At(0).Get("id").Str()

	// A webhook's secret is shown once; PagerDuty's routing key never.
	hook := e.Do("POST", "/api/notification-channels", admin.Token, map[string]any{"name": "SIEM", "kind": "webhook",
		"url": "https://siem.acme.test/hook"}).Must(t, http.StatusCreated)
	hookID, secret := hook.Str("data", "id"), hook.Str("data", "secret")
	if !strings.HasPrefix(secret, "whsec_") || hook.Get("data", "has_secret").Any() != true {
		t.Fatalf("webhook made: %s", hook.Raw)
	}
	got := e.Do("GET", "/api/notification-channels/"+hookID, admin.Token, nil).Must(t, http.StatusOK)
	if strings.Contains(string(got.Raw), secret) || got.Get("data", "secret").Any() != nil {
		t.Fatalf("the secret was shown again: %s", got.Raw)
	}
	pd := e.Do("POST", "/api/notification-channels", admin.Token, map[string]any{"name": "Pager", "kind": "pagerduty",
		"routing_key": routingKey}).Must(t, http.StatusCreated)
	if strings.Contains(string(pd.Raw), routingKey) {
		t.Fatalf("the routing key was shown: %s", pd.Raw)
	}
	rotated := e.Do("PATCH", "/api/notification-channels/"+hookID, admin.Token, map[string]any{"name": "SIEM",
		"url": "https://siem.acme.test/hook2", "rotate_secret": true}).Must(t, http.StatusOK)
	if s := rotated.Str("data", "secret"); s == "" || s == secret || rotated.Str("data", "url") != "https://siem.acme.test/…" {
		t.Fatalf("rotated: %s", rotated.Raw)
	}
	// A chat or workflow URL carries its secret: only its host is shown,
	// and a change names only what changes.
	slack := e.Do("POST", "/api/notification-channels", admin.Token, map[string]any{"name": "Chat", "kind": "slack",
		"url": "https://hooks.slack.test/services/T0/B0/s3cr3t"}).Must(t, http.StatusCreated)
	renamed := e.Do("PATCH", "/api/notification-channels/"+slack.Str("data", "id"), admin.Token, map[string]any{"name": "SOC chat"}).
		Must(t, http.StatusOK)
	for _, r := range []apitest.Response{slack, renamed, e.Do("GET", "/api/notification-channels", admin.Token, nil)} {
		if strings.Contains(string(r.Raw), "s3cr3t") {
			t.Fatalf("a chat URL's secret was shown: %s", r.Raw)
		}
	}
	if renamed.Str("data", "name") != "SOC chat" || renamed.Str("data", "url") != "https://hooks.slack.test/…" {
		t.Fatalf("renamed: %s", renamed.Raw)
	}
	e.Do("PATCH", "/api/notification-channels/"+slack.Str("data", "id"), admin.Token, map[string]any{"rotate_secret": true}).WantFields(t, "rotate_secret")

	for _, tc := range []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"no name", map[string]any{"kind": "slack", "url": "https://hooks.slack.test/x"}, []string{"name"}},
		{"an unknown kind", map[string]any{"name": "x", "kind": "fax"}, []string{"kind"}},
		{"a webhook without a URL", map[string]any{"name": "x", "kind": "webhook"}, []string{"url"}},
		{"a URL that is not http", map[string]any{"name": "x", "kind": "slack", "url": "file:///etc/passwd"}, []string{"url"}},
		{"a URL with a password", map[string]any{"name": "x", "kind": "teams", "url": "https://u:p@teams.test/x"}, []string{"url"}},
		{"mail to nobody", map[string]any{"name": "x", "kind": "email"}, []string{"addresses"}},
		{"a bad address", map[string]any{"name": "x", "kind": "email", "addresses": []string{"not-mail"}}, []string{"addresses"}},
		{"an unknown role", map[string]any{"name": "x", "kind": "email", "roles": []string{"owner"}}, []string{"roles"}},
		{"PagerDuty without a key", map[string]any{"name": "x", "kind": "pagerduty"}, []string{"routing_key"}},
		{"a short routing key", map[string]any{"name": "x", "kind": "pagerduty", "routing_key": "abc"}, []string{"routing_key"}},
		{"a routing key on a webhook", map[string]any{"name": "x", "kind": "webhook", "url": "https://a.test/", "routing_key": routingKey}, []string{"routing_key"}},
		{"addresses on slack", map[string]any{"name": "x", "kind": "slack", "url": "https://a.test/", "addresses": []string{"a@b.test"}}, []string{"addresses"}},
		{"an unknown field", map[string]any{"name": "x", "kind": "slack", "url": "https://a.test/", "token": "x"}, []string{"token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.Do("POST", "/api/notification-channels", admin.Token, tc.body).WantFields(t, tc.fields...)
		})
	}
	e.Do("POST", "/api/notification-channels", admin.Token, map[string]any{"name": "SIEM", "kind": "slack", "url": "https://a.test/"}).
		WantError(t, http.StatusConflict, "conflict", "Another one of the organization's contact points or rules has this name")
	e.Do("PATCH", "/api/notification-channels/"+hookID, admin.Token, map[string]any{"kind": "slack"}).WantFields(t, "kind")

	// Admins only; another organization's contact point is not found.
	e.Do("GET", "/api/notification-channels", member.Token, nil).Must(t, http.StatusForbidden)
	e.Do("GET", "/api/notification-channels", readKey, nil).Must(t, http.StatusForbidden)
	e.Do("GET", "/api/notifications/deliveries", member.Token, nil).Must(t, http.StatusForbidden)
	for _, r := range []struct{ method, path string }{{"GET", ""}, {"PATCH", ""}, {"DELETE", ""}, {"POST", "/test"}} {
		var body any
		if r.method == "PATCH" {
			body = map[string]any{"name": "mine", "url": "https://evil.test/"}
		}
		e.Do(r.method, "/api/notification-channels/"+hookID+r.path, other.Token, body).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
	}

	// A contact point a rule names stays until the rule lets it go.
	e.Do("DELETE", "/api/notification-channels/"+defaultChannel, admin.Token, nil).
		WantError(t, http.StatusConflict, "conflict", `The contact point is used by the rule "Critical and high alerts"; change or delete that rule first`)
	e.Do("DELETE", "/api/notification-channels/"+hookID, admin.Token, nil).Must(t, http.StatusOK)
	e.Do("GET", "/api/notification-channels/"+hookID, admin.Token, nil).Must(t, http.StatusNotFound)
}

func TestNotificationRulesAPI(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	other := e.Register("eve@evil.test", "Evil")
	theirs := e.Do("GET", "/api/notification-channels", other.Token, nil).Must(t, http.StatusOK).Get("data").At(0).Get("id").Str()
	mine := e.Do("POST", "/api/notification-channels", admin.Token, map[string]any{"name": "Chat", "kind": "slack",
		"url": "https://chat.acme.test/hooks/x"}).Must(t, http.StatusCreated).Str("data", "id")

	rule := e.Do("POST", "/api/notification-rules", admin.Token, map[string]any{"name": "Night", "min_severity": "medium",
		"categories": []string{"malware"}, "assets": []string{"dc-01"}, "channels": []string{mine},
		"quiet_hours": map[string]any{"start": "22:00", "end": "07:00", "timezone": "Europe/Berlin"}, "group_seconds": 300,
		"escalation": map[string]any{"after_minutes": 10, "max": 2, "channels": []string{mine}}}).Must(t, http.StatusCreated)
	id := rule.Str("data", "id")
	if rule.Str("data", "quiet_hours", "start") != "22:00" || rule.Get("data", "escalation", "max").Any() != float64(2) ||
		rule.Get("data", "enabled").Any() != true {
		t.Fatalf("rule: %s", rule.Raw)
	}
	upd := e.Do("PUT", "/api/notification-rules/"+id, admin.Token, map[string]any{"name": "Night", "enabled": false,
		"min_severity": "high", "channels": []string{mine}}).Must(t, http.StatusOK)
	if upd.Get("data", "quiet_hours").Any() != nil || upd.Get("data", "enabled").Any() != false ||
		upd.Get("data", "escalation", "after_minutes").Any() != float64(15) {
		t.Fatalf("replaced: %s", upd.Raw)
	}

	base := func(edit func(map[string]any)) map[string]any {
		b := map[string]any{"name": "R", "min_severity": "high", "channels": []string{mine}}
		edit(b)
		return b
	}
	for _, tc := range []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"no contact point", base(func(b map[string]any) { delete(b, "channels") }), []string{"channels"}},
		{"another organization's contact point", base(func(b map[string]any) { b["channels"] = []string{theirs} }), []string{"channels"}},
		{"an unknown severity", base(func(b map[string]any) { b["min_severity"] = "severe" }), []string{"min_severity"}},
		{"an unknown category", base(func(b map[string]any) { b["categories"] = []string{"spam"} }), []string{"categories"}},
		{"an unknown event type", base(func(b map[string]any) { b["event_types"] = []string{"x"} }), []string{"event_types"}},
		{"a bad quiet hour", base(func(b map[string]any) { b["quiet_hours"] = map[string]any{"start": "25:00", "end": "07:00"} }), []string{"quiet_hours.start"}},
		{"an empty quiet span", base(func(b map[string]any) { b["quiet_hours"] = map[string]any{"start": "07:00", "end": "07:00"} }), []string{"quiet_hours.end"}},
		{"an unknown zone", base(func(b map[string]any) {
			b["quiet_hours"] = map[string]any{"start": "22:00", "end": "07:00", "timezone": "Mars/Olympus"}
		}), []string{"quiet_hours.timezone"}},
		{"a day-long group", base(func(b map[string]any) { b["group_seconds"] = 86401 }), []string{"group_seconds"}},
		{"escalating at once", base(func(b map[string]any) { b["escalation"] = map[string]any{"after_minutes": 0} }), []string{"escalation.after_minutes"}},
		{"escalating forever", base(func(b map[string]any) { b["escalation"] = map[string]any{"max": 11} }), []string{"escalation.max"}},
		{"clients outside a provider", base(func(b map[string]any) { b["clients"] = []string{other.OrgID} }), []string{"clients"}},
		{"overriding without a provider", base(func(b map[string]any) { b["overrides_provider"] = true }), []string{"overrides_provider"}},
		{"a repeated asset", base(func(b map[string]any) { b["assets"] = []string{"a", "a"} }), []string{"assets"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.Do("POST", "/api/notification-rules", admin.Token, tc.body).WantFields(t, tc.fields...)
		})
	}
	e.Do("PUT", "/api/notification-rules/"+id, other.Token, base(func(map[string]any) {})).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
	e.Do("DELETE", "/api/notification-rules/"+id, other.Token, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
	e.Do("DELETE", "/api/notification-rules/"+id, admin.Token, nil).Must(t, http.StatusOK)
	e.Do("GET", "/api/notification-rules/"+id, admin.Token, nil).Must(t, http.StatusNotFound)
}
