package handlers_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"garrison/handlers/apitest/schema"
)

// Every example the document gives is an instance of the schema it
// illustrates, as the contract check's validator judges it: a client (or
// a generator that writes examples into its doc comments) may copy one.

// exampleKeys are the schema keywords whose values are subschemas, by
// shape: one schema, a list of them, or a map of names to them.
var (
	exampleOneSchema   = []string{"items", "additionalProperties", "unevaluatedProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems"}
	exampleSchemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	exampleSchemaMaps  = []string{"properties", "patternProperties", "dependentSchemas", "$defs"}
)

// exampleCheck walks an OpenAPI document and validates each example.
type exampleCheck struct {
	doc      *schema.Doc
	checked  int
	problems []string
}

// openAPIExampleProblems returns how many examples the document holds and
// what is wrong with them: every example and examples entry of a media
// type, parameter or header against its schema (an Example Object's value,
// its $ref followed), and every example and examples item of a schema,
// at any depth, against that schema.
func openAPIExampleProblems(raw []byte) (int, []string, error) {
	doc, err := schema.Parse(raw)
	if err != nil {
		return 0, nil, err
	}
	root, _ := doc.Resolve("#")
	c := &exampleCheck{doc: doc}
	c.structure("#", root)
	return c.checked, c.problems, nil
}

// structure walks the document outside schemas and example values.
func (c *exampleCheck) structure(loc string, v any) {
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			c.structure(fmt.Sprintf("%s/%d", loc, i), e)
		}
	case map[string]any:
		if loc == "#/components/schemas" {
			for _, name := range sorted(x) {
				c.schema(loc+"/"+schema.Pointer(name), x[name])
			}
			return
		}
		if loc == "#/components/examples" {
			return // Example Objects are checked where they are used, against that schema
		}
		_, holder := x["schema"].(map[string]any)
		if holder { // a media type, parameter or header
			c.holder(loc, x)
		}
		for _, k := range sorted(x) {
			if holder && (k == "schema" || k == "example" || k == "examples") {
				continue
			}
			c.structure(loc+"/"+schema.Pointer(k), x[k])
		}
	}
}

// holder checks the examples of an object with a schema (a media type, a
// parameter, a header), then the schema's own.
func (c *exampleCheck) holder(loc string, x map[string]any) {
	sloc := loc + "/schema"
	if ex, ok := x["example"]; ok {
		c.validate(sloc, loc+"/example", ex)
	}
	examples, _ := x["examples"].(map[string]any)
	for _, name := range sorted(examples) {
		eloc := loc + "/examples/" + schema.Pointer(name)
		e, _ := examples[name].(map[string]any)
		if ref, ok := e["$ref"].(string); ok {
			target, err := c.doc.Resolve(ref)
			if err != nil {
				c.problems = append(c.problems, fmt.Sprintf("%s: %v", eloc, err))
				continue
			}
			eloc += " (" + ref + ")"
			e, _ = target.(map[string]any)
		}
		value, ok := e["value"]
		if !ok {
			if _, external := e["externalValue"]; !external {
				c.problems = append(c.problems, eloc+": an Example Object without a value")
			}
			continue
		}
		c.validate(sloc, eloc+"/value", value)
	}
	c.schema(sloc, x["schema"])
}

// schema checks a schema's own examples, then its subschemas'.
func (c *exampleCheck) schema(loc string, v any) {
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	if ex, ok := s["example"]; ok {
		c.validate(loc, loc+"/example", ex)
	}
	if ex, ok := s["examples"]; ok {
		list, isList := ex.([]any)
		if !isList {
			c.problems = append(c.problems, loc+"/examples: a schema's examples must be an array")
		}
		for i, e := range list {
			c.validate(loc, fmt.Sprintf("%s/examples/%d", loc, i), e)
		}
	}
	for _, k := range exampleOneSchema {
		if sub, ok := s[k]; ok {
			c.schema(loc+"/"+k, sub)
		}
	}
	for _, k := range exampleSchemaLists {
		list, _ := s[k].([]any)
		for i, sub := range list {
			c.schema(fmt.Sprintf("%s/%s/%d", loc, k, i), sub)
		}
	}
	for _, k := range exampleSchemaMaps {
		m, _ := s[k].(map[string]any)
		for _, name := range sorted(m) {
			c.schema(loc+"/"+k+"/"+schema.Pointer(name), m[name])
		}
	}
}

