package handlers_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// submitTicket submits a ticket and returns its data.
func (e *env) submitTicket(cred, subject, description, priority string) apitest.JSON {
	e.T.Helper()
	body := map[string]any{"subject": subject, "description": description}
	if priority != "" {
		body["priority"] = priority
	}
	return e.Do("POST", "/api/tickets/submit", cred, body).Must(e.T, http.StatusCreated).Get("data")
}

// awaitTriage polls a ticket until the tech-support agent has triaged it.
func (e *env) awaitTriage(cred, id string) apitest.JSON {
	e.T.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		t := e.Do("GET", "/api/tickets/"+id, cred, nil).Must(e.T, http.StatusOK).Get("data")
		if !t.Get("triage_status").Is("pending") {
			return t
		}
		if time.Now().After(deadline) {
			e.T.Fatalf("ticket %s still untriaged: %v", id, t)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTicketTriage(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	sub := e.submitTicket(admin.Token, "Locked out of my account",
		"I typed my password wrong a few times and now my account is locked out. I can't log in to Windows.", "")
	if sub.Get("status").Str() != "open" || sub.Get("triage_status").Str() != "pending" || !sub.Get("ai_triage").IsNull() || sub.Get("priority").Str() != "medium" ||
		!strings.HasPrefix(sub.Get("id").Str(), "tkt_") || !strings.HasPrefix(sub.Get("triage_run_id").Str(), "run_") {
		t.Fatalf("submitted ticket: %v", sub)
	}
	tk := e.awaitTriage(admin.Token, sub.Get("id").Str())
	triage := tk.Get("ai_triage")
	if tk.Get("triage_status").Str() != "completed" || tk.Get("status").Str() != "open" || triage.Get("category").Str() != "account_lockout" ||
		triage.Get("confidence").Float() < 0.6 || triage.Get("suggested_priority").Is("") {
		t.Fatalf("triage: %v", tk)
	}
	steps := tk.Get("ai_resolution_steps").List()
	thread := tk.Get("thread").List()
	// The steps are the technician's runbook; the requester's reply is its own text.
	if len(steps) < 5 || len(thread) != 1 || thread[0].Get("author_kind").Str() != "agent" ||
		strings.Contains(thread[0].Get("body").Str(), steps[0].MustStr(t)) || !strings.Contains(thread[0].Get("body").Str(), "a technician has the steps") {
		t.Fatalf("steps %v, thread %v", steps, thread)
	}
	if len(tk.Get("escalation_log").MustList(t)) != 0 || len(tk.Get("status_history").MustList(t)) != 0 {
		t.Fatalf("a confident triage escalated: %v", tk)
	}
	// The triage run is an ordinary tech-support execution.
	run := e.awaitRun(admin.Token, "tech-support", sub.Get("triage_run_id").Str(), "completed")
	if !run.Get("output", "applied_to_ticket").Bool() {
		t.Fatalf("triage run: %v", run)
	}
}

func TestTicketEscalation(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	member := e.Member(admin, "bob@acme.test", "member")
	sub := e.submitTicket(member.Token, "Help", "It does not work since this morning.", "low")
	tk := e.awaitTriage(member.Token, sub.Get("id").MustStr(t))
	if tk.Get("status").Str() != "escalated" {
		t.Fatalf("a vague ticket was not escalated: %v", tk)
	}
	log := tk.Get("escalation_log").List()
	hist := tk.Get("status_history").List()
	if len(log) != 1 || log[0].Get("by").Str() != "tech-support" || log[0].Get("confidence").MustFloat(t) >= 0.6 ||
		len(hist) != 1 || hist[0].Get("from").Str() != "open" || hist[0].Get("to").Str() != "escalated" {
		t.Fatalf("escalation log %v, history %v", log, hist)
	}
	notes := e.Do("GET", "/api/notifications", admin.Token, nil).Must(t, http.StatusOK)
	if len(notes.List()) != 1 {
		t.Fatalf("admin notifications: %s", notes.Raw)
	}
	n := notes.Get("data", "0")
	if n.Get("kind").Str() != "ticket_escalated" || !n.Get("ref").Equal(sub.Get("id")) || !strings.HasPrefix(n.Get("id").Str(), "ntf_") || n.Get("title").Str() != "Ticket escalated: Help" {
		t.Fatalf("notification: %v", n)
	}
	if got := e.Do("GET", "/api/notifications", member.Token, nil).Must(t, http.StatusOK).List(); len(got) != 0 {
		t.Fatalf("a member sees the admins' notifications: %v", got)
	}
	other := e.Register("zoe@other.test", "Other")
	if got := e.Do("GET", "/api/notifications", other.Token, nil).Must(t, http.StatusOK).List(); len(got) != 0 {
		t.Fatalf("another organization sees the notification: %v", got)
	}
}

func TestTicketVisibility(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	bob := e.Member(admin, "bob@acme.test", "member")
	cat := e.Member(admin, "cat@acme.test", "member")
	readKey := e.APIKey(admin, "read")
	stranger := e.Register("zoe@other.test", "Other")
	bobs := e.submitTicket(bob.Token, "Printer jam", "The office printer shows a paper jam.", "low").Get("id").MustStr(t)
	cats := e.submitTicket(cat.Token, "VPN drops", "My VPN disconnects every few minutes.", "high").Get("id").MustStr(t)
	e.awaitTriage(bob.Token, bobs)
	e.awaitTriage(cat.Token, cats)

	ids := func(cred, query string) []string {
		var out []string
		for _, item := range e.Do("GET", "/api/tickets"+query, cred, nil).Must(t, http.StatusOK).Get("data").List() {
			out = append(out, item.Get("id").MustStr(t))
		}
		return out
	}
	cases := []struct {
		name, cred, query string
		want              []string
	}{
		{"admin sees all, newest first", admin.Token, "", []string{cats, bobs}},
		{"API key sees all", readKey, "", []string{cats, bobs}},
		{"member sees own", bob.Token, "", []string{bobs}},
		{"other member sees own", cat.Token, "", []string{cats}},
		{"another organization sees none", stranger.Token, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ids(c.cred, c.query); strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("tickets %v, want %v", got, c.want)
			}
		})
	}
	e.Do("PATCH", "/api/tickets/"+bobs, admin.Token, map[string]string{"status": "resolved"}).Must(t, 200)
	if got := ids(admin.Token, "?status=open"); strings.Join(got, ",") != cats {
		t.Fatalf("open tickets %v", got)
	}
	if got := ids(admin.Token, "?status=resolved"); strings.Join(got, ",") != bobs {
		t.Fatalf("resolved tickets %v", got)
	}
	// Assigned to a member, a ticket becomes visible to them.
	e.Do("GET", "/api/tickets/"+cats, bob.Token, nil).WantError(t, 404, "not_found", "")
	e.Do("PATCH", "/api/tickets/"+cats, admin.Token, map[string]string{"assignee": bob.ID}).Must(t, 200)
	e.Do("GET", "/api/tickets/"+cats, bob.Token, nil).Must(t, 200)
	if got := ids(bob.Token, ""); strings.Join(got, ",") != cats+","+bobs {
		t.Fatalf("bob's tickets once assigned: %v", got)
	}
	e.Do("PATCH", "/api/tickets/"+cats, admin.Token, map[string]any{"assignee": nil}).Must(t, 200)
	e.Do("GET", "/api/tickets/"+cats, bob.Token, nil).WantError(t, 404, "not_found", "")
	e.Do("GET", "/api/tickets/"+cats, stranger.Token, nil).WantError(t, 404, "not_found", "")
	e.Do("POST", "/api/tickets/"+cats+"/messages", bob.Token, map[string]string{"body": "me too"}).WantError(t, 404, "not_found", "")
	e.Do("PATCH", "/api/tickets/"+cats, stranger.Token, map[string]string{"status": "closed"}).WantError(t, 404, "not_found", "")
	e.Do("GET", "/api/tickets/"+cats, admin.Token, nil).Must(t, 200)
	e.Do("GET", "/api/tickets?status=waiting", admin.Token, nil).WantFields(t, "status")
	e.Do("GET", "/api/tickets?limit=-1", admin.Token, nil).WantFields(t, "limit")
}

