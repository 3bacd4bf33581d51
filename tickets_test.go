package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// submitTicket submits a ticket and returns its data.
func (e *testEnv) submitTicket(cred, subject, description, priority string) map[string]any {
	e.t.Helper()
	body := map[string]any{"subject": subject, "description": description}
	if priority != "" {
		body["priority"] = priority
	}
	return e.do("POST", "/api/tickets/submit", cred, body).must(e.t, http.StatusCreated).data()
}

// awaitTriage polls a ticket until the tech-support agent has triaged it.
func (e *testEnv) awaitTriage(cred, id string) map[string]any {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		t := e.do("GET", "/api/tickets/"+id, cred, nil).must(e.t, http.StatusOK).data()
		if t["triage_status"] != "pending" {
			return t
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("ticket %s still untriaged: %v", id, t)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTicketTriage(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	sub := e.submitTicket(admin.token, "Locked out of my account",
		"I typed my password wrong a few times and now my acct is locked out. I can't log in to Windows.", "")
	if sub["status"] != "open" || sub["triage_status"] != "pending" || sub["ai_triage"] != nil || sub["priority"] != "medium" ||
		!strings.HasPrefix(sub["id"].(string), "tkt_") || !strings.HasPrefix(sub["triage_run_id"].(string), "run_") {
		t.Fatalf("submitted ticket: %v", sub)
	}
	tk := e.awaitTriage(admin.token, sub["id"].(string))
	triage := tk["ai_triage"].(map[string]any)
	if tk["triage_status"] != "completed" || tk["status"] != "open" || triage["category"] != "account_lockout" ||
		triage["confidence"].(float64) < 0.6 || triage["suggested_priority"] == "" {
		t.Fatalf("triage: %v", tk)
	}
	steps := tk["ai_resolution_steps"].([]any)
	thread := tk["thread"].([]any)
	if len(steps) < 5 || len(thread) != 1 || thread[0].(map[string]any)["author_kind"] != "agent" ||
		!strings.Contains(thread[0].(map[string]any)["body"].(string), steps[0].(string)) {
		t.Fatalf("steps %v, thread %v", steps, thread)
	}
	if len(tk["escalation_log"].([]any)) != 0 || len(tk["status_history"].([]any)) != 0 {
		t.Fatalf("a confident triage escalated: %v", tk)
	}
	// The triage run is an ordinary tech-support execution.
	run := e.awaitRun(admin.token, "tech-support", sub["triage_run_id"].(string), "completed")
	if run["output"].(map[string]any)["applied_to_ticket"] != true {
		t.Fatalf("triage run: %v", run)
	}
}

func TestTicketEscalation(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	member := e.member(admin, "bob@acme.test", "member")
	sub := e.submitTicket(member.token, "Help", "It does not work since this morning.", "low")
	tk := e.awaitTriage(member.token, sub["id"].(string))
	if tk["status"] != "escalated" {
		t.Fatalf("a vague ticket was not escalated: %v", tk)
	}
	log := tk["escalation_log"].([]any)
	hist := tk["status_history"].([]any)
	if len(log) != 1 || log[0].(map[string]any)["by"] != "tech-support" || log[0].(map[string]any)["confidence"].(float64) >= 0.6 ||
		len(hist) != 1 || hist[0].(map[string]any)["from"] != "open" || hist[0].(map[string]any)["to"] != "escalated" {
		t.Fatalf("escalation log %v, history %v", log, hist)
	}
	notes := e.do("GET", "/api/notifications", admin.token, nil).must(t, http.StatusOK)
	if len(notes.list()) != 1 {
		t.Fatalf("admin notifications: %s", notes.raw)
	}
	n := notes.list()[0].(map[string]any)
	if n["kind"] != "ticket_escalated" || n["ref"] != sub["id"] || !strings.HasPrefix(n["id"].(string), "ntf_") || n["title"] != "Ticket escalated: Help" {
		t.Fatalf("notification: %v", n)
	}
	if got := e.do("GET", "/api/notifications", member.token, nil).must(t, http.StatusOK).list(); len(got) != 0 {
		t.Fatalf("a member sees the admins' notifications: %v", got)
	}
	other := e.register("zoe@other.test", "Other")
	if got := e.do("GET", "/api/notifications", other.token, nil).must(t, http.StatusOK).list(); len(got) != 0 {
		t.Fatalf("another organization sees the notification: %v", got)
	}
}

func TestTicketVisibility(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	bob := e.member(admin, "bob@acme.test", "member")
	cat := e.member(admin, "cat@acme.test", "member")
	readKey := e.apiKey(admin, "read")
	stranger := e.register("zoe@other.test", "Other")
	bobs := e.submitTicket(bob.token, "Printer jam", "The office printer shows a paper jam.", "low")["id"].(string)
	cats := e.submitTicket(cat.token, "VPN drops", "My VPN disconnects every few minutes.", "high")["id"].(string)
	e.awaitTriage(bob.token, bobs)
	e.awaitTriage(cat.token, cats)

	ids := func(cred, query string) []string {
		var out []string
		for _, item := range e.do("GET", "/api/tickets"+query, cred, nil).must(t, http.StatusOK).list() {
			out = append(out, item.(map[string]any)["id"].(string))
		}
		return out
	}
	cases := []struct {
		name, cred, query string
		want              []string
	}{
		{"admin sees all, newest first", admin.token, "", []string{cats, bobs}},
		{"API key sees all", readKey, "", []string{cats, bobs}},
		{"member sees own", bob.token, "", []string{bobs}},
		{"other member sees own", cat.token, "", []string{cats}},
		{"another organization sees none", stranger.token, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ids(c.cred, c.query); strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("tickets %v, want %v", got, c.want)
			}
		})
	}
	e.do("PATCH", "/api/tickets/"+bobs, admin.token, map[string]string{"status": "resolved"}).must(t, 200)
	if got := ids(admin.token, "?status=open"); strings.Join(got, ",") != cats {
		t.Fatalf("open tickets %v", got)
	}
	if got := ids(admin.token, "?status=resolved"); strings.Join(got, ",") != bobs {
		t.Fatalf("resolved tickets %v", got)
	}
	// Assigned to a member, a ticket becomes visible to them.
	e.do("GET", "/api/tickets/"+cats, bob.token, nil).wantError(t, 404, "not_found", "")
	e.do("PATCH", "/api/tickets/"+cats, admin.token, map[string]string{"assignee": bob.id}).must(t, 200)
	e.do("GET", "/api/tickets/"+cats, bob.token, nil).must(t, 200)
	if got := ids(bob.token, ""); strings.Join(got, ",") != cats+","+bobs {
		t.Fatalf("bob's tickets once assigned: %v", got)
	}
	e.do("PATCH", "/api/tickets/"+cats, admin.token, map[string]any{"assignee": nil}).must(t, 200)
	e.do("GET", "/api/tickets/"+cats, bob.token, nil).wantError(t, 404, "not_found", "")
	e.do("GET", "/api/tickets/"+cats, stranger.token, nil).wantError(t, 404, "not_found", "")
	e.do("POST", "/api/tickets/"+cats+"/messages", bob.token, map[string]string{"body": "me too"}).wantError(t, 404, "not_found", "")
	e.do("PATCH", "/api/tickets/"+cats, stranger.token, map[string]string{"status": "closed"}).wantError(t, 404, "not_found", "")
	e.do("GET", "/api/tickets/"+cats, admin.token, nil).must(t, 200)
	e.do("GET", "/api/tickets?status=waiting", admin.token, nil).wantFields(t, "status")
	e.do("GET", "/api/tickets?limit=-1", admin.token, nil).wantFields(t, "limit")
}

