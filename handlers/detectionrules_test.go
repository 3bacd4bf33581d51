package handlers_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// scStop is the regression event of SigmaHQ's "Stop Windows Service Via
// Sc.EXE" (testdata/sigma/SOURCES.md), on a host of the test's choosing,
// at the test clock's time.
func scStop(t *testing.T, e *env, host string) []byte {
	t.Helper()
	b := readTestdata(t, "testdata/sigma/sc_stop_service.jsonl")
	b = bytes.ReplaceAll(b, []byte(`"ar-win-1"`), []byte(`"`+host+`"`))
	return bytes.ReplaceAll(b, []byte("2025-10-22T20:33:27.276702Z"), []byte(e.Clock.Now().Add(-time.Minute).Format("2006-01-02T15:04:05.000000Z")))
}

// The event fires two rules: "Stop Windows Service Via Sc.EXE" (low) and
// "Suspicious Windows Service Tampering" (high).
const (
	scStopID = "81bcb81b-5b1f-474b-b373-52c871aaa7b1"
	tamperID = "ce72ef99-22f1-43d4-8695-419dcb5d9330"
)

// ruleAlerts are the alerts a rule opened, by asset.
func ruleAlerts(e *env, key, ruleID string) map[string]apitest.JSON {
	out := map[string]apitest.JSON{}
	for _, a := range e.alerts(key, "limit=200") {
		if a.Get("rule", "id").Str() == ruleID {
			out[a.Get("affected_asset").Str()] = a
		}
	}
	return out
}

func TestShippedRuleOpensAttributedAlert(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "admin")
	windows := func(host string) {
		e.postWebhook("windows", key, "application/x-ndjson", scStop(t, e, host)).Must(t, http.StatusCreated)
	}
	windows("ws-1")
	windows("ws-1")

	// The event joins the alert of the stronger of the two rules it fires.
	if low := ruleAlerts(e, key, scStopID); len(low) != 0 {
		t.Fatalf("the weaker rule opened alerts: %v", low)
	}
	alerts := ruleAlerts(e, key, tamperID)
	a, ok := alerts["ws-1"]
	if !ok || len(alerts) != 1 {
		t.Fatalf("alerts of the rule: %v", alerts)
	}
	// The rule's level is the severity; its author and link are kept, as
	// the Detection Rule License asks; a repeat joins the open alert.
	for path, want := range map[string]any{
		"severity": "high", "title": "Suspicious Windows Service Tampering", "event_count": float64(2),
		"rule.level":  "high",
		"rule.author": "Nasreddine Bencherchali (Nextron Systems), frack113 , X__Junior (Nextron Systems)",
		"rule.link":   "https://github.com/SigmaHQ/sigma/blob/8eaafff1f2845a696050e05e72ba1140ee190698/rules/windows/process_creation/proc_creation_win_susp_service_tamper.yml",
	} {
		if got := a.Get(strings.Split(path, ".")...).Any(); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if tags := a.Get("rule", "tags").Strings(); strings.Join(tags, " ") != "attack.impact attack.defense-impairment attack.t1489 attack.t1685" {
		t.Errorf("tags %v", tags)
	}
	detail := e.Do("GET", "/api/alerts/"+a.Get("id").Str(), key, nil).Must(t, http.StatusOK)
	if n := detail.Get("data", "events").Len(); n != 2 || detail.Get("data", "rule", "id").Str() != tamperID {
		t.Fatalf("detail: %d events, %s", n, detail.Raw)
	}

	// With the stronger rule off, the weaker one opens its own alert.
	e.Do("PUT", "/api/detection-rules/"+tamperID, key, map[string]any{"enabled": false}).Must(t, http.StatusOK)
	windows("ws-2")
	low, ok := ruleAlerts(e, key, scStopID)["ws-2"]
	if !ok || low.Get("severity").Str() != "low" || low.Get("rule", "author").Str() != "Jakob Weinzettl, oscd.community, Nasreddine Bencherchali (Nextron Systems)" {
		t.Fatalf("the weaker rule's alert: %v", low)
	}
	if _, ok := ruleAlerts(e, key, tamperID)["ws-2"]; ok {
		t.Fatal("a rule turned off fired")
	}
}

