package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"garrison/handlers/apitest"
)

func TestErrorEnvelope(t *testing.T) {
	e := newEnv(t)
	admin := e.Register("ann@acme.test", "Acme")
	login := func(body string, contentType string) apitest.Response {
		return e.DoHeaders("POST", "/api/auth/login", body, map[string]string{"Content-Type": contentType})
	}
	tests := []struct {
		name   string
		r      func() apitest.Response
		status int
		code   string
		fields []string
	}{
		{"unknown path", func() apitest.Response { return e.Do("GET", "/api/nothing-here", "", nil) }, 404, "not_found", nil},
		{"API root", func() apitest.Response { return e.Do("GET", "/api/", "", nil) }, 404, "not_found", nil},
		{"v1 prefix", func() apitest.Response { return e.Do("GET", "/api/v1/dashboard/health", "", nil) }, 404, "not_found", nil},
		{"v1 prefix with credentials", func() apitest.Response { return e.Do("GET", "/api/v1/org", admin.Token, nil) }, 404, "not_found", nil},
		{"wrong method", func() apitest.Response { return e.Do("DELETE", "/api/auth/login", "", nil) }, 405, "method_not_allowed", nil},
		{"no pprof", func() apitest.Response { return e.Do("GET", "/debug/pprof/", "", nil) }, 404, "not_found", nil},
		{"no pprof under /api", func() apitest.Response { return e.Do("GET", "/api/debug/pprof/heap", admin.Token, nil) }, 404, "not_found", nil},
		{"no expvar", func() apitest.Response { return e.Do("GET", "/api/debug/vars", "", nil) }, 404, "not_found", nil},
		{"malformed JSON", func() apitest.Response { return login(`{"email":`, "application/json") }, 400, "validation_error", []string{"body"}},
		{"syntax error", func() apitest.Response { return login(`{"email" "x"}`, "application/json") }, 400, "validation_error", []string{"body"}},
		{"invalid UTF-8", func() apitest.Response { return login("{\"email\":\"\xff\xfe\"}", "application/json") }, 400, "validation_error", []string{"body"}},
		{"unknown field", func() apitest.Response {
			return login(`{"email":"a@b.co","password":"x","admin":true}`, "application/json")
		}, 400, "validation_error", []string{"admin"}},
		{"case variant", func() apitest.Response { return login(`{"Email":"a@b.co","password":"x"}`, "application/json") }, 400, "validation_error", []string{"Email"}},
		{"wrong type", func() apitest.Response { return login(`{"email":["a"],"password":"x"}`, "application/json") }, 400, "validation_error", []string{"email"}},
		{"array body", func() apitest.Response { return login(`[1,2]`, "application/json") }, 400, "validation_error", []string{"body"}},
		{"trailing data", func() apitest.Response { return login(`{"email":"a@b.co","password":"x"} {}`, "application/json") }, 400, "validation_error", []string{"body"}},
		{"text content type", func() apitest.Response { return login(`{"email":"a@b.co","password":"x"}`, "text/plain") }, 400, "validation_error", []string{"Content-Type"}},
		{"form content type", func() apitest.Response { return login(`email=a`, "application/x-www-form-urlencoded") }, 400, "validation_error", []string{"Content-Type"}},
		{"no content type", func() apitest.Response { return login(`{"email":"a@b.co","password":"x"}`, "") }, 400, "validation_error", []string{"Content-Type"}},
		{"oversize body", func() apitest.Response {
			return login(`{"email":"`+strings.Repeat("a", 1<<20)+`"}`, "application/json")
		}, 413, "payload_too_large", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r()
			if tc.fields != nil {
				r.WantFields(t, tc.fields...)
			} else {
				r.WantError(t, tc.status, tc.code, "")
			}
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			for _, leak := range []string{"sql", "SQLITE", "goroutine", ".go:", "json:", "reflect"} {
				if strings.Contains(string(r.Raw), leak) {
					t.Errorf("body leaks %q: %s", leak, r.Raw)
				}
			}
		})
	}
	t.Run("charset parameter accepted", func(t *testing.T) {
		login(`{"email":"ann@acme.test","password":"`+apitest.Password+`"}`, "application/json; charset=utf-8").Must(t, http.StatusOK)
	})
	t.Run("405 names the allowed methods", func(t *testing.T) {
		r := e.Do("POST", "/api/org/members", admin.Token, map[string]any{})
		if r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD" {
			t.Fatalf("%d Allow=%q", r.Status, r.Header.Get("Allow"))
		}
	})
}