func TestTicketUpdatesAndMessages(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	bob := e.member(admin, "bob@acme.test", "member")
	stranger := e.register("zoe@other.test", "Other")
	id := e.submitTicket(bob.token, "Backup failed", "Last night's backup job failed with an error.", "medium")["id"].(string)
	path := "/api/tickets/" + id
	e.awaitTriage(bob.token, id)

	steps := []struct {
		name   string
		cred   string
		body   map[string]any
		status int
		fields []string
	}{
		{"empty change", admin.token, map[string]any{}, 400, []string{"status"}},
		{"bad status", admin.token, map[string]any{"status": "waiting"}, 400, []string{"status"}},
		{"bad priority", admin.token, map[string]any{"priority": "urgent"}, 400, []string{"priority"}},
		{"assignee of another organization", admin.token, map[string]any{"assignee": stranger.id}, 400, []string{"assignee"}},
		{"assignee not a string", admin.token, map[string]any{"assignee": 5}, 400, []string{"assignee"}},
		{"unknown field", admin.token, map[string]any{"owner": "x"}, 400, []string{"owner"}},
		{"member may not reprioritise", bob.token, map[string]any{"priority": "high"}, 403, nil},
		{"member may not start work", bob.token, map[string]any{"status": "in_progress"}, 403, nil},
		{"admin takes it", admin.token, map[string]any{"status": "in_progress", "assignee": admin.id, "priority": "high", "note": "on it"}, 200, nil},
		{"admin resolves", admin.token, map[string]any{"status": "resolved", "note": "re-ran the job"}, 200, nil},
		{"resolved cannot go back to work", admin.token, map[string]any{"status": "in_progress"}, 409, nil},
		{"member reopens own", bob.token, map[string]any{"status": "open", "note": "failed again"}, 200, nil},
		{"member closes own", bob.token, map[string]any{"status": "closed"}, 200, nil},
		{"closed cannot be resolved", admin.token, map[string]any{"status": "resolved"}, 409, nil},
		{"unassign", admin.token, map[string]any{"assignee": nil}, 200, nil},
	}
	for _, s := range steps {
		r := e.do("PATCH", path, s.cred, s.body)
		switch {
		case s.fields != nil:
			r.wantFields(t, s.fields...)
		case s.status == 200:
			r.must(t, 200)
		case s.status == 403:
			r.wantError(t, 403, "forbidden", "")
		case s.status == 409:
			r.wantError(t, 409, "conflict", "")
		}
		if t.Failed() {
			t.Fatalf("step %q", s.name)
		}
	}
	tk := e.do("GET", path, bob.token, nil).must(t, 200).data()
	var changes []string
	for _, c := range tk["status_history"].([]any) {
		m := c.(map[string]any)
		from, _ := m["from"].(string)
		to, _ := m["to"].(string)
		changes = append(changes, m["field"].(string)+":"+from+">"+to)
	}
	want := []string{"priority:medium>high", "assignee:>" + admin.id, "status:open>in_progress", "status:in_progress>resolved",
		"status:resolved>open", "status:open>closed", "assignee:" + admin.id + ">"}
	if strings.Join(changes, " ") != strings.Join(want, " ") {
		t.Fatalf("history\n%v\nwant\n%v", changes, want)
	}
	if tk["status"] != "closed" || tk["assignee"] != nil || tk["priority"] != "high" || tk["resolved_at"] == nil {
		t.Fatalf("ticket after updates: %v", tk)
	}

	e.do("POST", path+"/messages", bob.token, map[string]string{"body": ""}).wantFields(t, "body")
	e.do("POST", path+"/messages", bob.token, map[string]string{"body": "bad \x00 byte"}).wantFields(t, "body")
	m := e.do("POST", path+"/messages", bob.token, map[string]string{"body": "Thanks, it works now."}).must(t, http.StatusCreated).data()
	if m["author"] != bob.id || m["author_kind"] != "user" {
		t.Fatalf("message: %v", m)
	}
	key := e.apiKey(admin, "write")
	e.do("POST", path+"/messages", key, map[string]string{"body": "Closing note from the PSA sync."}).must(t, http.StatusCreated)
	thread := e.do("GET", path, admin.token, nil).must(t, 200).data()["thread"].([]any)
	if len(thread) != 3 || thread[1].(map[string]any)["body"] != "Thanks, it works now." || thread[2].(map[string]any)["author_kind"] != "apikey" {
		t.Fatalf("thread: %v", thread)
	}
}