func TestTicketUpdatesAndMessages(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	bob := e.Member(admin, "bob@acme.test", "member")
	stranger := e.Register("zoe@other.test", "Other")
	id := e.submitTicket(bob.Token, "Backup failed", "Last night's backup job failed with an error.", "medium").Get("id").MustStr(t)
	path := "/api/tickets/" + id
	e.awaitTriage(bob.Token, id)

	steps := []struct {
		name   string
		cred   string
		body   map[string]any
		status int
		fields []string
	}{
		{"empty change", admin.Token, map[string]any{}, 400, []string{"status"}},
		{"bad status", admin.Token, map[string]any{"status": "waiting"}, 400, []string{"status"}},
		{"bad priority", admin.Token, map[string]any{"priority": "urgent"}, 400, []string{"priority"}},
		{"assignee of another organization", admin.Token, map[string]any{"assignee": stranger.ID}, 400, []string{"assignee"}},
		{"assignee not a string", admin.Token, map[string]any{"assignee": 5}, 400, []string{"assignee"}},
		{"unknown field", admin.Token, map[string]any{"owner": "x"}, 400, []string{"owner"}},
		{"member may not reprioritise", bob.Token, map[string]any{"priority": "high"}, 403, nil},
		{"member may not start work", bob.Token, map[string]any{"status": "in_progress"}, 403, nil},
		{"admin takes it", admin.Token, map[string]any{"status": "in_progress", "assignee": admin.ID, "priority": "high", "note": "on it"}, 200, nil},
		{"admin resolves", admin.Token, map[string]any{"status": "resolved", "note": "re-ran the job"}, 200, nil},
		{"resolved cannot go back to work", admin.Token, map[string]any{"status": "in_progress"}, 409, nil},
		{"member reopens own", bob.Token, map[string]any{"status": "open", "note": "failed again"}, 200, nil},
		{"member closes own", bob.Token, map[string]any{"status": "closed"}, 200, nil},
		{"closed cannot be resolved", admin.Token, map[string]any{"status": "resolved"}, 409, nil},
		{"unassign", admin.Token, map[string]any{"assignee": nil}, 200, nil},
	}
	for _, s := range steps {
		r := e.Do("PATCH", path, s.cred, s.body)
		switch {
		case s.fields != nil:
			r.WantFields(t, s.fields...)
		case s.status == 200:
			r.Must(t, 200)
		case s.status == 403:
			r.WantError(t, 403, "forbidden", "")
		case s.status == 409:
			r.WantError(t, 409, "conflict", "")
		}
		if t.Failed() {
			t.Fatalf("step %q", s.name)
		}
	}
	tk := e.Do("GET", path, bob.Token, nil).Must(t, 200).Get("data")
	var changes []string
	for _, m := range tk.Get("status_history").MustList(t) {
		from := m.Get("from").Str()
		to := m.Get("to").Str()
		changes = append(changes, m.Get("field").MustStr(t)+":"+from+">"+to)
	}
	want := []string{"priority:medium>high", "assignee:>" + admin.ID, "status:open>in_progress", "status:in_progress>resolved",
		"status:resolved>open", "status:open>closed", "assignee:" + admin.ID + ">"}
	if strings.Join(changes, " ") != strings.Join(want, " ") {
		t.Fatalf("history\n%v\nwant\n%v", changes, want)
	}
	if tk.Get("status").Str() != "closed" || !tk.Get("assignee").IsNull() || tk.Get("priority").Str() != "high" || tk.Get("resolved_at").IsNull() {
		t.Fatalf("ticket after updates: %v", tk)
	}

	e.Do("POST", path+"/messages", bob.Token, map[string]string{"body": ""}).WantFields(t, "body")
	e.Do("POST", path+"/messages", bob.Token, map[string]string{"body": "bad \x00 byte"}).WantFields(t, "body")
	m := e.Do("POST", path+"/messages", bob.Token, map[string]string{"body": "Thanks, it works now."}).Must(t, http.StatusCreated).Data()
	if m["author"] != bob.ID || m["author_kind"] != "user" {
		t.Fatalf("message: %v", m)
	}
	key := e.APIKey(admin, "write")
	e.Do("POST", path+"/messages", key, map[string]string{"body": "Closing note from the PSA sync."}).Must(t, http.StatusCreated)
	thread := e.Do("GET", path, admin.Token, nil).Must(t, 200).Get("data", "thread").List()
	if len(thread) != 3 || thread[1].Get("body").Str() != "Thanks, it works now." || thread[2].Get("author_kind").Str() != "apikey" {
		t.Fatalf("thread: %v", thread)
	}
}

