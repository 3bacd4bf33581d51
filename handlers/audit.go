package handlers

import (
	"context"
	"net/http"

	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// auditedRoutes are the security-relevant changes, by route, with the
// action the audit log names them by. A route is recorded when it
// succeeds; a failed login is recorded too (auth.login_failed).
var auditedRoutes = map[string]string{
	"POST /api/auth/register":                                 "auth.register",
	"POST /api/auth/login":                                    "auth.login",
	"POST /api/auth/logout":                                   "auth.logout",
	"POST /api/auth/logout-all":                               "auth.logout_all",
	"POST /api/auth/change-password":                          "auth.change_password",
	"POST /api/auth/reset-confirm":                            "auth.reset_password",
	"POST /api/auth/verify-email":                             "auth.verify_email",
	"POST /api/api-keys":                                      "api_key.create",
	"DELETE /api/api-keys/{id}":                               "api_key.revoke",
	"POST /api/org/invites":                                   "org.invite",
	"PATCH /api/org/members/{id}":                             "org.member_update",
	"DELETE /api/org/members/{id}":                            "org.member_remove",
	"DELETE /api/org":                                         "org.delete",
	"PATCH /api/alerts/{id}":                                  "alert.update",
	"PATCH /api/tickets/{id}":                                 "ticket.update",
	"POST /api/agents/run":                                    "agent_run.start",
	"POST /api/agents/{id}/execute":                           "agent_run.start",
	"POST /api/agents/{id}/executions/{run_id}/cancel":        "agent_run.cancel",
	"POST /api/compliance/audit":                              "compliance.audit",
	"PATCH /api/compliance/controls/{framework}/{control_id}": "compliance.attest",
	"POST /api/compliance/remediate":                          "compliance.remediate",
	"POST /api/intel/import":                                  "intel.import",
	"PATCH /api/outreach/leads/{id}/status":                   "lead.status",
}

// auditActions are the actions the audit log holds: the audited routes',
// a failed login's, and the plan change the CLI records (cli.go).
var auditActions = func() map[string]bool {
	m := map[string]bool{store.AuditLoginFailed: true, store.AuditPlanChange: true}
	for _, action := range auditedRoutes {
		m[action] = true
	}
	return m
}()

// auditNote is what a handler tells the audit log beyond the principal:
// the account a public route acted on, and details.
type auditNote struct {
	orgID, actor, target string
	detail               map[string]string
}

type auditKey struct{}

// noteAudit names the organization and account a public route acted on
// (login, registration), for its audit entry.
func noteAudit(r *http.Request, orgID, actor string) {
	if n, ok := r.Context().Value(auditKey{}).(*auditNote); ok {
		n.orgID, n.actor = orgID, actor
	}
}

// auditTarget names what a creating route made (its id is not in the path).
func auditTarget(r *http.Request, id string) {
	if n, ok := r.Context().Value(auditKey{}).(*auditNote); ok {
		n.target = id
	}
}

// auditDetail adds a detail to the request's audit entry.
func auditDetail(r *http.Request, key, value string) {
	if n, ok := r.Context().Value(auditKey{}).(*auditNote); ok {
		if n.detail == nil {
			n.detail = map[string]string{}
		}
		n.detail[key] = value
	}
}

// withAudit readies an audited route's request for its entry.
func withAudit(r *http.Request) (*http.Request, *auditNote) {
	n := &auditNote{}
	return r.WithContext(context.WithValue(r.Context(), auditKey{}, n)), n
}

// recordAudit writes the entry of an audited request once it is answered.
// It is written after the change commits: the log says what happened, and
// a failure to write it is logged, never turned into the request's error.
func (a *API) recordAudit(w http.ResponseWriter, r *http.Request, rt Route, n *auditNote) {
	if n == nil {
		return
	}
	rec, _ := w.(*statusRecorder)
	status := http.StatusOK
	if rec != nil && rec.status != 0 {
		status = rec.status
	}
	action := auditedRoutes[rt.Method+" "+rt.Path]
	switch {
	case status == http.StatusUnauthorized && action == "auth.login":
		action = store.AuditLoginFailed
	case status >= 400:
		return
	}
	e := store.AuditEntry{OrgID: n.orgID, Actor: n.actor, Action: action, Target: n.target, Detail: n.detail, RequestID: RequestID(r.Context()),
		IP: a.clientIP(r).String()}
	if p := principalFrom(r.Context()); p.OrgID != "" {
		e.OrgID, e.Actor = p.OrgID, p.ID
	}
	if e.Target == "" {
		for _, name := range []string{"run_id", "id", "control_id"} {
			if v := r.PathValue(name); v != "" {
				e.Target = v
				break
			}
		}
	}
	if e.OrgID == "" {
		return // an unknown account: the request log has it
	}
	if err := a.Store.AppendAudit(context.WithoutCancel(r.Context()), e); err != nil {
		a.Log.Error("audit log", "request_id", e.RequestID, "action", action, "err", err)
	}
}

type auditEntryView struct {
	ID        int64             `json:"id"`
	At        string            `json:"at"`
	Actor     string            `json:"actor"`
	IP        string            `json:"ip"`
	RequestID string            `json:"request_id"`
	Action    string            `json:"action"`
	Target    string            `json:"target"`
	Detail    map[string]string `json:"detail"`
}

// auditLog lists the organization's audit trail (admins).
func (a *API) auditLog(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	var q store.AuditQuery
	var p valid.Problems
	q.Action, _ = queryValue(r, "action")
	p.Check(q.Action == "" || auditActions[q.Action], "action", "must be one of the audit log's actions, such as auth.login or api_key.create")
	q.Actor, _ = queryValue(r, "actor")
	p.Check(len(q.Actor) <= 64, "actor", "must be at most 64 characters: a user or API key id")
	q.From, q.To = parseTimeRange(&p, r)
	if err := p.Err(); err != nil {
		return err
	}
	entries, total, err := a.Store.AuditLog(r.Context(), principalFrom(r.Context()).OrgID, q, page)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(entries, func(e store.AuditEntry) auditEntryView {
		d := e.Detail
		if d == nil {
			d = map[string]string{}
		}
		return auditEntryView{e.ID, timestamp.Format(e.At), e.Actor, e.IP, e.RequestID, e.Action, e.Target, d}
	}), total, page)
	return nil
}