func TestTicketSubmitValidation(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	cases := []struct {
		name   string
		body   any
		fields []string
	}{
		{"empty", map[string]any{}, []string{"subject", "description"}},
		{"subject too long", map[string]any{"subject": strings.Repeat("s", 201), "description": "d"}, []string{"subject"}},
		{"subject on two lines", map[string]any{"subject": "a\nb", "description": "d"}, []string{"subject"}},
		{"description too long", map[string]any{"subject": "s", "description": strings.Repeat("d", 10_001)}, []string{"description"}},
		{"bad priority", map[string]any{"subject": "s", "description": "d", "priority": "urgent"}, []string{"priority"}},
		{"unknown field", map[string]any{"subject": "s", "description": "d", "severity": "high"}, []string{"severity"}},
		{"not an object", "[]", []string{"body"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.do("POST", "/api/tickets/submit", admin.token, c.body).wantFields(t, c.fields...)
		})
	}
	if n := e.do("GET", "/api/tickets", admin.token, nil).must(t, 200).body["pagination"].(map[string]any)["total"]; n != 0.0 {
		t.Fatalf("refused tickets were stored: %v", n)
	}
	e.do("GET", "/api/tickets/tkt_00000000000000000000000000", admin.token, nil).wantError(t, 404, "not_found", "")
}

