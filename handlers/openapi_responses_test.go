package handlers_test

import (
	"strings"
	"testing"

	"garrison/handlers/apitest"
	"garrison/handlers/apitest/schema"
)

// The API tests check every answer against docs/openapi.json (apitest's
// contract.go, with the validator in apitest/schema). These tests check
// the validator itself, on small inline schemas.

// validatorDoc is a tiny document for the $refs of the inline schemas.
const validatorDoc = `{
  "components": {"schemas": {
    "Severity": {"type": "string", "enum": ["low", "medium", "high"]},
    "Item": {
      "type": "object",
      "required": ["id", "severity"],
      "properties": {
        "id": {"type": "string", "pattern": "^alr_[0-9a-z]{4}$"},
        "severity": {"$ref": "#/components/schemas/Severity"},
        "count": {"type": "integer", "minimum": 0},
        "note": {"type": ["string", "null"], "maxLength": 5}
      },
      "additionalProperties": false
    },
    "Envelope": {
      "type": "object",
      "required": ["success", "data"],
      "properties": {
        "success": {"const": true},
        "data": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}, "maxItems": 3}
      }
    },
    "Shape": {
      "oneOf": [
        {"type": "object", "required": ["radius"], "properties": {"radius": {"type": "number"}}, "additionalProperties": false},
        {"type": "object", "required": ["side"], "properties": {"side": {"type": "number"}}, "additionalProperties": false}
      ]
    },
    "Run": {
      "type": "object",
      "allOf": [{"type": "object", "properties": {"prompt": {"type": "string", "minLength": 1}}}],
      "properties": {"agent": {"const": "onboarding"}},
      "required": ["agent"],
      "unevaluatedProperties": false
    }
  }}
}`

