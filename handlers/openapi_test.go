package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"garrison/handlers"
)

// TestOpenAPIDocument: the served document is OpenAPI 3.1 and describes
// exactly the routes the server has, each with the access it demands.
func TestOpenAPIDocument(t *testing.T) {
	e := newEnv(t)
	r := e.Do("GET", "/api/openapi.json", "", nil).Must(t, http.StatusOK)
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(r.Raw, &doc); err != nil || doc.OpenAPI != "3.1.0" {
		t.Fatalf("not an OpenAPI 3.1 document: %v %q", err, doc.OpenAPI)
	}
	documented := map[string]any{} // "METHOD /api/path" → x-garrison-access
	for path, ops := range doc.Paths {
		for method, op := range ops {
			documented[strings.ToUpper(method)+" /api"+path] = op["x-garrison-access"]
		}
	}
	for _, rt := range e.API.Routes() {
		key := rt.Method + " " + rt.Path
		access, ok := documented[key]
		want := rt.Access.String()
		if rt.Access == handlers.Webhook {
			want = "webhook"
		}
		if !ok {
			t.Errorf("route %s is not in the OpenAPI document", key)
		} else if access != want {
			t.Errorf("%s: documented access %v, the route demands %s", key, access, want)
		}
		delete(documented, key)
	}
	for key := range documented {
		t.Errorf("the OpenAPI document has %s, which is no route", key)
	}
}
