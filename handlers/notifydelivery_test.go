package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/contact"
	"garrison/handlers/apitest"
)

// notifyEnv is a server whose notification receivers are local peers
// speaking each protocol, with delivery running.
type notifyEnv struct {
	*env
	hook, slack, teams, pager *apitest.Receiver
	smtp                      *apitest.MailReceiver
	admin                     apitest.Account
	key                       string
}

func newNotifyEnv(t *testing.T) *notifyEnv {
	n := &notifyEnv{hook: apitest.NewReceiver(t), slack: apitest.NewReceiver(t), teams: apitest.NewReceiver(t),
		pager: apitest.NewReceiver(t), smtp: apitest.NewMailReceiver(t)}
	roots := n.hook.Roots()
	for _, rc := range []*apitest.Receiver{n.slack, n.teams, n.pager} {
		roots.AddCert(rc.Server.Certificate())
	}
	n.env = newEnv(t, func(c *apitest.Config) { c.NotifyRootCAs = roots; c.SMTPAddr = n.smtp.Addr })
	n.admin = n.Register("ann@acme.test", "Acme")
	n.Verify(n.admin)
	n.key = n.APIKey(n.admin, "write")
	t.Cleanup(n.Dispatching())
	return n
}

// channel makes a contact point and returns its id and secret.
func (n *notifyEnv) channel(body map[string]any) (string, string) {
	r := n.Do("POST", "/api/notification-channels", n.admin.Token, body).Must(n.T, http.StatusCreated)
	return r.Str("data", "id"), r.Str("data", "secret")
}

// onlyRule replaces the organization's rules with one.
func (n *notifyEnv) onlyRule(body map[string]any) string {
	for _, r := range n.Do("GET", "/api/notification-rules", n.admin.Token, nil).Must(n.T, http.StatusOK).List() {
		n.Do("DELETE", "/api/notification-rules/"+r.(map[string]any)["id"].(string), n.admin.Token, nil).Must(n.T, http.StatusOK)
	}
	return n.Do("POST", "/api/notification-rules", n.admin.Token, body).Must(n.T, http.StatusCreated).Str("data", "id")
}

func (n *notifyEnv) critical(asset, msg string) string {
	n.ingest(n.key, ev(n.env, "threat_detected", "critical", asset, msg, n.Clock.Now())).Must(n.T, http.StatusCreated)
	for _, a := range n.alerts(n.key, "status=open&limit=200") {
		if a.Get("affected_asset").Str() == asset {
			return a.Get("id").Str()
		}
	}
	n.T.Fatalf("no open alert on %s", asset)
	return ""
}

// advance moves the clock and wakes the dispatcher, as time passing would.
func (n *notifyEnv) advance(d time.Duration) {
	n.Clock.Advance(d)
	n.App.Dispatch.Notify()
}

func decodeMap(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not JSON: %v: %s", err, body)
	}
	return m
}

