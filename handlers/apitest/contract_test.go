package apitest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// These tests feed the OpenAPI response check made-up answers: that it
// finds the operation, the response and the headers the document means.

func answer(method, path string, status int, body string, headers ...string) exchange {
	h := http.Header{"X-Request-Id": {"req-1"}}
	if body != "" {
		h.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			h.Del(headers[i])
		} else {
			h.Set(headers[i], headers[i+1])
		}
	}
	return exchange{method: method, path: path, rawPath: path, status: status, header: h, raw: []byte(body)}
}

const (
	notFoundBody = `{"success":false,"error":"Resource not found","code":"not_found"}`
	orgBody      = `{"success":true,"data":{"id":"org_0123456789abcdefghjkmnpqrs","name":"Acme","plan":"starter","members_count":1,"created_at":"2026-11-21T12:00:00Z","kind":"standalone","storage":{"used_bytes":0,"quota_bytes":null,"quota":"default"}}}`
)

func TestContractCheck(t *testing.T) {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		x     exchange
		op    string
		wants []string // a part of each mismatch's keyword, in order
	}{
		{"unknown path, 404", answer("GET", "/api/nothing", 404, notFoundBody), "a path not in the document", nil},
		{"/api/v1 is unknown", answer("GET", "/api/v1/org", 404, notFoundBody), "a path not in the document", nil},
		{"unclean path is unknown", answer("GET", "/api//org", 404, notFoundBody), "a path not in the document", nil},
		{"unknown path, wrong code", answer("GET", "/api/nothing", 404, `{"success":false,"error":"x","code":"nope"}`),
			"a path not in the document", []string{"#/components/schemas/ErrorEnvelope/properties/code/enum", "#/components/responses/NotFound/content/application~1json/schema/allOf/1/properties/code/const"}},
		{"unknown path, 400 is undocumented", answer("GET", "/api/nothing", 400, notFoundBody), "a path not in the document", []string{"status"}},
		{"literal beats parameter", answer("POST", "/api/tickets/submit", 403, `{"success":false,"error":"x","code":"forbidden"}`), "POST /tickets/submit (submitTicket)", nil},
		{"literal path, other method, is a 405", answer("GET", "/api/tickets/submit", 405, `{"success":false,"error":"x","code":"method_not_allowed"}`, "Allow", "POST"),
			"GET /tickets/submit (x-garrison-method-not-allowed)", nil},
		{"405 with the wrong Allow", answer("PUT", "/api/org", 405, `{"success":false,"error":"x","code":"method_not_allowed"}`, "Allow", "GET"),
			"PUT /org (x-garrison-method-not-allowed)", []string{"#/x-garrison-method-not-allowed/allow/~1org"}},
		{"405 without Allow", answer("PUT", "/api/org", 405, `{"success":false,"error":"x","code":"method_not_allowed"}`),
			"PUT /org (x-garrison-method-not-allowed)", []string{"#/components/headers/Allow (present)"}},
		{"path parameter", answer("GET", "/api/alerts/alr_x", 404, notFoundBody), "GET /alerts/{id} (getAlert)", nil},
		{"good 200", answer("GET", "/api/org", 200, orgBody), "GET /org (getOrg)", nil},
		{"HEAD is GET without a body", answer("HEAD", "/api/org", 200, ""), "HEAD (as GET /org (getOrg))", nil},
		{"undocumented status", answer("GET", "/api/org", 409, `{"success":false,"error":"x","code":"forbidden"}`), "GET /org (getOrg)", []string{"status"}},
		{"401 without WWW-Authenticate", answer("GET", "/api/org", 401, `{"success":false,"error":"x","code":"unauthorized"}`),
			"GET /org (getOrg)", []string{"#/components/headers/WWW-Authenticate (present)"}},
		{"401 with another WWW-Authenticate", answer("GET", "/api/org", 401, `{"success":false,"error":"x","code":"unauthorized"}`, "WWW-Authenticate", "Basic"),
			"GET /org (getOrg)", []string{"#/components/headers/WWW-Authenticate/schema/const"}},
		{"429 with Retry-After 0", answer("GET", "/api/org", 429, `{"success":false,"error":"x","code":"rate_limited"}`, "Retry-After", "0"),
			"GET /org (getOrg)", []string{"#/components/headers/Retry-After/schema/minimum"}},
		{"429 with Retry-After as a date", answer("GET", "/api/org", 429, `{"success":false,"error":"x","code":"rate_limited"}`, "Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT"),
			"GET /org (getOrg)", []string{"#/components/headers/Retry-After/schema/type"}},
		{"no request id", answer("GET", "/api/org", 200, orgBody, "X-Request-Id", ""), "GET /org (getOrg)", []string{"#/components/headers/X-Request-Id (present)"}},
		{"not JSON", answer("GET", "/api/org", 200, orgBody, "Content-Type", "text/plain"), "GET /org (getOrg)", []string{"/content"}},
		{"empty body", answer("GET", "/api/org", 200, ""), "GET /org (getOrg)", []string{"/content"}},
		{"wrong type deep in the body", answer("GET", "/api/org", 200, strings.Replace(orgBody, `"members_count":1`, `"members_count":"1"`, 1)),
			"GET /org (getOrg)", []string{"/members_count/type"}},
		{"non-standard method", answer("BREW", "/api/org", 404, notFoundBody), "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			op, ms := c.check(tc.x)
			if op != tc.op {
				t.Errorf("operation %q, want %q", op, tc.op)
			}
			var got []string
			for _, m := range ms {
				got = append(got, m.keyword+" ("+m.message+")")
			}
			if len(ms) != len(tc.wants) {
				t.Fatalf("mismatches %q, want %d: %q", got, len(tc.wants), tc.wants)
			}
			for i, w := range tc.wants {
				if !strings.Contains(ms[i].keyword, w) {
					t.Errorf("mismatch %d: %s, want %s", i, got[i], w)
				}
			}
		})
	}
}

// reportTB records what a report says.
type reportTB struct {
	testing.TB
	errors, logs []string
}

func (r *reportTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *reportTB) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// TestContractReport: one error per distinct (operation, status, schema
// keyword), however often it happens; an exempted answer is only logged.
func TestContractReport(t *testing.T) {
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{findings: map[findingKey]*finding{}}
	bad := `{"success":false,"error":"x","code":"nope"}`
	rec.record(answer("GET", "/api/nothing", 404, bad))
	rec.record(answer("GET", "/api/else", 404, bad))
	rec.record(answer("GET", "/api/org", 409, bad))
	provoked := answer("GET", "/api/org", 500, `{"oops":true}`)
	provoked.reason = "the test breaks the database on purpose"
	rec.record(provoked)
	tb := &reportTB{TB: t}
	rec.report(tb, c)
	if len(tb.errors) != 3 {
		t.Fatalf("errors:\n%s", strings.Join(tb.errors, "\n"))
	}
	if !strings.Contains(tb.errors[0], "2 answers") || !strings.Contains(tb.errors[0], "GET /api/nothing") || !strings.Contains(tb.errors[0], "status 404") {
		t.Errorf("first error: %s", tb.errors[0])
	}
	if !strings.Contains(tb.errors[2], "GET /org (getOrg), status 409, schema status") {
		t.Errorf("third error: %s", tb.errors[2])
	}
	if len(tb.logs) != 1 || !strings.Contains(tb.logs[0], "the test breaks the database on purpose") {
		t.Errorf("logs: %q", tb.logs)
	}
}