func TestOpenAPIResponseValidator(t *testing.T) {
	doc, err := schema.Parse([]byte(validatorDoc))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		schema string // a schema of the document
		body   string
		path   string // the JSON path of the one violation; "" for none
		kw     string // how its keyword location ends
		msg    string // part of its message
	}{
		{"good body passes", "Envelope", `{"success": true, "data": [{"id": "alr_ab12", "severity": "high", "count": 3, "note": null}]}`, "", "", ""},
		{"missing required field", "Envelope", `{"success": true, "data": [{"id": "alr_ab12"}]}`,
			"$.data[0]", "/components/schemas/Item/required", `"severity" is missing`},
		{"wrong type", "Envelope", `{"success": true, "data": [{"id": "alr_ab12", "severity": "low", "count": "3"}]}`,
			"$.data[0].count", "/components/schemas/Item/properties/count/type", "want integer, got string"},
		{"fraction is not an integer", "Envelope", `{"success": true, "data": [{"id": "alr_ab12", "severity": "low", "count": 1.5}]}`,
			"$.data[0].count", "/properties/count/type", "want integer, got number"},
		{"enum violation", "Envelope", `{"success": true, "data": [{"id": "alr_ab12", "severity": "urgent"}]}`,
			"$.data[0].severity", "/components/schemas/Severity/enum", `"urgent" is not one of`},
		{"pattern violation", "Envelope", `{"success": true, "data": [{"id": "evt_ab12", "severity": "low"}]}`,
			"$.data[0].id", "/properties/id/pattern", "does not match pattern"},
		{"extra property, additionalProperties false", "Envelope", `{"success": true, "data": [{"id": "alr_ab12", "severity": "low", "colour": "red"}]}`,
			"$.data[0].colour", "/components/schemas/Item/additionalProperties", `"colour" is not allowed`},
		{"const violation", "Envelope", `{"success": false, "data": []}`, "$.success", "/properties/success/const", "want true"},
		{"minimum violation", "Envelope", `{"success": true, "data": [{"id": "alr_ab12", "severity": "low", "count": -1}]}`,
			"$.data[0].count", "/properties/count/minimum", "under minimum 0"},
		{"maxLength counts characters", "Envelope", `{"success": true, "data": [{"id": "alr_ab12", "severity": "low", "note": "ééééé"}]}`, "", "", ""},
		{"maxLength violation", "Envelope", `{"success": true, "data": [{"id": "alr_ab12", "severity": "low", "note": "toolong"}]}`,
			"$.data[0].note", "/properties/note/maxLength", "over maxLength 5"},
		{"maxItems violation", "Envelope", `{"success": true, "data": [{"id": "alr_aaaa", "severity": "low"}, {"id": "alr_bbbb", "severity": "low"}, {"id": "alr_cccc", "severity": "low"}, {"id": "alr_dddd", "severity": "low"}]}`,
			"$.data", "/properties/data/maxItems", "over maxItems 3"},
		{"oneOf with one match passes", "Shape", `{"radius": 2}`, "", "", ""},
		{"oneOf with zero matches", "Shape", `{"radius": 2, "side": 3}`, "$", "/components/schemas/Shape/oneOf", "matches none of the 2 oneOf branches"},
		{"unevaluatedProperties sees through allOf", "Run", `{"agent": "onboarding", "prompt": "hi"}`, "", "", ""},
		{"unevaluatedProperties false", "Run", `{"agent": "onboarding", "target": "x"}`,
			"$.target", "/components/schemas/Run/unevaluatedProperties", `"target" is not allowed`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := doc.Compile("#/components/schemas/" + c.schema)
			if err != nil {
				t.Fatal(err)
			}
			body, err := schema.Decode([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			errs := s.Validate(body)
			if c.path == "" {
				if len(errs) != 0 {
					t.Fatalf("want no violation, got %v", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("want one violation at %s, got %v", c.path, errs)
			}
			e := errs[0]
			if e.Path != c.path || !strings.HasSuffix(e.Keyword, c.kw) || !strings.Contains(e.Message, c.msg) {
				t.Fatalf("got %s at %s (%s), want %q at %s (...%s)", e.Message, e.Path, e.Keyword, c.msg, c.path, c.kw)
			}
		})
	}
}

// TestOpenAPIResponseValidatorOneOfAmbiguous: oneOf means exactly one.
func TestOpenAPIResponseValidatorOneOfAmbiguous(t *testing.T) {
	doc := schema.NewDoc(map[string]any{})
	s, err := doc.CompileValue(map[string]any{"oneOf": []any{
		map[string]any{"type": "object"},
		map[string]any{"type": "object", "properties": map[string]any{"radius": map[string]any{"type": "number"}}},
	}}, "#/inline")
	if err != nil {
		t.Fatal(err)
	}
	errs := s.Validate(map[string]any{"radius": 1.0})
	if len(errs) != 1 || errs[0].Path != "$" || errs[0].Keyword != "#/inline/oneOf" || !strings.Contains(errs[0].Message, "want exactly one") {
		t.Fatalf("got %v", errs)
	}
}

// TestOpenAPIResponseValidatorNullable: of a nullable anyOf, the branch the
// value was meant for reports its own error, by its own path.
func TestOpenAPIResponseValidatorNullable(t *testing.T) {
	doc := schema.NewDoc(map[string]any{})
	s, err := doc.CompileValue(map[string]any{"anyOf": []any{
		map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		map[string]any{"type": "null"},
	}}, "#/inline")
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(nil); len(errs) != 0 {
		t.Fatalf("null: %v", errs)
	}
	errs := s.Validate(map[string]any{"name": 7.0})
	if len(errs) != 1 || errs[0].Path != "$.name" || errs[0].Keyword != "#/inline/anyOf/0/properties/name/type" {
		t.Fatalf("got %v", errs)
	}
}

// TestOpenAPIResponseValidatorPatterns: ECMA-262 \u escapes become RE2's,
// and a pattern Go cannot compile is left unchecked and noted once.
func TestOpenAPIResponseValidatorPatterns(t *testing.T) {
	doc := schema.NewDoc(map[string]any{})
	s, err := doc.CompileValue(map[string]any{"type": "string", "pattern": `^[^\u0000-\u001f]*$`}, "#/escaped")
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate("fine"); len(errs) != 0 {
		t.Fatal(errs)
	}
	if errs := s.Validate("tab\there"); len(errs) != 1 || !strings.HasSuffix(errs[0].Keyword, "/pattern") {
		t.Fatalf("control character passed: %v", errs)
	}
	s, err = doc.CompileValue(map[string]any{"type": "string", "pattern": `^(?=lookahead)`}, "#/lookahead")
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate("anything"); len(errs) != 0 {
		t.Fatal(errs)
	}
	if len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0], "#/lookahead/pattern") {
		t.Fatalf("notes: %v", doc.Notes)
	}
}

// TestOpenAPIResponseValidatorCoversDocument: the validator understands
// every keyword docs/openapi.json uses (an unknown one would be ignored,
// so a check would silently pass), and compiles its patterns.
func TestOpenAPIResponseValidatorCoversDocument(t *testing.T) {
	unsupported, notes, err := apitest.OpenAPIValidatorNotes()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range unsupported {
		t.Errorf("docs/openapi.json: %s", u)
	}
	for _, n := range notes { // a pattern left unchecked
		t.Errorf("docs/openapi.json: %s", n)
	}
}
