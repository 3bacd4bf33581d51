package handlers_test

import (
	"encoding/json"
	"net/http"
	"slices"
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

// TestOpenAPIQueryParameters: each route takes exactly the query
// parameters its operation documents (any other is refused).
func TestOpenAPIQueryParameters(t *testing.T) {
	e := newEnv(t)
	r := e.Do("GET", "/api/openapi.json", "", nil).Must(t, http.StatusOK)
	type param struct {
		Ref  string `json:"$ref"`
		Name string `json:"name"`
		In   string `json:"in"`
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]param `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(r.Raw, &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string][]string{}
	for path, ops := range doc.Paths {
		for method, raw := range ops {
			var op struct {
				Parameters []param `json:"parameters"`
			}
			if json.Unmarshal(raw, &op) != nil {
				continue // the path's own members
			}
			var names []string
			for _, p := range op.Parameters {
				if p.Ref != "" {
					p = doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
				}
				if p.In == "query" {
					names = append(names, p.Name)
				}
			}
			slices.Sort(names)
			documented[strings.ToUpper(method)+" /api"+path] = names
		}
	}
	for _, rt := range e.API.Routes() {
		key := rt.Method + " " + rt.Path
		takes := slices.Sorted(slices.Values(rt.Query))
		if !slices.Equal(takes, documented[key]) {
			t.Errorf("%s takes %v; its operation documents %v", key, takes, documented[key])
		}
	}
}