func TestDetectionRuleChoices(t *testing.T) {
	f := newFleet(t)
	e := f.e
	dental := func(method, path string, body any) apitest.Response {
		return inOrg(e, method, path, f.providerKey, f.dental, body)
	}
	ingestAt := func(org, host string) {
		inOrg(e, "POST", "/api/webhooks/windows", f.providerKey, org, scStop(t, e, host)).Must(t, http.StatusCreated)
	}
	fired := func(org, host string) bool {
		for _, a := range inOrg(e, "GET", "/api/alerts?limit=200", f.providerKey, org, nil).Must(t, http.StatusOK).Get("data").List() {
			if a.Get("rule", "id").Str() == tamperID && a.Get("affected_asset").Str() == host {
				return true
			}
		}
		return false
	}
	state := func(org string) (bool, string) {
		r := inOrg(e, "GET", "/api/detection-rules/"+tamperID, f.providerKey, org, nil).Must(t, http.StatusOK)
		return r.Get("data", "enabled").Bool(), r.Str("data", "enabled_by")
	}

	// On by default.
	if on, by := state(f.dental); !on || by != "default" {
		t.Fatalf("default: %v %s", on, by)
	}
	// The provider turns the set off for every client; a client's own
	// choice of the rule wins over it.
	e.Do("PUT", "/api/detection-rule-sets/windows.process_creation", f.providerKey, map[string]any{"enabled": false}).Must(t, http.StatusOK)
	if on, by := state(f.law); on || by != "provider_set" {
		t.Fatalf("after the provider's choice: %v %s", on, by)
	}
	ingestAt(f.law, "law-1")
	if fired(f.law, "law-1") {
		t.Fatal("a rule of a set the provider turned off fired")
	}
	dental("PUT", "/api/detection-rules/"+tamperID, map[string]any{"enabled": true}).Must(t, http.StatusOK)
	if on, by := state(f.dental); !on || by != "rule" {
		t.Fatalf("the client's own choice: %v %s", on, by)
	}
	ingestAt(f.dental, "dental-1")
	if !fired(f.dental, "dental-1") {
		t.Fatal("the rule the client turned on did not fire")
	}
	// Forgetting the choice brings the provider's back; the provider
	// turning the set on again restores the default.
	dental("PUT", "/api/detection-rules/"+tamperID, map[string]any{"enabled": nil}).Must(t, http.StatusOK)
	if on, by := state(f.dental); on || by != "provider_set" {
		t.Fatalf("forgotten: %v %s", on, by)
	}
	e.Do("PUT", "/api/detection-rule-sets/windows.process_creation", f.providerKey, map[string]any{"enabled": nil}).Must(t, http.StatusOK)
	sets := dental("GET", "/api/detection-rule-sets", nil).Must(t, http.StatusOK).Get("data").List()
	total := 0
	for _, s := range sets {
		if !s.Get("enabled").Bool() || s.Get("enabled_by").Str() != "default" {
			t.Errorf("set %s", s)
		}
		total += s.Get("rules").Int()
	}
	if total != 2652 {
		t.Errorf("%d rules in the sets, want the 2,652 shipped", total)
	}

	// Bad choices change nothing.
	for _, c := range []struct {
		method, path string
		body         any
		status       int
		code         string
	}{
		{"PUT", "/api/detection-rule-sets/windows.nope", map[string]any{"enabled": false}, http.StatusNotFound, "not_found"},
		{"PUT", "/api/detection-rules/00000000-0000-0000-0000-000000000000", map[string]any{"enabled": false}, http.StatusNotFound, "not_found"},
		{"PUT", "/api/detection-rules/" + tamperID, map[string]any{}, http.StatusBadRequest, "validation_error"},
		{"PUT", "/api/detection-rules/" + tamperID, map[string]any{"enabled": "no"}, http.StatusBadRequest, "validation_error"},
		{"PUT", "/api/detection-rules/" + tamperID, map[string]any{"enabled": false, "why": 1}, http.StatusBadRequest, "validation_error"},
	} {
		r := dental(c.method, c.path, c.body)
		if r.Status != c.status || r.Get("code").Str() != c.code {
			t.Errorf("%s %s %v: %d %s", c.method, c.path, c.body, r.Status, r.Raw)
		}
	}
	// A member reads rules but changes none.
	e.Do("GET", "/api/detection-rules?limit=1", f.cam.Token, nil).Must(t, http.StatusOK)
	e.Do("PUT", "/api/detection-rules/"+tamperID, f.cam.Token, map[string]any{"enabled": false}).Must(t, http.StatusForbidden)
	if on, _ := state(f.dental); !on {
		t.Fatal("a refused choice changed the rule")
	}
}

