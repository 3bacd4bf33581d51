package handlers

import (
	"context"
	"net/http"

	"garrison/audit"
	"garrison/store"
	"garrison/timestamp"
)

// auditNote is what a handler tells the audit log beyond the principal:
// the account a public route acted on, and details.
type auditNote struct {
	orgID, actor, target string
	detail               map[string]string
	recorded             bool // the handler wrote the entry before answering
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
	action := rt.Audit
	switch {
	case n.recorded:
		return
	case status == http.StatusForbidden:
		// Someone tried what they may not: an admin route, or an audited
		// change, refused.
		action = audit.AccessDenied
		auditDetail(r, "route", rt.Method+" "+rt.Path)
		auditDetail(r, "required", rt.Access.String())
	case status >= 400 || action == "": // an admin route that changes nothing
		return
	}
	e := a.auditEntry(r, n, action)
	if e.OrgID == "" {
		return // an unknown account: the request log has it
	}
	if err := audit.Record(r.Context(), a.Store, e); err != nil {
		a.Log.Error("audit log", "request_id", e.RequestID, "action", action, "err", err)
	}
}

// auditNow writes the request's entry before the answer, for an action
// that must not succeed unrecorded (a sign-in: it writes nothing else, so
// on a full disk it would); an entry that cannot be written fails the
// request.
func (a *API) auditNow(r *http.Request, action string) error {
	n, ok := r.Context().Value(auditKey{}).(*auditNote)
	if !ok {
		return nil
	}
	e := a.auditEntry(r, n, action)
	if e.OrgID == "" {
		return nil
	}
	if err := audit.Record(r.Context(), a.Store, e); err != nil {
		return err
	}
	n.recorded = true
	return nil
}

// auditEntry is the entry of a request: who (the principal, or whom a
// public route acted on), what, on which resource, with the details the
// handler noted.
func (a *API) auditEntry(r *http.Request, n *auditNote, action string) store.AuditEntry {
	e := store.AuditEntry{OrgID: n.orgID, Actor: n.actor, Action: action, Target: n.target, Detail: n.detail, RequestID: RequestID(r.Context()),
		IP: a.clientIP(r).String()}
	if p := principalFrom(r.Context()); p.OrgID != "" {
		e.OrgID, e.Actor, e.Via = p.OrgID, p.ID, p.Via
		if p.Via != "" && p.User.Name != "" {
			e.Detail = withActorName(e.Detail, p.User.Name)
		}
	}
	if e.Target == "" {
		for _, name := range []string{"run_id", "id", "control_id"} {
			if v := r.PathValue(name); v != "" {
				e.Target = v
				break
			}
		}
	}
	return e
}

// withActorName adds the acting person's name, for an entry read in a
// log where they are not a member (a provider's staff in a client).
func withActorName(detail map[string]string, name string) map[string]string {
	if detail == nil {
		detail = map[string]string{}
	}
	detail["actor_name"] = name
	return detail
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
	var q audit.Query
	q.Action, _ = queryValue(r, "action")
	q.Actor, _ = queryValue(r, "actor")
	q.From, _ = queryValue(r, "from")
	q.To, _ = queryValue(r, "to")
	entries, total, err := audit.List(r.Context(), a.Store, principalFrom(r.Context()).OrgID, q, page)
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
