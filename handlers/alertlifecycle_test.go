package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"garrison/handlers/apitest"
)

// alertDoc is an alert as the API answers it, the lifecycle's fields typed.
type alertDoc struct {
	ID             string  `json:"id"`
	Status         string  `json:"status"`
	Disposition    *string `json:"disposition"`
	Assignee       *string `json:"assignee"`
	AcknowledgedAt *string `json:"acknowledged_at"`
	AcknowledgedBy *string `json:"acknowledged_by"`
	ResolvedBy     *string `json:"resolved_by"`
	History        []struct {
		Action      string  `json:"action"`
		Status      string  `json:"status"`
		Disposition *string `json:"disposition"`
		Assignee    *string `json:"assignee"`
		By          string  `json:"by"`
		At          string  `json:"at"`
	} `json:"history"`
}

func alertOf(t *testing.T, r apitest.Response) alertDoc {
	t.Helper()
	return apitest.Decode[struct{ Data alertDoc }](t, r).Data
}

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// seedAlerts raises n critical alerts on distinct assets and returns their ids.
func seedAlerts(t *testing.T, e *env, key string, n int) []string {
	t.Helper()
	var events []map[string]any
	for i := range n {
		events = append(events, ev(e, "threat_detected", "critical", fmt.Sprintf("ws-%02d", i), "ET MALWARE Emotet CnC", e.Clock.Now()))
	}
	e.ingest(key, events...).Must(t, http.StatusCreated)
	var ids []string
	for _, a := range e.alerts(key, "limit=200") {
		ids = append(ids, a.Get("id").Str())
	}
	if len(ids) != n {
		t.Fatalf("%d alerts, want %d", len(ids), n)
	}
	return ids
}

func TestAlertLifecycle(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	member := e.Member(admin, "bob@acme.test", "member")
	other := e.Register("eve@evil.test", "Evil")
	ids := seedAlerts(t, e, key, 2)
	id := ids[0]

	// Acknowledged once: a second acknowledgement keeps the first.
	a := alertOf(t, e.Do("POST", "/api/alerts/"+id+"/acknowledge", member.Token, nil).Must(t, http.StatusOK))
	if str(a.AcknowledgedBy) != member.ID || a.AcknowledgedAt == nil {
		t.Fatalf("acknowledged: %+v", a)
	}
	first := *a.AcknowledgedAt
	e.Clock.Advance(time.Minute)
	a = alertOf(t, e.Do("POST", "/api/alerts/"+id+"/acknowledge", admin.Token, map[string]any{}).Must(t, http.StatusOK))
	if str(a.AcknowledgedBy) != member.ID || *a.AcknowledgedAt != first {
		t.Fatalf("a second acknowledgement replaced the first: %+v", a)
	}
	e.Do("POST", "/api/alerts/"+id+"/acknowledge", other.Token, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")

	// Assigned to a user of the organization, then released.
	a = alertOf(t, e.Do("PATCH", "/api/alerts/"+id, admin.Token, map[string]any{"assignee": member.ID}).Must(t, http.StatusOK))
	if str(a.Assignee) != member.ID || a.Status != "open" {
		t.Fatalf("assigned: %+v", a)
	}
	e.Do("PATCH", "/api/alerts/"+id, admin.Token, map[string]any{"assignee": other.ID}).WantFields(t, "assignee")
	e.Do("PATCH", "/api/alerts/"+id, admin.Token, map[string]any{"assignee": 7}).WantFields(t, "assignee")

	// Resolved with a disposition; reopening clears it.
	a = alertOf(t, e.Do("PATCH", "/api/alerts/"+id, member.Token, map[string]any{"status": "resolved", "disposition": "false_positive",
		"note": "our own scanner"}).Must(t, http.StatusOK))
	if a.Status != "resolved" || str(a.Disposition) != "false_positive" || str(a.ResolvedBy) != member.ID {
		t.Fatalf("resolved: %+v", a)
	}
	a = alertOf(t, e.Do("PATCH", "/api/alerts/"+id, admin.Token, map[string]any{"status": "open", "assignee": nil}).Must(t, http.StatusOK))
	if a.Status != "open" || a.Disposition != nil || a.ResolvedBy != nil || a.Assignee != nil {
		t.Fatalf("reopened and released: %+v", a)
	}

	// The history names each action, in order.
	d := alertOf(t, e.Do("GET", "/api/alerts/"+id, key, nil).Must(t, http.StatusOK))
	var got []string
	for _, h := range d.History {
		got = append(got, h.Action+":"+h.Status+":"+str(h.Disposition)+":"+str(h.Assignee)+":"+h.By)
	}
	want := []string{"acknowledge:open:<null>:<null>:" + member.ID, "assign:open:<null>:" + member.ID + ":" + admin.ID,
		"status:resolved:false_positive:<null>:" + member.ID, "status:open:<null>:<null>:" + admin.ID, "assign:open:<null>:<null>:" + admin.ID}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Fatalf("history:\n got %v\nwant %v", got, want)
	}

	for _, tc := range []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"nothing to change", map[string]any{"note": "x"}, []string{"status"}},
		{"an unknown disposition", map[string]any{"status": "resolved", "disposition": "maybe"}, []string{"disposition"}},
		{"a disposition when reopening", map[string]any{"status": "open", "disposition": "benign"}, []string{"disposition"}},
		{"a disposition alone", map[string]any{"disposition": "benign"}, []string{"status", "disposition"}},
		{"a null status", map[string]any{"status": nil}, []string{"status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.Do("PATCH", "/api/alerts/"+ids[1], admin.Token, tc.body).WantFields(t, tc.fields...)
		})
	}
	if a := alertOf(t, e.Do("GET", "/api/alerts/"+ids[1], key, nil)); a.Status != "open" || len(a.History) != 0 {
		t.Fatalf("a refused change changed the alert: %+v", a)
	}
}