func TestTicketSubmitValidation(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
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
			e.Do("POST", "/api/tickets/submit", admin.Token, c.body).WantFields(t, c.fields...)
		})
	}
	// Each fault says what it is: a subject that is there but too long is
	// not reported missing.
	for body, want := range map[string]string{
		`{"description":"d"}`: "subject is required",
		`{"subject":"` + strings.Repeat("é", 101) + `","description":"d"}`: "subject must be at most 200 bytes (it has 202)",
		`{"subject":"a\nb","description":"d"}`:                             "subject must be one line",
	} {
		r := e.Do("POST", "/api/tickets/submit", admin.Token, body)
		r.WantFields(t, "subject")
		if msg := r.Str("error"); !strings.Contains(msg, want) {
			t.Errorf("%s: error %q, want it to say %q", body, msg, want)
		}
	}
	if n := e.Do("GET", "/api/tickets", admin.Token, nil).Must(t, 200).Get("pagination", "total"); !n.Is(0) {
		t.Fatalf("refused tickets were stored: %v", n)
	}
	e.Do("GET", "/api/tickets/tkt_00000000000000000000000000", admin.Token, nil).WantError(t, 404, "not_found", "")
}

func TestTicketTriageRunsArePrivate(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	bob := e.Member(admin, "bob@acme.test", "member")
	cat := e.Member(admin, "cat@acme.test", "member")
	e.StopRunner() // runs stay queued
	tk := e.submitTicket(bob.Token, "Printer jam", "The office printer shows a paper jam.", "low")
	runID := tk.Get("triage_run_id").MustStr(t)

	e.Do("POST", "/api/agents/tech-support/execute", cat.Token, map[string]any{"ticket_id": tk.Get("id").Any()}).WantError(t, 404, "not_found", "")
	e.Do("GET", "/api/agents/tech-support/executions/"+runID, cat.Token, nil).WantError(t, 404, "not_found", "")
	e.Do("POST", "/api/agents/tech-support/executions/"+runID+"/cancel", cat.Token, nil).WantError(t, 404, "not_found", "")
	if got := e.Do("GET", "/api/agents/tech-support/executions", cat.Token, nil).Must(t, 200).List(); len(got) != 0 {
		t.Fatalf("a member lists another's triage runs: %v", got)
	}
	if got := e.Do("GET", "/api/agents/tech-support/executions", bob.Token, nil).Must(t, 200).List(); len(got) != 1 {
		t.Fatalf("the submitter's runs: %v", got)
	}
	e.Do("POST", "/api/agents/tech-support/execute", bob.Token, map[string]any{"ticket_id": tk.Get("id").Any()}).Must(t, http.StatusAccepted)

	// Cancelling the triage leaves the ticket to a human.
	e.Do("POST", "/api/agents/tech-support/executions/"+runID+"/cancel", admin.Token, nil).Must(t, 200)
	got := e.Do("GET", "/api/tickets/"+tk.Get("id").MustStr(t), bob.Token, nil).Must(t, 200).Get("data")
	if got.Get("status").Str() != "escalated" || got.Get("triage_status").Str() != "failed" ||
		got.Get("escalation_log", "0", "reason").Str() != "Automatic triage cancelled; a technician needs to review this ticket." {
		t.Fatalf("ticket after its triage was cancelled: %v", got)
	}
	// The submitter cannot take it out of the human queue, only close it.
	e.Do("PATCH", "/api/tickets/"+tk.Get("id").MustStr(t), bob.Token, map[string]string{"status": "open"}).WantError(t, 403, "forbidden", "")
	e.Do("PATCH", "/api/tickets/"+tk.Get("id").MustStr(t), bob.Token, map[string]string{"status": "closed"}).Must(t, 200)
	e.Do("PATCH", "/api/tickets/"+tk.Get("id").MustStr(t), bob.Token, map[string]string{"status": "open"}).Must(t, 200)
	notes := e.Do("GET", "/api/notifications", admin.Token, nil).Must(t, 200).Get("data").List()
	if len(notes) != 1 || notes[0].Get("kind").Str() != "ticket_escalated" {
		t.Fatalf("notifications: %v", notes)
	}
}

func TestTicketSubmitSpendsTheRunBudget(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	e.UseLimits(strings.Replace(apitest.GenerousLimits, "agent-runs=100000/1m", "agent-runs=2/1m", 1), nil)
	e.submitTicket(admin.Token, "VPN", "The VPN drops.", "")
	e.Do("POST", "/api/agents/onboarding/execute", admin.Token, nil).Must(t, http.StatusAccepted)
	e.Do("POST", "/api/tickets/submit", admin.Token, map[string]string{"subject": "VPN", "description": "Still drops."}).
		WantError(t, http.StatusTooManyRequests, "rate_limited", "")
	if n := e.Do("GET", "/api/tickets", admin.Token, nil).Must(t, 200).Get("pagination", "total"); n.Float() != 1 {
		t.Fatalf("%v tickets after a refused submit", n)
	}
}
