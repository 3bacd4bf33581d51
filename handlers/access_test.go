package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"garrison/handlers"
	"garrison/handlers/apitest"
)

// caller is one kind of credential a route must answer correctly.
type caller struct {
	name  string
	cred  string
	level handlers.Access // the highest access it holds
	user  bool            // a session token rather than an API key
}

func callers(e *env) (admin apitest.Account, cs []caller) {
	admin = e.Register("ann@acme.test", "Acme")
	member := e.Member(admin, "bob@acme.test", "member")
	return admin, []caller{
		{"anonymous", "", handlers.Public, false},
		{"read key", e.APIKey(admin, "read"), handlers.Read, false},
		{"write key", e.APIKey(admin, "write"), handlers.Write, false},
		{"admin key", e.APIKey(admin, "admin"), handlers.Admin, false},
		{"member", member.Token, handlers.Write, true},
		{"admin", admin.Token, handlers.Admin, true},
	}
}

// routeAccess is the access every route must demand, written out by hand:
// the route table is checked against it, never against itself. A route
// missing here fails TestEveryRouteAccess.
var routeAccess = map[string]handlers.Access{
	"GET /api/dashboard/health":                               handlers.Public,
	"GET /api/openapi.json":                                   handlers.Public,
	"POST /api/auth/register":                                 handlers.Public,
	"POST /api/auth/login":                                    handlers.Public,
	"POST /api/auth/logout":                                   handlers.Session,
	"POST /api/auth/logout-all":                               handlers.Session,
	"POST /api/auth/refresh":                                  handlers.Session,
	"POST /api/auth/reauthenticate":                           handlers.Session,
	"GET /api/auth/me":                                        handlers.Session,
	"POST /api/auth/switch-org":                               handlers.Session,
	"GET /api/user/profile":                                   handlers.Session,
	"POST /api/auth/change-password":                          handlers.Session,
	"POST /api/auth/reset-request":                            handlers.Public,
	"POST /api/auth/reset-password":                           handlers.Public,
	"POST /api/auth/reset-confirm":                            handlers.Public,
	"POST /api/auth/verify-email":                             handlers.Public,
	"GET /api/api-keys":                                       handlers.Admin,
	"POST /api/api-keys":                                      handlers.Admin,
	"DELETE /api/api-keys/{id}":                               handlers.Admin,
	"GET /api/org":                                            handlers.Read,
	"GET /api/org/invites":                                    handlers.Admin,
	"POST /api/org/invites":                                   handlers.Admin,
	"GET /api/org/members":                                    handlers.Read,
	"PATCH /api/org/members/{id}":                             handlers.Admin,
	"DELETE /api/org/members/{id}":                            handlers.Admin,
	"GET /api/org/members/{id}/clients":                       handlers.Admin,
	"PUT /api/org/members/{id}/clients":                       handlers.Admin,
	"GET /api/clients":                                        handlers.Read,
	"POST /api/clients":                                       handlers.Admin,
	"GET /api/clients/alerts":                                 handlers.Read,
	"GET /api/clients/exposure":                               handlers.Read,
	"GET /api/clients/{id}":                                   handlers.Read,
	"PATCH /api/clients/{id}":                                 handlers.Admin,
	"DELETE /api/clients/{id}":                                handlers.Admin,
	"POST /api/events":                                        handlers.Write,
	"GET /api/events":                                         handlers.Read,
	"GET /api/events/export":                                  handlers.Read,
	"GET /api/events/{id}":                                    handlers.Read,
	"GET /api/dashboard/events":                               handlers.Read,
	"POST /api/webhooks/{source}":                             handlers.Webhook,
	"GET /api/alerts":                                         handlers.Read,
	"GET /api/alerts/{id}":                                    handlers.Read,
	"PATCH /api/alerts":                                       handlers.Write,
	"PATCH /api/alerts/{id}":                                  handlers.Write,
	"POST /api/alerts/{id}/acknowledge":                       handlers.Write,
	"POST /api/alerts/{id}/ticket":                            handlers.Write,
	"GET /api/alert-suppressions":                             handlers.Read,
	"POST /api/alert-suppressions":                            handlers.Write,
	"GET /api/alert-suppressions/{id}":                        handlers.Read,
	"DELETE /api/alert-suppressions/{id}":                     handlers.Write,
	"GET /api/incidents":                                      handlers.Read,
	"GET /api/findings":                                       handlers.Read,
	"GET /api/findings/{id}":                                  handlers.Read,
	"GET /api/findings/priorities":                            handlers.Read,
	"PATCH /api/findings/{id}":                                handlers.Write,
	"GET /api/incidents/{id}":                                 handlers.Read,
	"GET /api/detection-rules":                                handlers.Read,
	"POST /api/detection-rules":                               handlers.Admin,
	"GET /api/detection-rules/{id}":                           handlers.Read,
	"PUT /api/detection-rules/{id}":                           handlers.Admin,
	"DELETE /api/detection-rules/{id}":                        handlers.Admin,
	"GET /api/detection-rule-sets":                            handlers.Read,
	"PUT /api/detection-rule-sets/{set}":                      handlers.Admin,
	"GET /api/threats":                                        handlers.Read,
	"GET /api/threats/summary":                                handlers.Read,
	"GET /api/dashboard/overview":                             handlers.Read,
	"GET /api/dashboard/security-score":                       handlers.Read,
	"GET /api/dashboard/stats":                                handlers.Read,
	"GET /api/dashboard/risk-timeline":                        handlers.Read,
	"GET /api/dashboard/daily-summary":                        handlers.Read,
	"GET /api/dashboard/network-health":                       handlers.Read,
	"GET /api/agents":                                         handlers.Read,
	"POST /api/agents/run":                                    handlers.Write,
	"POST /api/agents/{id}/execute":                           handlers.Write,
	"GET /api/agents/{id}/executions":                         handlers.Read,
	"GET /api/agents/{id}/executions/{run_id}":                handlers.Read,
	"POST /api/agents/{id}/executions/{run_id}/cancel":        handlers.Write,
	"POST /api/tickets/submit":                                handlers.Write,
	"GET /api/tickets":                                        handlers.Read,
	"GET /api/tickets/{id}":                                   handlers.Read,
	"PATCH /api/tickets/{id}":                                 handlers.Write,
	"POST /api/tickets/{id}/messages":                         handlers.Write,
	"GET /api/notifications":                                  handlers.Read,
	"GET /api/compliance":                                     handlers.Read,
	"POST /api/compliance/audit":                              handlers.Write,
	"GET /api/compliance/audits":                              handlers.Read,
	"GET /api/compliance/audits/{id}":                         handlers.Read,
	"GET /api/compliance/audits/{id}/download":                handlers.Read,
	"PATCH /api/compliance/controls/{framework}/{control_id}": handlers.Admin,
	"GET /api/compliance/templates":                           handlers.Read,
	"GET /api/compliance/templates/{id}/download":             handlers.Read,
	"POST /api/compliance/templates/{id}/adopt":               handlers.Write,
	"POST /api/compliance/remediate":                          handlers.Write,
	"GET /api/cve-watchlist":                                  handlers.Read,
	"POST /api/cve-watchlist":                                 handlers.Write,
	"GET /api/cve-watchlist/{id}":                             handlers.Read,
	"DELETE /api/cve-watchlist/{id}":                          handlers.Write,
	"GET /api/assets":                                         handlers.Read,
	"POST /api/assets":                                        handlers.Write,
	"POST /api/assets/import":                                 handlers.Write,
	"GET /api/assets/{id}":                                    handlers.Read,
	"PATCH /api/assets/{id}":                                  handlers.Write,
	"DELETE /api/assets/{id}":                                 handlers.Write,
	"POST /api/intel/import":                                  handlers.Admin,
	"GET /api/intel/status":                                   handlers.Read,
	"POST /api/notifications/{id}/read":                       handlers.Read,
	"GET /api/notifications/deliveries":                       handlers.Admin,
	"GET /api/notification-channels":                          handlers.Admin,
	"POST /api/notification-channels":                         handlers.Admin,
	"GET /api/notification-channels/{id}":                     handlers.Admin,
	"PATCH /api/notification-channels/{id}":                   handlers.Admin,
	"DELETE /api/notification-channels/{id}":                  handlers.Admin,
	"POST /api/notification-channels/{id}/test":               handlers.Admin,
	"GET /api/notification-rules":                             handlers.Admin,
	"POST /api/notification-rules":                            handlers.Admin,
	"GET /api/notification-rules/{id}":                        handlers.Admin,
	"PUT /api/notification-rules/{id}":                        handlers.Admin,
	"DELETE /api/notification-rules/{id}":                     handlers.Admin,
	"POST /api/outreach/prospects":                            handlers.Write,
	"DELETE /api/org":                                         handlers.Admin,
	"GET /api/audit-log":                                      handlers.Admin,
	"GET /api/outreach/prospects":                             handlers.Read,
	"GET /api/outreach/leads":                                 handlers.Read,
	"GET /api/outreach/leads/{id}":                            handlers.Read,
	"PATCH /api/outreach/leads/{id}/status":                   handlers.Write,
	"POST /api/outreach/leads/{id}/convert":                   handlers.Admin,
}

