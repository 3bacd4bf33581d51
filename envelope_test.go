package main

import (
	"net/http"
	"strings"
	"testing"
)

func TestErrorEnvelope(t *testing.T) {
	e := newTestEnv(t)
	admin := e.register("ann@acme.test", "Acme")
	login := func(body string, contentType string) response {
		return e.doHeaders("POST", "/api/auth/login", body, map[string]string{"Content-Type": contentType})
	}
	tests := []struct {
		name   string
		r      func() response
		status int
		code   string
		fields []string
	}{
		{"unknown path", func() response { return e.do("GET", "/api/nothing-here", "", nil) }, 404, "not_found", nil},
		{"root", func() response { return e.do("GET", "/", "", nil) }, 404, "not_found", nil},
		{"v1 prefix", func() response { return e.do("GET", "/api/v1/dashboard/health", "", nil) }, 404, "not_found", nil},
		{"v1 prefix with credentials", func() response { return e.do("GET", "/api/v1/org", admin.token, nil) }, 404, "not_found", nil},
		{"wrong method", func() response { return e.do("DELETE", "/api/auth/login", "", nil) }, 405, "method_not_allowed", nil},
		{"no pprof", func() response { return e.do("GET", "/debug/pprof/", "", nil) }, 404, "not_found", nil},
		{"no pprof under /api", func() response { return e.do("GET", "/api/debug/pprof/heap", admin.token, nil) }, 404, "not_found", nil},
		{"no expvar", func() response { return e.do("GET", "/debug/vars", "", nil) }, 404, "not_found", nil},
		{"malformed JSON", func() response { return login(`{"email":`, "application/json") }, 400, "validation_error", []string{"body"}},
		{"syntax error", func() response { return login(`{"email" "x"}`, "application/json") }, 400, "validation_error", []string{"body"}},
		{"invalid UTF-8", func() response { return login("{\"email\":\"\xff\xfe\"}", "application/json") }, 400, "validation_error", []string{"body"}},
		{"unknown field", func() response { return login(`{"email":"a@b.co","password":"x","admin":true}`, "application/json") }, 400, "validation_error", []string{"admin"}},
		{"case variant", func() response { return login(`{"Email":"a@b.co","password":"x"}`, "application/json") }, 400, "validation_error", []string{"Email"}},
		{"wrong type", func() response { return login(`{"email":["a"],"password":"x"}`, "application/json") }, 400, "validation_error", []string{"email"}},
		{"array body", func() response { return login(`[1,2]`, "application/json") }, 400, "validation_error", []string{"body"}},
		{"trailing data", func() response { return login(`{"email":"a@b.co","password":"x"} {}`, "application/json") }, 400, "validation_error", []string{"body"}},
		{"text content type", func() response { return login(`{"email":"a@b.co","password":"x"}`, "text/plain") }, 400, "validation_error", []string{"Content-Type"}},
		{"form content type", func() response { return login(`email=a`, "application/x-www-form-urlencoded") }, 400, "validation_error", []string{"Content-Type"}},
		{"no content type", func() response { return login(`{"email":"a@b.co","password":"x"}`, "") }, 400, "validation_error", []string{"Content-Type"}},
		{"oversize body", func() response {
			return login(`{"email":"`+strings.Repeat("a", 1<<20)+`"}`, "application/json")
		}, 413, "payload_too_large", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r()
			if tc.fields != nil {
				r.wantFields(t, tc.fields...)
			} else {
				r.wantError(t, tc.status, tc.code, "")
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			for _, leak := range []string{"sql", "SQLITE", "goroutine", ".go:", "json:", "reflect"} {
				if strings.Contains(string(r.raw), leak) {
					t.Errorf("body leaks %q: %s", leak, r.raw)
				}
			}
		})
	}
	t.Run("charset parameter accepted", func(t *testing.T) {
		login(`{"email":"ann@acme.test","password":"`+testPassword+`"}`, "application/json; charset=utf-8").must(t, http.StatusOK)
	})
	t.Run("405 names the allowed methods", func(t *testing.T) {
		r := e.do("POST", "/api/org/members", admin.token, map[string]any{})
		if r.status != 405 || r.header.Get("Allow") != "GET, HEAD" {
			t.Fatalf("%d Allow=%q", r.status, r.header.Get("Allow"))
		}
	})
}

func TestResponseHeaders(t *testing.T) {
	e := newTestEnv(t)
	seen := map[string]bool{}
	for _, path := range []string{"/api/dashboard/health", "/api/nothing", "/api/org"} {
		r := e.do("GET", path, "", nil)
		id := r.header.Get("X-Request-Id")
		if id == "" || seen[id] {
			t.Errorf("%s: X-Request-Id %q", path, id)
		}
		seen[id] = true
		if r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: headers %v", path, r.header)
		}
	}
	given := e.doHeaders("GET", "/api/dashboard/health", nil, map[string]string{"X-Request-Id": "trace-abc.123"})
	if given.header.Get("X-Request-Id") != "trace-abc.123" {
		t.Errorf("caller's request id not kept: %q", given.header.Get("X-Request-Id"))
	}
	forged := e.doHeaders("GET", "/api/dashboard/health", nil, map[string]string{"X-Request-Id": "x\" level=ERROR"})
	if strings.Contains(forged.header.Get("X-Request-Id"), "ERROR") {
		t.Error("unsafe request id accepted")
	}
}

func TestHealth(t *testing.T) {
	e := newTestEnv(t)
	r := e.do("GET", "/api/dashboard/health", "", nil).must(t, http.StatusOK)
	if r.body["success"] != true || r.str("data", "status") != "ok" {
		t.Fatalf("health: %s", r.raw)
	}
}
