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
		{"root", func() apitest.Response { return e.Do("GET", "/", "", nil) }, 404, "not_found", nil},
		{"v1 prefix", func() apitest.Response { return e.Do("GET", "/api/v1/dashboard/health", "", nil) }, 404, "not_found", nil},
		{"v1 prefix with credentials", func() apitest.Response { return e.Do("GET", "/api/v1/org", admin.Token, nil) }, 404, "not_found", nil},
		{"wrong method", func() apitest.Response { return e.Do("DELETE", "/api/auth/login", "", nil) }, 405, "method_not_allowed", nil},
		{"no pprof", func() apitest.Response { return e.Do("GET", "/debug/pprof/", "", nil) }, 404, "not_found", nil},
		{"no pprof under /api", func() apitest.Response { return e.Do("GET", "/api/debug/pprof/heap", admin.Token, nil) }, 404, "not_found", nil},
		{"no expvar", func() apitest.Response { return e.Do("GET", "/debug/vars", "", nil) }, 404, "not_found", nil},
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
}