// expectedStatus is what a caller must get from a route before the route's
// own logic runs: 401 without a credential, 403 below the route's access.
func expectedStatus(access handlers.Access, c caller) (int, string) {
	switch {
	case access == handlers.Public:
		return 0, ""
	case c.cred == "":
		return http.StatusUnauthorized, "No authorization token provided"
	case access == handlers.Session && !c.user:
		return http.StatusForbidden, ""
	case access == handlers.Session:
		return 0, ""
	case access == handlers.Webhook && c.user:
		return http.StatusForbidden, "Webhooks take an API key of write scope, not a session token"
	case access == handlers.Webhook:
		access = handlers.Write
	case c.level < access && !c.user:
		return http.StatusForbidden, "Insufficient permissions. Required scope: " + access.String()
	case c.level < access:
		return http.StatusForbidden, "Insufficient permissions. Required role: " + access.String()
	}
	return 0, ""
}

// TestEveryRouteAccess drives every route of the table with every kind of
// caller: a route added without a correct access level fails here.
func TestEveryRouteAccess(t *testing.T) {
	e := newEnv(t)
	_, cs := callers(e)
	routes := e.API.Routes()
	if len(routes) != len(routeAccess) {
		t.Errorf("%d routes, %d in routeAccess: add the new ones there", len(routes), len(routeAccess))
	}
	for _, rt := range routes {
		access, ok := routeAccess[rt.Method+" "+rt.Path]
		if !ok {
			t.Errorf("%s %s has no expected access in routeAccess", rt.Method, rt.Path)
			continue
		}
		for _, c := range cs {
			want, msg := expectedStatus(access, c)
			if want == 0 {
				continue // allowed: the route's own tests cover what it does
			}
			path := strings.NewReplacer("{id}", "x", "{run_id}", "x", "{framework}", "soc2", "{control_id}", "x").Replace(rt.Path)
			t.Run(rt.Method+" "+rt.Path+" as "+c.name, func(t *testing.T) {
				r := e.Do(rt.Method, path, c.cred, map[string]any{})
				code := "unauthorized"
				if want == http.StatusForbidden {
					code = "forbidden"
				}
				r.WantError(t, want, code, msg)
			})
		}
	}
}

