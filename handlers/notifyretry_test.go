package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// deliveryOf is the one delivery of the log to a contact point.
func (n *notifyEnv) deliveryOf(channelID string) apitest.JSON {
	n.T.Helper()
	log := n.Do("GET", "/api/notifications/deliveries?channel_id="+channelID, n.admin.Token, nil).Must(n.T, http.StatusOK)
	if log.Get("pagination", "total").Any() != float64(1) {
		n.T.Fatalf("deliveries to %s: %s", channelID, log.Raw)
	}
	return log.Get("data").At(0)
}

// settle waits until the dispatcher has nothing due (what it does next
// needs the clock to move).
func (n *notifyEnv) settle() {
	n.T.Helper()
	time.Sleep(300 * time.Millisecond)
}

func TestNotificationRetries(t *testing.T) {
	n := newNotifyEnv(t)
	// 500 once, then taken.
	n.hook.Respond = func(i int, _ apitest.Request) (int, map[string]string) {
		if i == 0 {
			return http.StatusInternalServerError, nil
		}
		return http.StatusNoContent, nil
	}
	// 429 asking for two minutes.
	n.slack.Respond = func(i int, _ apitest.Request) (int, map[string]string) {
		if i == 0 {
			return http.StatusTooManyRequests, map[string]string{"Retry-After": "120"}
		}
		return http.StatusOK, nil
	}
	// 400: the receiver will never take it.
	n.teams.Respond = func(int, apitest.Request) (int, map[string]string) { return http.StatusBadRequest, nil }
	hookID, _ := n.channel(map[string]any{"name": "SIEM", "kind": "webhook", "url": n.hook.URL("/in")})
	slackID, _ := n.channel(map[string]any{"name": "Chat", "kind": "slack", "url": n.slack.URL("/x")})
	teamsID, _ := n.channel(map[string]any{"name": "Teams", "kind": "teams", "url": n.teams.URL("/x")})
	n.onlyRule(map[string]any{"name": "All", "min_severity": "high", "channels": []string{hookID, slackID, teamsID}})

	n.critical("srv-01", "Cobalt Strike beacon")
	n.hook.Wait(t, 1, 10*time.Second)
	n.slack.Wait(t, 1, 10*time.Second)
	n.teams.Wait(t, 1, 10*time.Second)
	n.settle()
	if d := n.deliveryOf(hookID); d.Get("status").Str() != "pending" || d.Get("last_status").Any() != float64(500) || d.Get("attempts").Any() != float64(1) {
		t.Fatalf("after a 500: %v", d.Any())
	}
	if d := n.deliveryOf(teamsID); d.Get("status").Str() != "failed" || d.Get("last_status").Any() != float64(400) || d.Get("next_attempt_at").Any() != nil {
		t.Fatalf("after a 400: %v", d.Any())
	}

	// The retry after a 500 comes within the first backoff (10 s, jittered).
	n.advance(11 * time.Second)
	hooks := n.hook.Wait(t, 2, 10*time.Second)
	if hooks[0].Header.Get("webhook-id") != hooks[1].Header.Get("webhook-id") {
		t.Fatal("a retry changed the idempotency key")
	}
	n.settle()
	if d := n.deliveryOf(hookID); d.Get("status").Str() != "delivered" || d.Get("attempts").Any() != float64(2) {
		t.Fatalf("after the retry: %v", d.Any())
	}
	// Retry-After holds the next attempt for its two minutes.
	if len(n.slack.Requests()) != 1 {
		t.Fatal("Retry-After was not honoured")
	}
	n.advance(100 * time.Second)
	n.settle()
	if len(n.slack.Requests()) != 1 {
		t.Fatal("retried before Retry-After ran out")
	}
	n.advance(21 * time.Second)
	n.slack.Wait(t, 2, 10*time.Second)
	n.advance(time.Hour)
	n.settle()
	attempts := 0 // after an hour, the failing contact points' own alerts come too
	for _, r := range n.teams.Requests() {
		if strings.Contains(string(r.Body), "srv-01") {
			attempts++
		}
	}
	if attempts != 1 {
		t.Fatalf("a 400 was retried: %d attempts", attempts)
	}
}