// validate checks one example against the schema at sloc.
func (c *exampleCheck) validate(sloc, at string, value any) {
	c.checked++
	s, err := c.doc.Compile(sloc)
	if err != nil {
		c.problems = append(c.problems, fmt.Sprintf("%s: its schema does not compile: %v", at, err))
		return
	}
	for _, e := range s.Validate(value) {
		c.problems = append(c.problems, fmt.Sprintf("%s: %s: %s (%s)", at, e.Path, e.Message, e.Keyword))
	}
}

func sorted(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestOpenAPIExamplesValidate: every example of the document the server
// serves is valid against its own schema.
func TestOpenAPIExamplesValidate(t *testing.T) {
	e := newEnv(t)
	r := e.Do("GET", "/api/openapi.json", "", nil).Must(t, http.StatusOK)
	checked, problems, err := openAPIExampleProblems(r.Raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	// Every operation has a success example and every body a request
	// example (TestOpenAPIContractOperations), so there are at least as
	// many examples as operations; far fewer means the walk lost its way.
	if checked < 150 {
		t.Errorf("only %d examples checked; the walk is broken", checked)
	}
	t.Logf("%d examples checked", checked)
}

// TestOpenAPIExampleCheckFinds: the walk reaches examples in every place
// a document may hold one, and reports a bad one where it is.
func TestOpenAPIExampleCheckFinds(t *testing.T) {
	// S is the schema every example illustrates; EX stands for the example.
	const components = `"components": {"schemas": {"S": {"type": "string", "enum": ["low"]}}, "examples": {"E": {"value": EX}}}`
	cases := []struct {
		name, paths, at string
	}{
		{"media type example", `"/a": {"get": {"responses": {"200": {"content": {"application/json": {
			"schema": {"$ref": "#/components/schemas/S"}, "example": EX}}}}}}`,
			"#/paths/~1a/get/responses/200/content/application~1json/example"},
		{"media type examples", `"/a": {"post": {"requestBody": {"content": {"text/csv": {
			"schema": {"$ref": "#/components/schemas/S"}, "examples": {"one": {"value": EX}}}}}}}`,
			"#/paths/~1a/post/requestBody/content/text~1csv/examples/one/value"},
		{"Example Object by reference", `"/a": {"post": {"requestBody": {"content": {"application/json": {
			"schema": {"$ref": "#/components/schemas/S"}, "examples": {"one": {"$ref": "#/components/examples/E"}}}}}}}`,
			"#/paths/~1a/post/requestBody/content/application~1json/examples/one (#/components/examples/E)/value"},
		{"parameter example", `"/a": {"parameters": [{"name": "s", "in": "query", "schema": {"type": "string", "enum": ["low"]}, "example": EX}]}`,
			"#/paths/~1a/parameters/0/example"},
		{"response header examples", `"/a": {"get": {"responses": {"200": {"headers": {"H": {
			"schema": {"$ref": "#/components/schemas/S"}, "examples": {"one": {"value": EX}}}}}}}}`,
			"#/paths/~1a/get/responses/200/headers/H/examples/one/value"},
		{"inline schema examples", `"/a": {"get": {"responses": {"200": {"content": {"application/json": {
			"schema": {"type": "string", "enum": ["low"], "examples": ["low", EX]}}}}}}}`,
			"#/paths/~1a/get/responses/200/content/application~1json/schema/examples/1"},
		{"property example", `"/a": {"get": {"responses": {"200": {"content": {"application/json": {
			"schema": {"type": "object", "properties": {"s": {"$ref": "#/components/schemas/S", "example": EX}}}}}}}}}`,
			"#/paths/~1a/get/responses/200/content/application~1json/schema/properties/s/example"},
		{"deep in allOf and items", `"/a": {"get": {"responses": {"200": {"content": {"application/json": {
			"schema": {"allOf": [{"type": "array", "items": {"type": "string", "enum": ["low"], "examples": [EX]}}]}}}}}}}`,
			"#/paths/~1a/get/responses/200/content/application~1json/schema/allOf/0/items/examples/0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, ex := range []string{`"low"`, `"urgent"`} {
				doc := strings.ReplaceAll(`{"openapi": "3.1.0", "paths": {`+tc.paths+`}, `+components+`}`, "EX", ex)
				checked, problems, err := openAPIExampleProblems([]byte(doc))
				if err != nil {
					t.Fatal(err)
				}
				if checked != 1+strings.Count(tc.paths, `["low", EX]`) {
					t.Errorf("%s: %d examples checked, want the case's", ex, checked)
				}
				switch {
				case ex == `"low"` && len(problems) != 0:
					t.Errorf("a valid example refused: %v", problems)
				case ex == `"urgent"` && (len(problems) != 1 || !strings.HasPrefix(problems[0], tc.at+": $: ")):
					t.Errorf("problems %q, want one at %s", problems, tc.at)
				}
			}
		})
	}
}