func TestAlertBulkUpdate(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	other := e.Register("eve@evil.test", "Evil")
	theirs := seedAlerts(t, e, e.APIKey(other, "write"), 1)[0]
	ids := seedAlerts(t, e, key, 4)

	for _, tc := range []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"no ids", map[string]any{"status": "resolved", "disposition": "benign"}, []string{"ids"}},
		{"an id twice", map[string]any{"ids": []string{ids[0], ids[0]}, "status": "resolved", "disposition": "benign"}, []string{"ids"}},
		{"over the limit", map[string]any{"ids": make([]string, 201), "status": "resolved", "disposition": "benign"}, []string{"ids"}},
		{"resolving without a disposition", map[string]any{"ids": ids, "status": "resolved"}, []string{"disposition"}},
		{"nothing to change", map[string]any{"ids": ids}, []string{"status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.Do("PATCH", "/api/alerts", admin.Token, tc.body).WantFields(t, tc.fields...)
		})
	}
	// Another organization's alert among them: 404, and none changed.
	e.Do("PATCH", "/api/alerts", admin.Token, map[string]any{"ids": append([]string{theirs}, ids...), "status": "resolved",
		"disposition": "benign"}).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
	if n := len(e.alerts(key, "status=open")); n != 4 {
		t.Fatalf("%d open alerts after a refused bulk change, want 4", n)
	}

	r := e.Do("PATCH", "/api/alerts", admin.Token, map[string]any{"ids": ids[:3], "status": "resolved", "disposition": "true_positive",
		"note": "contained"}).Must(t, http.StatusOK)
	out := apitest.Decode[struct {
		Data struct {
			Updated int        `json:"updated"`
			Alerts  []alertDoc `json:"alerts"`
		}
	}](t, r).Data
	if out.Updated != 3 || len(out.Alerts) != 3 {
		t.Fatalf("bulk answer: %+v", out)
	}
	for _, a := range out.Alerts {
		if a.Status != "resolved" || str(a.Disposition) != "true_positive" {
			t.Fatalf("bulk-resolved alert: %+v", a)
		}
	}
	if n := len(e.alerts(key, "status=open")); n != 1 {
		t.Fatalf("%d open alerts, want 1", n)
	}
	// One audit entry names them all.
	entries := e.Do("GET", "/api/audit-log?action=alert.update", admin.Token, nil).Must(t, http.StatusOK).Get("data").List()
	if len(entries) != 1 || entries[0].Get("detail", "alerts").Str() != strings.Join(ids[:3], ",") ||
		entries[0].Get("detail", "disposition").Str() != "true_positive" {
		t.Fatalf("audit entries: %v", entries)
	}
}

func TestTicketFromAlert(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	key := e.APIKey(admin, "write")
	reader := e.APIKey(admin, "read")
	other := e.Register("eve@evil.test", "Evil")
	id := seedAlerts(t, e, key, 1)[0]

	tk := e.Do("POST", "/api/alerts/"+id+"/ticket", admin.Token, nil).Must(t, http.StatusCreated)
	if tk.Str("data", "alert_id") != id || tk.Str("data", "priority") != "high" ||
		!strings.HasPrefix(tk.Str("data", "subject"), "[CRITICAL] ET MALWARE Emotet CnC on ws-00") ||
		!strings.Contains(tk.Str("data", "description"), "Recommended first step: Isolate ws-00") {
		t.Fatalf("ticket: %s", tk.Raw)
	}
	ticketID := tk.Str("data", "id")
	if a := e.Do("GET", "/api/alerts/"+id, key, nil).Must(t, http.StatusOK); a.Str("data", "ticket_id") != ticketID {
		t.Fatalf("the alert does not name its ticket: %s", a.Raw)
	}
	if got := e.Do("GET", "/api/tickets/"+ticketID, admin.Token, nil).Must(t, http.StatusOK); got.Str("data", "alert_id") != id {
		t.Fatalf("the ticket does not name its alert: %s", got.Raw)
	}
	again := e.Do("POST", "/api/alerts/"+id+"/ticket", key, nil)
	again.WantError(t, http.StatusConflict, "conflict", "This alert has a ticket already")
	if again.Str("existing_id") != ticketID {
		t.Fatalf("the conflict does not name the ticket: %s", again.Raw)
	}
	e.Do("POST", "/api/alerts/"+id+"/ticket", reader, nil).Must(t, http.StatusForbidden)
	e.Do("POST", "/api/alerts/"+id+"/ticket", other.Token, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
	e.Do("POST", "/api/alerts/"+id+"/ticket", admin.Token, map[string]any{"subject": "x"}).WantFields(t, "subject")
	if entry := findAudit(t, e, admin.Token, "alert.ticket"); entry.Get("target").Str() != id || entry.Get("detail", "ticket").Str() != ticketID {
		t.Fatalf("audit: %v", entry.Any())
	}
}
