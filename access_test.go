package main

import (
	"net/http"
	"strings"
	"testing"

	"garrison/handlers"
)

// caller is one kind of credential a route must answer correctly.
type caller struct {
	name  string
	cred  string
	level handlers.Access // the highest access it holds
	user  bool            // a session token rather than an API key
}

func callers(e *testEnv) (admin account, cs []caller) {
	admin = e.register("ann@acme.test", "Acme")
	member := e.member(admin, "bob@acme.test", "member")
	return admin, []caller{
		{"anonymous", "", handlers.Public, false},
		{"read key", e.apiKey(admin, "read"), handlers.Read, false},
		{"write key", e.apiKey(admin, "write"), handlers.Write, false},
		{"admin key", e.apiKey(admin, "admin"), handlers.Admin, false},
		{"member", member.token, handlers.Write, true},
		{"admin", admin.token, handlers.Admin, true},
	}
}

// expectedStatus is what a caller must get from a route before the route's
// own logic runs: 401 without a credential, 403 below the route's access.
func expectedStatus(rt handlers.Route, c caller) (int, string) {
	switch {
	case rt.Access == handlers.Public:
		return 0, ""
	case c.cred == "":
		return http.StatusUnauthorized, "No authorization token provided"
	case rt.Access == handlers.Session && !c.user:
		return http.StatusForbidden, ""
	case rt.Access == handlers.Session:
		return 0, ""
	case c.level < rt.Access && !c.user:
		return http.StatusForbidden, "Insufficient permissions. Required scope: " + rt.Access.String()
	case c.level < rt.Access:
		return http.StatusForbidden, "Insufficient permissions. Required role: " + rt.Access.String()
	}
	return 0, ""
}

// TestEveryRouteAccess drives every route of the table with every kind of
// caller: a route added without a correct access level fails here.
func TestEveryRouteAccess(t *testing.T) {
	e := newTestEnv(t)
	_, cs := callers(e)
	for _, rt := range e.app.api.Routes() {
		for _, c := range cs {
			want, msg := expectedStatus(rt, c)
			if want == 0 {
				continue // allowed: the route's own tests cover what it does
			}
			path := strings.NewReplacer("{id}", "x").Replace(rt.Path)
			t.Run(rt.Method+" "+rt.Path+" as "+c.name, func(t *testing.T) {
				r := e.do(rt.Method, path, c.cred, map[string]any{})
				code := "unauthorized"
				if want == http.StatusForbidden {
					code = "forbidden"
				}
				r.wantError(t, want, code, msg)
			})
		}
	}
}

// TestScopeMatrix: read, write and admin keys against a read, a write and an
// admin action, succeeding or refused with the scope named.
func TestScopeMatrix(t *testing.T) {
	e := newTestEnv(t)
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
				r := e.do(act.method, act.path, c.cred, body)
				if c.level >= act.access {
					want := act.ok
					if want == 0 {
						want = http.StatusCreated
					}
					r.must(t, want)
					return
				}
				if c.user {
					r.wantError(t, http.StatusForbidden, "forbidden", "Insufficient permissions. Required role: admin")
				} else {
					r.wantError(t, http.StatusForbidden, "forbidden", "Insufficient permissions. Required scope: "+act.access.String())
				}
			})
		}
	}
}
