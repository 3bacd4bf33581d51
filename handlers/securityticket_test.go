package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSecurityTicketEscalates: a ticket reporting ransomware is escalated
// at once, pages through the routing rules as a critical alert linked to
// it, and tells the requester what to do without the technician's runbook.
func TestSecurityTicketEscalates(t *testing.T) {
	n := newNotifyEnv(t)
	hookID, _ := n.channel(map[string]any{"name": "On call", "kind": "webhook", "url": n.hook.URL("/in")})
	n.onlyRule(map[string]any{"name": "Critical", "min_severity": "critical", "channels": []string{hookID}})

	sub := n.submitTicket(n.admin.Token, "Ransom note on screen",
		"A message appeared saying our files have been encrypted and to contact them to decrypt. The shared drive files won't open either.", "")
	tk := n.awaitTriage(n.admin.Token, sub.Get("id").Str())
	for deadline := time.Now().Add(10 * time.Second); tk.Get("alert_id").IsNull() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // the alert is raised once the triage is written
		tk = n.Do("GET", "/api/tickets/"+sub.Get("id").Str(), n.admin.Token, nil).Must(t, http.StatusOK).Get("data")
	}
	if tk.Get("status").Str() != "escalated" || tk.Get("alert_id").IsNull() {
		t.Fatalf("security ticket: %v", tk.Any())
	}
	reply := tk.Get("thread").List()[0].Get("body").Str()
	for _, step := range tk.Get("ai_resolution_steps").List() {
		if strings.Contains(reply, step.Str()) {
			t.Fatalf("the requester was sent the runbook step %q", step.Str())
		}
	}
	if !strings.Contains(reply, "Disconnect the computer from the network") || !strings.Contains(reply, "on-call technician has been alerted") {
		t.Fatalf("reply: %s", reply)
	}
	alertID := tk.Get("alert_id").Str()
	a := n.Do("GET", "/api/alerts/"+alertID, n.key, nil).Must(t, http.StatusOK)
	if a.Str("data", "severity") != "critical" || a.Str("data", "ticket_id") != sub.Get("id").Str() ||
		!strings.Contains(a.Str("data", "title"), "Security incident reported (ransomware)") {
		t.Fatalf("alert: %s", a.Raw)
	}
	got := n.hook.Wait(t, 1, 10*time.Second)
	if !strings.Contains(string(got[0].Body), alertID) || !strings.Contains(string(got[0].Body), `"severity":"critical"`) {
		t.Fatalf("page: %s", got[0].Body)
	}

	// An ordinary ticket pages nobody.
	plain := n.submitTicket(n.admin.Token, "Printer jammed", "The second floor printer shows a paper jam.", "")
	if n.awaitTriage(n.admin.Token, plain.Get("id").Str()).Get("alert_id").IsNull() != true {
		t.Fatal("a printer ticket raised an alert")
	}
	n.settle()
	if len(n.hook.Requests()) != 1 {
		t.Fatal("an ordinary ticket paged")
	}
}