func TestTicketTriageRunsArePrivate(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	bob := e.member(admin, "bob@acme.test", "member")
	cat := e.member(admin, "cat@acme.test", "member")
	e.stopRunner() // runs stay queued
	tk := e.submitTicket(bob.token, "Printer jam", "The office printer shows a paper jam.", "low")
	runID := tk["triage_run_id"].(string)

	e.do("POST", "/api/agents/tech-support/execute", cat.token, map[string]any{"ticket_id": tk["id"]}).wantError(t, 404, "not_found", "")
	e.do("GET", "/api/agents/tech-support/executions/"+runID, cat.token, nil).wantError(t, 404, "not_found", "")
	e.do("POST", "/api/agents/tech-support/executions/"+runID+"/cancel", cat.token, nil).wantError(t, 404, "not_found", "")
	if got := e.do("GET", "/api/agents/tech-support/executions", cat.token, nil).must(t, 200).list(); len(got) != 0 {
		t.Fatalf("a member lists another's triage runs: %v", got)
	}
	if got := e.do("GET", "/api/agents/tech-support/executions", bob.token, nil).must(t, 200).list(); len(got) != 1 {
		t.Fatalf("the submitter's runs: %v", got)
	}
	e.do("POST", "/api/agents/tech-support/execute", bob.token, map[string]any{"ticket_id": tk["id"]}).must(t, http.StatusAccepted)

	// Cancelling the triage leaves the ticket to a human.
	e.do("POST", "/api/agents/tech-support/executions/"+runID+"/cancel", admin.token, nil).must(t, 200)
	got := e.do("GET", "/api/tickets/"+tk["id"].(string), bob.token, nil).must(t, 200).data()
	if got["status"] != "escalated" || got["triage_status"] != "failed" ||
		got["escalation_log"].([]any)[0].(map[string]any)["reason"] != "Automatic triage cancelled; a technician needs to review this ticket." {
		t.Fatalf("ticket after its triage was cancelled: %v", got)
	}
	// The submitter cannot take it out of the human queue, only close it.
	e.do("PATCH", "/api/tickets/"+tk["id"].(string), bob.token, map[string]string{"status": "open"}).wantError(t, 403, "forbidden", "")
	e.do("PATCH", "/api/tickets/"+tk["id"].(string), bob.token, map[string]string{"status": "closed"}).must(t, 200)
	e.do("PATCH", "/api/tickets/"+tk["id"].(string), bob.token, map[string]string{"status": "open"}).must(t, 200)
	notes := e.do("GET", "/api/notifications", admin.token, nil).must(t, 200).list()
	if len(notes) != 1 || notes[0].(map[string]any)["kind"] != "ticket_escalated" {
		t.Fatalf("notifications: %v", notes)
	}
}

func TestTicketSubmitSpendsTheRunBudget(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	e.useLimits(strings.Replace(generousLimits, "agent-runs=100000/1m", "agent-runs=2/1m", 1), nil)
	e.submitTicket(admin.token, "VPN", "The VPN drops.", "")
	e.do("POST", "/api/agents/onboarding/execute", admin.token, nil).must(t, http.StatusAccepted)
	e.do("POST", "/api/tickets/submit", admin.token, map[string]string{"subject": "VPN", "description": "Still drops."}).
		wantError(t, http.StatusTooManyRequests, "rate_limited", "")
	if n := e.do("GET", "/api/tickets", admin.token, nil).must(t, 200).body["pagination"].(map[string]any)["total"]; n != 1.0 {
		t.Fatalf("%v tickets after a refused submit", n)
	}
}