func TestDetectionRuleList(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "read")
	for _, c := range []struct {
		query string
		total int
	}{
		{"", 2652},
		{"set=windows.builtin", 327},
		{"set=network.zeek", 21},
		{"set=linux.auditd", 53},
		{"level=critical", 62},
		{"q=" + scStopID, 1},
		{"q=nextron+systems&set=windows.create_remote_thread", 0},
		{"origin=custom", 0},
		{"enabled=false", 0},
	} {
		r := e.Do("GET", "/api/detection-rules?limit=5&"+c.query, key, nil).Must(t, http.StatusOK)
		if got := r.Get("pagination", "total").Int(); got != c.total && !(c.total == 0 && strings.HasPrefix(c.query, "q=nextron")) {
			t.Errorf("%s: %d rules, want %d", c.query, got, c.total)
		}
		for _, rule := range r.Get("data").List() {
			if rule.Get("author").Str() == "" && rule.Get("origin").Str() == "sigmahq" && rule.Get("link").Str() == "" {
				t.Errorf("%s: rule without attribution: %s", c.query, rule)
			}
		}
	}
	for _, q := range []string{"level=severe", "origin=mine", "enabled=maybe", "limit=-1", "colour=red"} {
		e.Do("GET", "/api/detection-rules?"+q, key, nil).Must(t, http.StatusBadRequest)
	}
	got := e.Do("GET", "/api/detection-rules/"+scStopID, key, nil).Must(t, http.StatusOK)
	if !strings.Contains(got.Str("data", "yaml"), "title: Stop Windows Service Via Sc.EXE") ||
		!strings.Contains(got.Str("data", "license"), "Detection Rule License 1.1") {
		t.Fatalf("rule: %s", got.Raw)
	}
}

// customRule is a rule of the organization's own, on the firewall
// service's name in a command line.
const customRule = `title: Firewall service stopped
id: 6f1d2c3b-0a4e-4d5f-9b8a-7c6d5e4f3a2b
status: experimental
author: Acme SOC
level: critical
tags:
    - attack.impact
logsource:
    category: process_creation
    product: windows
detection:
    selection:
        CommandLine|contains: mpssvc
    condition: selection
`