func TestResponseHeaders(t *testing.T) {
	e := newEnv(t)
	seen := map[string]bool{}
	for _, path := range []string{"/api/dashboard/health", "/api/nothing", "/api/org"} {
		r := e.Do("GET", path, "", nil)
		id := r.Header.Get("X-Request-Id")
		if id == "" || seen[id] {
			t.Errorf("%s: X-Request-Id %q", path, id)
		}
		seen[id] = true
		if r.Header.Get("X-Content-Type-Options") != "nosniff" || r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: headers %v", path, r.Header)
		}
	}
	given := e.DoHeaders("GET", "/api/dashboard/health", nil, map[string]string{"X-Request-Id": "trace-abc.123"})
	if given.Header.Get("X-Request-Id") != "trace-abc.123" {
		t.Errorf("caller's request id not kept: %q", given.Header.Get("X-Request-Id"))
	}
	forged := e.DoHeaders("GET", "/api/dashboard/health", nil, map[string]string{"X-Request-Id": "x\" level=ERROR"})
	if strings.Contains(forged.Header.Get("X-Request-Id"), "ERROR") {
		t.Error("unsafe request id accepted")
	}
}

func TestHealth(t *testing.T) {
	e := newEnv(t)
	r := e.Do("GET", "/api/dashboard/health", "", nil).Must(t, http.StatusOK)
	if r.Body["success"] != true || r.Str("data", "status") != "ok" {
		t.Fatalf("health: %s", r.Raw)
	}
	engine := "sqlite"
	if e.Database != "" {
		engine = "postgres"
	}
	if r.Str("data", "database") != engine {
		t.Fatalf("health on %s says %s", engine, r.Raw)
	}
}

func TestUncleanPathsAreJSON404(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	// An escaped slash is part of a segment, not a separator: no route has
	// a segment "dashboard/stats".
	for _, p := range []string{"/api//org", "/api/./org", "/api/v1/../org", "/api/org/", "/api/dashboard%2Fstats", "/api%2Forg"} {
		e.Do("GET", p, a.Token, nil).WantError(t, http.StatusNotFound, "not_found", "Resource not found")
	}
}

// TestSemicolonInQueryRefused: net/url would drop the pair holding ';'
// without a word and answer unfiltered data; the API refuses it instead,
// with the rate-limit headers every answer carries.
func TestSemicolonInQueryRefused(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	for _, path := range []string{"/api/events?severity=critical;x", "/api/alerts?status=open;", "/api/org?x=1;y=2", "/api/dashboard/health?;"} {
		r := e.Do("GET", path, a.Token, nil)
		r.WantFields(t, "query")
		if r.Header.Get("X-RateLimit-Limit") == "" {
			t.Errorf("%s: no rate-limit headers", path)
		}
	}
	e.Do("GET", "/api/events?severity=critical,high", a.Token, nil).Must(t, http.StatusOK)
}

// TestMisreadQueryRefused: a broken %-escape makes net/url drop its pair,
// and a parameter given twice is read once, so either would answer with a
// filter or a bound left out; both are refused, naming what is wrong.
func TestMisreadQueryRefused(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	for _, tc := range []struct{ path, field string }{
		{"/api/alerts?severity=low%zz", "query"},
		{"/api/events?severity=info%G0", "query"},
		{"/api/alerts?status=resolved%", "query"},
		{"/api/events?limit=-5%zz", "query"},
		{"/api/org?%zz=1", "query"},
		{"/api/events?limit=1&limit=-5", "limit"},
		{"/api/dashboard/risk-timeline?days=1&days=400", "days"},
		{"/api/events?severity=high&severity=low", "severity"},
	} {
		r := e.Do("GET", tc.path, a.Token, nil)
		r.WantFields(t, tc.field)
		if r.Header.Get("X-RateLimit-Limit") == "" {
			t.Errorf("%s: no rate-limit headers", tc.path)
		}
	}
	// Escapes that decode are fine: %2C is the list's comma.
	e.Do("GET", "/api/events?severity=critical%2Chigh&limit=5", a.Token, nil).Must(t, http.StatusOK)
}

