package handlers

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"garrison/store"
)

// keyAuth treats the bearer value as an API key's scope.
type keyAuth struct{}

func (keyAuth) Authenticate(_ context.Context, cred string) (Principal, error) {
	return Principal{Kind: KindAPIKey, OrgID: "org_1", Plan: store.PlanStarter, Scope: cred}, nil
}

// TestScopeMatrixOnStubRoutes: read, write and admin keys against a read, a
// write and an admin action, including the spec's own example message.
func TestScopeMatrixOnStubRoutes(t *testing.T) {
	a := New(Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Auth: keyAuth{}})
	ok := func(w http.ResponseWriter, _ *http.Request) error { writeData(w, http.StatusOK, "done"); return nil }
	a.routes = []Route{
		{"GET", "/api/stub", Read, ok},
		{"POST", "/api/stub", Write, ok},
		{"DELETE", "/api/stub", Admin, ok},
	}
	h := a.Handler()
	want := map[string]map[string]string{ // scope → method → error ("" = allowed)
		"read":  {"GET": "", "POST": "Insufficient permissions. Required scope: write", "DELETE": "Insufficient permissions. Required scope: admin"},
		"write": {"GET": "", "POST": "", "DELETE": "Insufficient permissions. Required scope: admin"},
		"admin": {"GET": "", "POST": "", "DELETE": ""},
	}
	for scope, methods := range want {
		for method, msg := range methods {
			req := httptest.NewRequest(method, "/api/stub", nil)
			req.Header.Set("Authorization", "Bearer "+scope)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var body map[string]any
			json.Unmarshal(rec.Body.Bytes(), &body)
			if msg == "" && rec.Code != http.StatusOK {
				t.Errorf("%s key %s: %d %v", scope, method, rec.Code, body)
			}
			if msg != "" && (rec.Code != http.StatusForbidden || body["error"] != msg || body["code"] != CodeForbidden) {
				t.Errorf("%s key %s: %d %v, want 403 %q", scope, method, rec.Code, body, msg)
			}
		}
	}
}