func TestNotificationGroupingAndQuietHours(t *testing.T) {
	n := newNotifyEnv(t)
	hookID, _ := n.channel(map[string]any{"name": "SIEM", "kind": "webhook", "url": n.hook.URL("/in")})
	n.onlyRule(map[string]any{"name": "Grouped", "min_severity": "high", "channels": []string{hookID}, "group_seconds": 60})

	// The first alert goes at once; the next four in the window wait for
	// its end and go as one message with their count.
	n.critical("ws-00", "Emotet CnC")
	n.hook.Wait(t, 1, 10*time.Second)
	for i := 1; i <= 4; i++ {
		n.critical("ws-0"+string(rune('0'+i)), "Emotet CnC")
	}
	n.settle()
	if got := len(n.hook.Requests()); got != 1 {
		t.Fatalf("%d messages before the window ended, want 1", got)
	}
	n.advance(61 * time.Second)
	got := n.hook.Wait(t, 2, 10*time.Second)
	group := decodeMap(t, got[1].Body)["data"].(map[string]any)
	if group["count"] != float64(4) || len(group["alerts"].([]any)) != 4 {
		t.Fatalf("group message: %s", got[1].Body)
	}

	// Quiet hours hold a high alert until they end; a critical one goes at once.
	n.onlyRule(map[string]any{"name": "Quiet", "min_severity": "high", "channels": []string{hookID},
		"quiet_hours": map[string]any{"start": "11:00", "end": "14:00", "timezone": "UTC"}}) // the test clock reads 12:0x UTC
	n.ingest(n.key, ev(n.env, "threat_detected", "high", "db-01", "SQL injection attempt", n.Clock.Now())).Must(t, http.StatusCreated)
	n.critical("db-02", "Ransomware note dropped")
	got = n.hook.Wait(t, 3, 10*time.Second)
	if !strings.Contains(string(got[2].Body), "db-02") {
		t.Fatalf("the critical alert did not go first: %s", got[2].Body)
	}
	n.settle()
	if len(n.hook.Requests()) != 3 {
		t.Fatal("the high alert went out in quiet hours")
	}
	n.advance(2 * time.Hour)
	got = n.hook.Wait(t, 4, 10*time.Second)
	if !strings.Contains(string(got[3].Body), "db-01") {
		t.Fatalf("after the quiet hours: %s", got[3].Body)
	}
}

func TestNotificationEscalation(t *testing.T) {
	n := newNotifyEnv(t)
	pagerID, _ := n.channel(map[string]any{"name": "Pager", "kind": "pagerduty", "url": n.pager.URL("/v2/enqueue"), "routing_key": routingKey})
	hookID, _ := n.channel(map[string]any{"name": "Duty manager", "kind": "webhook", "url": n.hook.URL("/in")})
	n.onlyRule(map[string]any{"name": "Critical", "min_severity": "critical", "channels": []string{pagerID},
		"escalation": map[string]any{"after_minutes": 15, "max": 2, "channels": []string{hookID}}})

	ignored := n.critical("ws-01", "Ransomware beacon")
	n.pager.Wait(t, 1, 10*time.Second)
	n.advance(14 * time.Minute)
	n.settle()
	if len(n.hook.Requests()) != 0 {
		t.Fatal("escalated before 15 minutes")
	}
	n.advance(time.Minute)
	first := n.hook.Wait(t, 1, 10*time.Second)
	body := decodeMap(t, first[0].Body)
	if body["type"] != "alert.escalate" || !strings.Contains(string(first[0].Body), ignored) {
		t.Fatalf("escalation: %s", first[0].Body)
	}
	// Again after another 15 minutes, and no more than twice.
	n.advance(15 * time.Minute)
	n.hook.Wait(t, 2, 10*time.Second)
	n.advance(15 * time.Minute)
	n.settle()
	n.advance(15 * time.Minute)
	n.settle()
	if got := len(n.hook.Requests()); got != 2 {
		t.Fatalf("%d escalations, want 2", got)
	}

	// An acknowledged alert does not escalate.
	acked := n.critical("ws-02", "Ransomware beacon")
	n.pager.Wait(t, 2, 10*time.Second)
	n.Do("POST", "/api/alerts/"+acked+"/acknowledge", n.admin.Token, nil).Must(t, http.StatusOK)
	ack := decodeMap(t, n.pager.Wait(t, 3, 10*time.Second)[2].Body)
	if ack["event_action"] != "acknowledge" || ack["dedup_key"] != acked {
		t.Fatalf("pagerduty acknowledge: %v", ack)
	}
	n.advance(16 * time.Minute)
	n.settle()
	if got := len(n.hook.Requests()); got != 2 {
		t.Fatalf("an acknowledged alert escalated (%d messages)", got)
	}
}