func TestNotificationsReachEveryKind(t *testing.T) {
	n := newNotifyEnv(t)
	hookID, secret := n.channel(map[string]any{"name": "SIEM", "kind": "webhook", "url": n.hook.URL("/in")})
	slackID, _ := n.channel(map[string]any{"name": "Chat", "kind": "slack", "url": n.slack.URL("/hooks/T0/B0/x")})
	teamsID, _ := n.channel(map[string]any{"name": "Teams", "kind": "teams", "url": n.teams.URL("/workflows/x")})
	pagerID, _ := n.channel(map[string]any{"name": "Pager", "kind": "pagerduty", "url": n.pager.URL("/v2/enqueue"), "routing_key": routingKey})
	mailID, _ := n.channel(map[string]any{"name": "SOC inbox", "kind": "email", "addresses": []string{"soc@msp.test"}, "roles": []string{"admin"}})
	n.onlyRule(map[string]any{"name": "Critical", "min_severity": "critical", "channels": []string{hookID, slackID, teamsID, pagerID, mailID}})

	alertID := n.critical("ws-12", "Ransomware beacon <b>&</b>")
	reqs := map[string]apitest.Request{}
	for name, rc := range map[string]*apitest.Receiver{"webhook": n.hook, "slack": n.slack, "teams": n.teams, "pagerduty": n.pager} {
		got := rc.Wait(t, 1, 10*time.Second)
		reqs[name] = got[0]
	}
	mails := n.smtp.Wait(t, 2, 10*time.Second)

	// The webhook is signed per the Standard Webhooks specification.
	w := reqs["webhook"]
	if err := contact.Verify(secret, w.Header, w.Body, n.Clock.Now()); err != nil {
		t.Fatalf("webhook signature: %v (headers %v)", err, w.Header)
	}
	if err := contact.Verify(secret, w.Header, append(append([]byte(nil), w.Body...), ' '), n.Clock.Now()); err == nil {
		t.Fatal("a changed body passed the signature check")
	}
	hook := decodeMap(t, w.Body)
	data, _ := hook["data"].(map[string]any)
	alerts, _ := data["alerts"].([]any)
	if hook["type"] != "alert.trigger" || len(alerts) != 1 || alerts[0].(map[string]any)["id"] != alertID ||
		w.Header.Get("webhook-id") == "" || w.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("webhook: %v %s", w.Header, w.Body)
	}

	// Slack's text stands alone and cannot inject markup.
	sl := decodeMap(t, reqs["slack"].Body)
	text, _ := sl["text"].(string)
	if !strings.Contains(text, "CRITICAL") || !strings.Contains(text, "&lt;b&gt;&amp;&lt;/b&gt;") || strings.Contains(text, "<b>") {
		t.Fatalf("slack text: %q", text)
	}
	if _, ok := sl["blocks"].([]any); !ok {
		t.Fatalf("slack blocks: %s", reqs["slack"].Body)
	}

	// Teams gets an Adaptive Card.
	tm := decodeMap(t, reqs["teams"].Body)
	att, _ := tm["attachments"].([]any)
	if tm["type"] != "message" || len(att) != 1 || att[0].(map[string]any)["contentType"] != "application/vnd.microsoft.card.adaptive" ||
		att[0].(map[string]any)["content"].(map[string]any)["type"] != "AdaptiveCard" {
		t.Fatalf("teams: %s", reqs["teams"].Body)
	}

	// PagerDuty: a trigger keyed by the alert.
	pdTrigger := decodeMap(t, reqs["pagerduty"].Body)
	payload, _ := pdTrigger["payload"].(map[string]any)
	if pdTrigger["event_action"] != "trigger" || pdTrigger["dedup_key"] != alertID || pdTrigger["routing_key"] != routingKey ||
		payload["severity"] != "critical" || payload["source"] != "ws-12" {
		t.Fatalf("pagerduty trigger: %s", reqs["pagerduty"].Body)
	}

	// Mail: the address and the admin, once each.
	var to []string
	for _, m := range mails {
		to = append(to, m.To)
		if !strings.Contains(m.Data, "Subject: [CRITICAL] Acme: ") || !strings.Contains(m.Data, "ws-12") {
			t.Fatalf("alert mail: %s", m.Data)
		}
	}
	if fmt.Sprint(to) != "[ann@acme.test soc@msp.test]" && fmt.Sprint(to) != "[soc@msp.test ann@acme.test]" {
		t.Fatalf("mailed %v", to)
	}

	// Resolving the alert resolves PagerDuty's incident and tells the webhook.
	n.Do("PATCH", "/api/alerts/"+alertID, n.admin.Token, map[string]any{"status": "resolved", "disposition": "true_positive",
		"note": "host isolated and reimaged"}).Must(t, http.StatusOK)
	pd := n.pager.Wait(t, 2, 10*time.Second)
	resolve := decodeMap(t, pd[1].Body)
	if resolve["event_action"] != "resolve" || resolve["dedup_key"] != alertID {
		t.Fatalf("pagerduty resolve: %s", pd[1].Body)
	}
	hooks := n.hook.Wait(t, 2, 10*time.Second)
	if decodeMap(t, hooks[1].Body)["type"] != "alert.resolve" || hooks[1].Header.Get("webhook-id") == w.Header.Get("webhook-id") {
		t.Fatalf("webhook resolve: %s", hooks[1].Body)
	}
	time.Sleep(200 * time.Millisecond)
	if len(n.slack.Requests()) != 1 || len(n.teams.Requests()) != 1 || len(n.smtp.Mails()) != 2 {
		t.Fatalf("chat and mail heard of the resolution: slack %d, teams %d, mail %v\n%s", len(n.slack.Requests()), len(n.teams.Requests()), n.smtp.Mails(),
			n.Do("GET", "/api/notifications/deliveries", n.admin.Token, nil).Raw)
	}

	// The log holds every delivery, delivered in one attempt.
	log := n.Do("GET", "/api/notifications/deliveries?alert_id="+alertID, n.admin.Token, nil).Must(t, http.StatusOK)
	if total := log.Get("pagination", "total").Any(); total != float64(8) {
		t.Fatalf("delivery log holds %v, want 8: %s", total, log.Raw)
	}
	for _, d := range log.List() {
		d := d.(map[string]any)
		if d["status"] != "delivered" || d["attempts"] != float64(1) {
			t.Fatalf("delivery: %v", d)
		}
	}
}

func TestNotificationTest(t *testing.T) {
	n := newNotifyEnv(t)
	n.hook.Respond = func(int, apitest.Request) (int, map[string]string) { return http.StatusUnauthorized, nil }
	hookID, _ := n.channel(map[string]any{"name": "SIEM", "kind": "webhook", "url": n.hook.URL("/in")})
	slackID, _ := n.channel(map[string]any{"name": "Chat", "kind": "slack", "url": n.slack.URL("/x")})

	ok := n.Do("POST", "/api/notification-channels/"+slackID+"/test", n.admin.Token, nil).Must(t, http.StatusOK)
	if r := ok.Get("data", "results").At(0); r.Get("delivered").Any() != true || r.Get("status").Any() != float64(200) ||
		r.Get("answer").Str() != "OK" || !strings.HasPrefix(r.Get("receiver").Str(), "127.0.0.1:") {
		t.Fatalf("slack test: %s", ok.Raw)
	}
	bad := n.Do("POST", "/api/notification-channels/"+hookID+"/test", n.admin.Token, nil).Must(t, http.StatusOK)
	if r := bad.Get("data", "results").At(0); r.Get("delivered").Any() != false || r.Get("status").Any() != float64(401) || r.Get("error").Str() == "" {
		t.Fatalf("webhook test: %s", bad.Raw)
	}
	if len(n.hook.Requests()) != 1 {
		t.Fatal("a refused test was retried")
	}
	log := n.Do("GET", "/api/notifications/deliveries?status=failed", n.admin.Token, nil).Must(t, http.StatusOK)
	if log.Get("pagination", "total").Any() != float64(1) || log.Get("data").At(0).Get("event").Str() != "test" {
		t.Fatalf("log: %s", log.Raw)
	}
	n.Do("GET", "/api/notifications/deliveries?status=lost", n.admin.Token, nil).WantFields(t, "status")
}