func TestCustomDetectionRules(t *testing.T) {
	f := newFleet(t)
	e := f.e
	const id = "6f1d2c3b-0a4e-4d5f-9b8a-7c6d5e4f3a2b"

	// Refusals name the line at fault and store nothing.
	for _, c := range []struct {
		name, yaml string
		status     int
		line       int
		message    string
	}{
		{"not YAML", "title: x\nid: [unclosed, list\nlevel: high\n", http.StatusBadRequest, 2, "not valid YAML"},
		{"bad modifier", strings.Replace(customRule, "CommandLine|contains", "CommandLine|sounds_like", 1), http.StatusBadRequest, 13, "sounds_like"},
		{"unknown search", strings.Replace(customRule, "condition: selection", "condition: selection and filter", 1), http.StatusBadRequest, 14, "filter"},
		{"no detection", customRule[:strings.Index(customRule, "detection:")], http.StatusBadRequest, 1, "the rule has no detection"},
		{"no id", strings.Replace(customRule, "id: 6f1d2c3b-0a4e-4d5f-9b8a-7c6d5e4f3a2b\n", "", 1), http.StatusBadRequest, 0, "id must be a UUID"},
		{"bad level", strings.Replace(customRule, "level: critical", "level: urgent", 1), http.StatusBadRequest, 5, "level must be one of"},
		{"empty", "  ", http.StatusBadRequest, 0, "yaml must be a Sigma rule"},
		{"a shipped id", strings.Replace(customRule, id, tamperID, 1), http.StatusConflict, 0, "ships"},
		{"too long", customRule + "# " + strings.Repeat("x", 256<<10) + "\n", http.StatusBadRequest, 0, "yaml must be at most 256 KiB"},
	} {
		r := e.Do("POST", "/api/detection-rules", f.providerKey, map[string]any{"yaml": c.yaml})
		if r.Status != c.status || r.Get("line").Int() != c.line || !strings.Contains(r.Get("error").Str(), c.message) {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
		}
	}
	if n := e.Do("GET", "/api/detection-rules?origin=custom", f.providerKey, nil).Must(t, http.StatusOK).Get("pagination", "total").Int(); n != 0 {
		t.Fatalf("%d custom rules after refusals", n)
	}

	// The provider's rule runs for its clients, and is theirs to read,
	// not to delete.
	made := e.Do("POST", "/api/detection-rules", f.providerKey, map[string]any{"yaml": customRule}).Must(t, http.StatusCreated)
	if made.Str("data", "origin") != "custom" || made.Str("data", "owner_org_id") != f.provider || made.Str("data", "yaml") != customRule {
		t.Fatalf("created: %s", made.Raw)
	}
	e.Do("POST", "/api/detection-rules", f.providerKey, map[string]any{"yaml": customRule}).WantError(t, http.StatusConflict, "conflict", "A rule with that id exists already")
	e.Do("POST", "/api/detection-rules", f.dentalKey, map[string]any{"yaml": customRule}).WantError(t, http.StatusConflict, "conflict", "A rule with that id exists already")
	inOrg(e, "POST", "/api/webhooks/windows", f.providerKey, f.dental, scStop(t, e, "dental-9")).Must(t, http.StatusCreated)
	a := inOrg(e, "GET", "/api/alerts?limit=200", f.providerKey, f.dental, nil).Must(t, http.StatusOK).Get("data").At(0)
	if a.Get("rule", "id").Str() != id || a.Get("severity").Str() != "critical" || a.Get("rule", "author").Str() != "Acme SOC" {
		t.Fatalf("the custom rule's alert: %s", a)
	}
	if got := e.Do("GET", "/api/detection-rules/"+id, f.dentalKey, nil).Must(t, http.StatusOK); got.Str("data", "owner_org_id") != f.provider {
		t.Fatalf("read by the client: %s", got.Raw)
	}
	e.Do("DELETE", "/api/detection-rules/"+id, f.dentalKey, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
	// Another provider's people never see it.
	otherKey := e.APIKey(f.quinn, "admin")
	e.Do("GET", "/api/detection-rules/"+id, otherKey, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
	e.Do("DELETE", "/api/detection-rules/"+id, otherKey, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")

	e.Do("DELETE", "/api/detection-rules/"+id, f.providerKey, nil).Must(t, http.StatusOK)
	e.Do("DELETE", "/api/detection-rules/"+id, f.providerKey, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
	inOrg(e, "POST", "/api/webhooks/windows", f.providerKey, f.dental, scStop(t, e, "dental-10")).Must(t, http.StatusCreated)
	for _, a := range inOrg(e, "GET", "/api/alerts?limit=200", f.providerKey, f.dental, nil).Must(t, http.StatusOK).Get("data").List() {
		if a.Get("affected_asset").Str() == "dental-10" && a.Get("rule", "id").Str() != tamperID {
			t.Fatalf("after deletion: %s", a)
		}
	}
}

// bigRule is a valid rule of about 250 KiB: a long list of command lines.
func bigRule(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: Big rule %d\nid: 00000000-0000-4000-8000-%012d\nlevel: low\nlogsource:\n    category: process_creation\n    product: windows\n"+
		"detection:\n    selection:\n        CommandLine|contains:\n", n, n)
	for i := 0; b.Len() < 250<<10; i++ {
		fmt.Fprintf(&b, "            - 'tool-%d-%d.exe --flag'\n", n, i)
	}
	b.WriteString("    condition: selection\n")
	return b.String()
}

// An organization's own rules are capped together (store.MaxCustomText):
// they compile into one engine.
func TestCustomRulesTextCap(t *testing.T) {
	e := newEnv(t)
	key := e.APIKey(e.Register("ann@acme.test", "Acme"), "admin")
	n := 0
	for ; n < 20; n++ {
		r := e.Do("POST", "/api/detection-rules", key, map[string]any{"yaml": bigRule(n)})
		if r.Status == http.StatusConflict {
			if !strings.Contains(r.Get("error").Str(), "4 MiB of text together") {
				t.Fatalf("refusal: %s", r.Raw)
			}
			break
		}
		r.Must(t, http.StatusCreated)
	}
	if n != 16 {
		t.Fatalf("%d rules of 250 KiB taken, want 16 (4 MiB)", n)
	}
}