// TestScopeMatrix: read, write and admin keys and users against read, write
// and admin actions, succeeding or refused with the scope (spec §5) or role named.
func TestScopeMatrix(t *testing.T) {
	e := newEnv(t)
	_, cs := callers(e)
	actions := []struct {
		name   string
		method string
		path   string
		body   any
		access handlers.Access
		ok     int
	}{
		{"read: GET /org", "GET", "/api/org", nil, handlers.Read, http.StatusOK},
		{"read: GET /org/members", "GET", "/api/org/members", nil, handlers.Read, http.StatusOK},
		{"write: POST /events", "POST", "/api/events", map[string]string{"type": "threat_detected", "severity": "low",
			"timestamp": "2026-11-21T11:00:00Z", "source": "ids", "asset": "ws-1", "message": "m"}, handlers.Write, http.StatusCreated},
		{"admin: POST /api-keys", "POST", "/api/api-keys", map[string]string{"name": "k", "scope": "read"}, handlers.Admin, http.StatusCreated},
		{"admin: POST /org/invites", "POST", "/api/org/invites", nil, handlers.Admin, 0},
		{"admin: GET /api-keys", "GET", "/api/api-keys", nil, handlers.Admin, http.StatusOK},
	}
	for _, act := range actions {
		for _, c := range cs[1:] {
			t.Run(act.name+" as "+c.name, func(t *testing.T) {
				body := act.body
				if act.ok == 0 {
					n := strings.ReplaceAll(c.name, " ", "-")
					body = map[string]string{"email": n + "@invitee.test", "role": "member"}
				}
				r := e.Do(act.method, act.path, c.cred, body)
				if c.level >= act.access {
					want := act.ok
					if want == 0 {
						want = http.StatusCreated
					}
					r.Must(t, want)
					return
				}
				if c.user {
					r.WantError(t, http.StatusForbidden, "forbidden", "Insufficient permissions. Required role: admin")
				} else {
					r.WantError(t, http.StatusForbidden, "forbidden", "Insufficient permissions. Required scope: "+act.access.String())
				}
			})
		}
	}
}