// TestCharsetMustBeUTF8: the body is read as UTF-8, so a body declared in
// another charset is refused rather than misread.
func TestCharsetMustBeUTF8(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	for ct, want := range map[string]int{"application/json; charset=latin1": 400, "application/json; charset=windows-1252": 400,
		"application/json; charset=UTF-8": 201, "application/json; charset=us-ascii": 201, "application/json": 201} {
		req, _ := http.NewRequest("POST", e.URL+"/api/tickets/submit", strings.NewReader(`{"subject":"s","description":"d"}`))
		req.Header.Set("Authorization", "Bearer "+a.Token)
		req.Header.Set("Content-Type", ct)
		res, err := e.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("%s: %d, want %d", ct, res.StatusCode, want)
		}
	}
}

// TestNullBodyRefused: a body of JSON null is not an object, though Go
// would decode it as nothing and let it pass as {}.
func TestNullBodyRefused(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	asset := e.Do("POST", "/api/assets", a.Token, []map[string]any{{"hostname": "web-01"}}).Must(t, http.StatusCreated).Get("data", "0", "id").MustStr(t)
	for _, rt := range [][2]string{{"PATCH", "/api/assets/" + asset}, {"POST", "/api/compliance/audit"},
		{"POST", "/api/agents/onboarding/execute"}, {"POST", "/api/tickets/submit"}, {"POST", "/api/org/invites"}} {
		e.Do(rt[0], rt[1], a.Token, "null").WantFields(t, "body")
	}
	// Nothing was started by them.
	if runs := e.Do("GET", "/api/agents/onboarding/executions", a.Token, nil).Must(t, http.StatusOK).List(); len(runs) != 0 {
		t.Fatalf("a null body started runs: %v", runs)
	}
}

// TestDuplicateKeyAndEmptyDefaultRefused: a key given twice (Go keeps the
// last, another reader the first) and "" where it would silently mean the
// default are refused by name; nothing is created.
func TestDuplicateKeyAndEmptyDefaultRefused(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	for _, tc := range []struct{ method, path, body, field string }{
		{"POST", "/api/tickets/submit", `{"subject":"s","description":"d","subject":"t"}`, "subject"},
		{"POST", "/api/tickets/submit", `{"subject":"s","description":"d","priority":""}`, "priority"},
		{"POST", "/api/org/invites", `{"email":"bob@acme.test","role":""}`, "role"},
		{"POST", "/api/compliance/audit", `{"framework":""}`, "framework"},
		{"POST", "/api/agents/compliance/execute", `{"framework":""}`, "framework"},
		{"POST", "/api/assets", `[{"hostname":"a","hostname":"b"}]`, "[0].hostname"},
		{"POST", "/api/agents/run", `{"agent":"compliance","agent":"onboarding"}`, "agent"},
		{"POST", "/api/agents/run", `{"agent":"compliance","framework":"soc2","framework":"hipaa"}`, "framework"},
	} {
		e.Do(tc.method, tc.path, a.Token, tc.body).WantFields(t, tc.field)
	}
	if n := len(e.Do("GET", "/api/tickets", a.Token, nil).Must(t, http.StatusOK).List()); n != 0 {
		t.Fatalf("%d tickets made by refused requests", n)
	}
	// Left out, the defaults apply.
	e.Do("POST", "/api/tickets/submit", a.Token, `{"subject":"s","description":"d"}`).Must(t, http.StatusCreated)
}

// TestNullRefusedWhereItWouldMeanSomethingElse: null for a ticket's
// priority or status is refused by name; null assignee unassigns and null
// expires_at is a key that never expires.
func TestNullRefusedWhereItWouldMeanSomethingElse(t *testing.T) {
	e := newEnv(t)
	a := e.Register("ann@acme.test", "Acme")
	e.Do("POST", "/api/tickets/submit", a.Token, `{"subject":"s","description":"d","priority":null}`).WantFields(t, "priority")
	id := e.Do("POST", "/api/tickets/submit", a.Token, map[string]string{"subject": "s", "description": "d"}).
		Must(t, http.StatusCreated).Str("data", "id")
	e.Do("PATCH", "/api/tickets/"+id, a.Token, `{"status":null}`).WantFields(t, "status")
	e.Do("PATCH", "/api/tickets/"+id, a.Token, `{"priority":null,"status":"closed"}`).WantFields(t, "priority")
	e.Do("PATCH", "/api/tickets/"+id, a.Token, `{"assignee":null}`).Must(t, http.StatusOK)
	key := e.Do("POST", "/api/api-keys", a.Token, `{"name":"k","scope":"read","expires_at":null}`).Must(t, http.StatusCreated)
	if key.Data()["expires_at"] != nil {
		t.Fatalf("expires_at null made %v", key.Data()["expires_at"])
	}
}
