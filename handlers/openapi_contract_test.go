package handlers_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"garrison/credential"
	"garrison/valid"
)

// The contract tests read docs/openapi.json as plain JSON and check that it
// states what the server does (which routes exist and the access each
// demands is TestOpenAPIDocument's): every operation says what it may
// answer, with examples; every reference resolves; every schema is
// complete; and the text rules agree with package valid.

// contractAccess is what each x-garrison-access value must list beyond the
// answers every operation lists (400 for a query string holding ';', 429,
// 500): 401 for any credential, 403 where a credential can lack the
// permission. Read routes take every credential (authorize in access.go), so
// they never answer 403 and the document must not promise it.
var contractAccess = map[string][]string{
	"public":  nil,
	"read":    {"401"},
	"write":   {"401", "403"},
	"admin":   {"401", "403"},
	"session": {"401", "403"},
	"webhook": {"401", "403"},
}

var contractMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

type contractOp struct {
	method, path string
	op           map[string]any
	params       []map[string]any // the path item's and the operation's, resolved
}

func loadContractDoc(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("docs/openapi.json is not JSON: %v", err)
	}
	return doc
}

// contractPointer resolves a local reference ("#/components/schemas/X").
func contractPointer(doc map[string]any, ref string) (any, bool) {
	if ref == "#" {
		return doc, true
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	var cur any = doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// contractDeref follows $ref until it reaches an object without one.
func contractDeref(doc map[string]any, v any) map[string]any {
	m, _ := v.(map[string]any)
	for range 32 {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		target, ok := contractPointer(doc, ref)
		if !ok {
			return nil
		}
		m, _ = target.(map[string]any)
	}
	return nil
}

func contractOps(doc map[string]any) []contractOp {
	paths, _ := doc["paths"].(map[string]any)
	var out []contractOp
	for _, path := range contractSortedKeys(paths) {
		item := contractDeref(doc, paths[path])
		shared, _ := item["parameters"].([]any)
		for _, method := range contractMethods {
			op, ok := item[method].(map[string]any)
			if !ok {
				continue
			}
			own, _ := op["parameters"].([]any)
			var params []map[string]any
			for _, p := range append(append([]any{}, shared...), own...) {
				params = append(params, contractDeref(doc, p))
			}
			out = append(out, contractOp{method, path, op, params})
		}
	}
	return out
}

func contractSortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// contractHasExample reports whether a media type object carries an
// example: example, or at least one entry of examples.
func contractHasExample(doc map[string]any, media map[string]any) bool {
	if _, ok := media["example"]; ok {
		return true
	}
	examples, _ := media["examples"].(map[string]any)
	for _, e := range examples {
		if ex := contractDeref(doc, e); ex != nil {
			if _, ok := ex["value"]; ok {
				return true
			}
		}
	}
	return false
}

// TestOpenAPIContractOperations: every operation names its access, has a
// success answer with an example and a request example for its body, and
// lists every answer its access, parameters and body make possible.
func TestOpenAPIContractOperations(t *testing.T) {
	doc := loadContractDoc(t)
	ops := contractOps(doc)
	if len(ops) == 0 {
		t.Fatal("the document has no operations")
	}
	for _, o := range ops {
		t.Run(strings.ToUpper(o.method)+" "+o.path, func(t *testing.T) {
			access, _ := o.op["x-garrison-access"].(string)
			extra, known := contractAccess[access]
			if !known {
				t.Fatalf("x-garrison-access is %q, not one of public, read, write, admin, session, webhook", access)
			}
			responses, _ := o.op["responses"].(map[string]any)
			successes := 0
			for code, r := range responses {
				if !strings.HasPrefix(code, "2") {
					continue
				}
				successes++
				resp := contractDeref(doc, r)
				content, _ := resp["content"].(map[string]any)
				if len(content) == 0 {
					t.Errorf("success response %s has no content", code)
				}
				for mt, m := range content {
					if !contractHasExample(doc, contractDeref(doc, m)) {
						t.Errorf("success response %s (%s) has no example", code, mt)
					}
				}
			}
			if successes == 0 {
				t.Error("no success (2xx) response")
			}

			hasBody := false
			if rb := contractDeref(doc, o.op["requestBody"]); rb != nil {
				hasBody = true
				content, _ := rb["content"].(map[string]any)
				if len(content) == 0 {
					t.Error("requestBody has no content")
				}
				for mt, m := range content {
					if !contractHasExample(doc, contractDeref(doc, m)) {
						t.Errorf("request body (%s) has no example", mt)
					}
				}
			}
			hasQuery := false
			for _, p := range o.params {
				if p == nil {
					t.Error("a parameter does not resolve")
				} else if p["in"] == "query" {
					hasQuery = true
				}
			}

			// A bad body or query parameter is a 400, and so is a query
			// string holding ';' on every route, even one that reads none.
			if _, ok := responses["400"]; !ok {
				if hasBody || hasQuery {
					t.Error("takes a body or query parameters but lists no 400")
				} else {
					t.Error("lists no 400 (a query string holding ';' is refused on every route)")
				}
			}
			// Any scope may read; only a plan may refuse a read (outreach),
			// the fleet's rule a caller who works with no provider's clients
			// (account.ClientScope), or the console's cross-site check a
			// cookie request.
			if r403, ok := responses["403"]; ok && access == "read" && !strings.Contains(fmt.Sprint(r403), "plan_upgrade_required") &&
				!strings.Contains(fmt.Sprint(r403), "PlanRequired") && !strings.Contains(fmt.Sprint(r403), "ProviderStaffOnly") &&
				!strings.Contains(fmt.Sprint(r403), "CrossSite") {
				t.Error("lists 403, which a read route answers only for a plan that lacks the feature, a caller who is not a provider's staff (the fleet), or a cross-site cookie request")
			}
			// Every route can be rate limited and can fail.
			need := append([]string{"429", "500"}, extra...)
			if strings.Contains(o.path, "{") {
				need = append(need, "404")
			}
			if hasBody {
				need = append(need, "413")
			}
			for _, code := range need {
				r, ok := responses[code]
				if !ok {
					t.Errorf("no %s response", code)
					continue
				}
				if contractDeref(doc, r) == nil {
					t.Errorf("response %s does not resolve", code)
				}
			}
		})
	}
}

// contractProps gathers the property names a schema defines itself, through
// allOf and through $ref.
func contractProps(doc map[string]any, s map[string]any, seen map[string]bool, into map[string]bool) {
	if s == nil {
		return
	}
	if ref, ok := s["$ref"].(string); ok && !seen[ref] {
		seen[ref] = true
		target, _ := contractPointer(doc, ref)
		m, _ := target.(map[string]any)
		contractProps(doc, m, seen, into)
	}
	props, _ := s["properties"].(map[string]any)
	for name := range props {
		into[name] = true
	}
	all, _ := s["allOf"].([]any)
	for _, sub := range all {
		m, _ := sub.(map[string]any)
		contractProps(doc, m, seen, into)
	}
}

// contractSchemas calls fn for every schema object of the document with the
// property names its enclosing schema defines when it is a subschema of an
// applicator (allOf, anyOf, oneOf, not, if, then, else), since such a
// schema may require what its parent defines.
func contractSchemas(doc map[string]any, fn func(where string, s map[string]any, inherited map[string]bool)) {
	var walk func(where string, v any, inherited map[string]bool)
	walk = func(where string, v any, inherited map[string]bool) {
		s, ok := v.(map[string]any)
		if !ok {
			return
		}
		fn(where, s, inherited)
		defined := map[string]bool{}
		for k := range inherited {
			defined[k] = true
		}
		contractProps(doc, s, map[string]bool{}, defined)
		for _, key := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
			list, _ := s[key].([]any)
			for i, sub := range list {
				next := defined
				if key == "prefixItems" {
					next = nil
				}
				walk(fmt.Sprintf("%s/%s/%d", where, key, i), sub, next)
			}
		}
		for _, key := range []string{"not", "if", "then", "else"} {
			walk(where+"/"+key, s[key], defined)
		}
		for _, key := range []string{"items", "additionalProperties", "unevaluatedProperties", "contains",
			"propertyNames", "unevaluatedItems"} {
			walk(where+"/"+key, s[key], nil)
		}
		for _, key := range []string{"properties", "patternProperties", "dependentSchemas", "$defs"} {
			m, _ := s[key].(map[string]any)
			for _, name := range contractSortedKeys(m) {
				walk(where+"/"+key+"/"+name, m[name], nil)
			}
		}
	}
	c, _ := doc["components"].(map[string]any)
	schemas, _ := c["schemas"].(map[string]any)
	for _, name := range contractSortedKeys(schemas) {
		walk("#/components/schemas/"+name, schemas[name], nil)
	}
	// Inline schemas: parameters, headers and media types wherever they are.
	var visit func(where string, v any)
	visit = func(where string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range contractSortedKeys(x) {
				if k == "schema" && where != "#/components" {
					walk(where+"/schema", x[k], nil)
					continue
				}
				if where == "#/components" && k == "schemas" {
					continue
				}
				if k == "example" || k == "examples" {
					continue
				}
				visit(where+"/"+k, x[k])
			}
		case []any:
			for i, e := range x {
				visit(fmt.Sprintf("%s/%d", where, i), e)
			}
		}
	}
	visit("#/paths", doc["paths"])
	visit("#/components", c)
}

// TestOpenAPIContractSchemas: every schema's required properties are
// defined, every array schema says what its items are, and so does every
// list answer's data.
func TestOpenAPIContractSchemas(t *testing.T) {
	doc := loadContractDoc(t)
	count := 0
	contractSchemas(doc, func(where string, s map[string]any, inherited map[string]bool) {
		count++
		if contractIsArray(s) && s["items"] == nil && s["prefixItems"] == nil {
			t.Errorf("%s is an array without items", where)
		}
		req, _ := s["required"].([]any)
		if len(req) == 0 {
			return
		}
		defined := map[string]bool{}
		for k := range inherited {
			defined[k] = true
		}
		contractProps(doc, s, map[string]bool{}, defined)
		for _, r := range req {
			name, _ := r.(string)
			if !defined[name] {
				t.Errorf("%s requires %q, which it does not define in properties", where, name)
			}
		}
	})
	if count < 100 {
		t.Errorf("only %d schemas walked; the walk is broken", count)
	}

	lists := 0
	for _, o := range contractOps(doc) {
		responses, _ := o.op["responses"].(map[string]any)
		for code, r := range responses {
			content, _ := contractDeref(doc, r)["content"].(map[string]any)
			for mt, m := range content {
				schema, _ := contractDeref(doc, m)["schema"].(map[string]any)
				props := contractPropSchemas(doc, schema, map[string]bool{})
				if _, isList := props["pagination"]; !isList {
					continue
				}
				lists++
				data, ok := props["data"]
				if !ok {
					t.Errorf("%s %s %s (%s): a list answer without data", strings.ToUpper(o.method), o.path, code, mt)
					continue
				}
				if _, ok := data["items"]; !ok || data["type"] != "array" {
					t.Errorf("%s %s %s (%s): data is not an array with an items schema", strings.ToUpper(o.method),
						o.path, code, mt)
				}
			}
		}
	}
	if lists == 0 {
		t.Error("no list answer found; the search is broken")
	}
}

// contractIsArray reports whether a schema's type is array (or includes it).
func contractIsArray(s map[string]any) bool {
	switch typ := s["type"].(type) {
	case string:
		return typ == "array"
	case []any:
		for _, t := range typ {
			if t == "array" {
				return true
			}
		}
	}
	return false
}

// contractPropSchemas maps each property a schema defines (itself, through
// allOf and $ref) to its resolved schema; a later definition with items
// wins over one without.
func contractPropSchemas(doc map[string]any, s map[string]any, seen map[string]bool) map[string]map[string]any {
	out := map[string]map[string]any{}
	if s == nil {
		return out
	}
	if ref, ok := s["$ref"].(string); ok && !seen[ref] {
		seen[ref] = true
		target, _ := contractPointer(doc, ref)
		m, _ := target.(map[string]any)
		for k, v := range contractPropSchemas(doc, m, seen) {
			out[k] = v
		}
	}
	merge := func(name string, v map[string]any) {
		if old, ok := out[name]; ok {
			if _, has := old["items"]; has {
				return
			}
		}
		out[name] = v
	}
	props, _ := s["properties"].(map[string]any)
	for name, v := range props {
		merge(name, contractDeref(doc, v))
	}
	all, _ := s["allOf"].([]any)
	for _, sub := range all {
		m, _ := sub.(map[string]any)
		for k, v := range contractPropSchemas(doc, m, seen) {
			merge(k, v)
		}
	}
	return out
}

// TestOpenAPIContractRefs: every $ref and discriminator mapping resolves.
func TestOpenAPIContractRefs(t *testing.T) {
	doc := loadContractDoc(t)
	refs := 0
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range contractSortedKeys(x) {
				switch {
				case k == "$ref":
					refs++
					ref, _ := x[k].(string)
					if _, ok := contractPointer(doc, ref); !ok {
						t.Errorf("%s: $ref %q does not resolve", where, ref)
					}
				case k == "mapping" && strings.HasSuffix(where, "/discriminator"):
					mapping, _ := x[k].(map[string]any)
					for name, target := range mapping {
						ref, _ := target.(string)
						if _, ok := contractPointer(doc, ref); !ok {
							t.Errorf("%s: mapping %s → %q does not resolve", where, name, ref)
						}
					}
				case (k == "example" || k == "examples") && !strings.HasSuffix(where, "/properties"):
					// Example values are data, not document structure.
				default:
					walk(where+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), x[k])
				}
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s/%d", where, i), e)
			}
		}
	}
	walk("#", doc)
	if refs == 0 {
		t.Error("no $ref found; the walk is broken")
	}
}

// TestOpenAPIContractMethodNotAllowed: the document says, for every path,
// which methods the server's 405 names in Allow: its operations' methods,
// and HEAD wherever GET is, the rule Handler in api.go follows.
func TestOpenAPIContractMethodNotAllowed(t *testing.T) {
	doc := loadContractDoc(t)
	ext, _ := doc["x-garrison-method-not-allowed"].(map[string]any)
	if ext == nil {
		t.Fatal("the document does not say where 405 method_not_allowed applies (x-garrison-method-not-allowed)")
	}
	resp := contractDeref(doc, ext["response"])
	headers, _ := resp["headers"].(map[string]any)
	if _, ok := headers["Allow"]; !ok {
		t.Error("the 405 response has no Allow header")
	}
	allow, _ := ext["allow"].(map[string]any)
	paths, _ := doc["paths"].(map[string]any)
	for _, path := range contractSortedKeys(paths) {
		item, _ := paths[path].(map[string]any)
		var methods []string
		for _, m := range contractMethods {
			if _, ok := item[m]; ok {
				methods = append(methods, strings.ToUpper(m))
				if m == "get" {
					methods = append(methods, "HEAD")
				}
			}
		}
		sort.Strings(methods)
		if got, want := allow[path], strings.Join(methods, ", "); got != want {
			t.Errorf("%s: 405 Allow documented as %v, the path's operations make it %q", path, got, want)
		}
	}
	for path := range allow {
		if _, ok := paths[path]; !ok {
			t.Errorf("405 Allow documented for %s, which is not a path of the document", path)
		}
	}
}

// contractGoRegexp compiles an ECMA-262 pattern of the document with Go's
// regexp: a \u escape (four hex digits) becomes \x{...}.
func contractGoRegexp(t *testing.T, pattern string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(regexp.MustCompile(`\\u([0-9A-Fa-f]{4})`).ReplaceAllString(pattern, `\x{$1}`))
	if err != nil {
		t.Fatalf("pattern %q: %v", pattern, err)
	}
	return re
}

func contractSchema(t *testing.T, doc map[string]any, ref string) map[string]any {
	t.Helper()
	v, ok := contractPointer(doc, ref)
	s, _ := v.(map[string]any)
	if !ok || s == nil {
		t.Fatalf("%s is not in the document", ref)
	}
	return s
}

// contractLength is a string schema's minLength and maxLength (characters).
func contractLength(s map[string]any) (lo, hi int) {
	lo, hi = 0, 1<<30
	if v, ok := s["minLength"].(float64); ok {
		lo = int(v)
	}
	if v, ok := s["maxLength"].(float64); ok {
		hi = int(v)
	}
	return lo, hi
}

// contractAssigned reports whether r is an assigned code point: the
// document's patterns cannot know which code points Unicode has not
// assigned yet, so there alone they may accept what the server refuses.
func contractAssigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf,
		unicode.Co)
}

// TestOpenAPIContractTextRules: the patterns of names, free text and host
// names, and the password bounds, are package valid's and credential's.
func TestOpenAPIContractTextRules(t *testing.T) {
	doc := loadContractDoc(t)

	name := contractSchema(t, doc, "#/components/schemas/Name")
	nameRE := contractGoRegexp(t, name["pattern"].(string))
	lo, hi := contractLength(name)
	docName := func(s string) bool {
		n := utf8.RuneCountInString(s)
		return n >= lo && n <= hi && nameRE.MatchString(s)
	}
	note := contractSchema(t, doc, "#/components/schemas/AlertUpdateRequest/properties/note")
	textRE := contractGoRegexp(t, note["pattern"].(string))

	for _, s := range []string{"Ann", "Ann Example", "Zoë", "東京 MSP", "🎉 party", "a-b_c.d", "x",
		strings.Repeat("n", valid.MaxName), strings.Repeat("é", valid.MaxName), "", " Ann", "Ann ", "A\tB",
		"A\nB", "a\u00a0b", "a\u200bb", "\u0085x", "x\x7f", "a\u2028b", "\ufeffAnn", "a\ue000b",
		strings.Repeat("n", valid.MaxName+1)} {
		if got, want := docName(s), valid.Name(s); got != want {
			t.Errorf("Name %q: the document says %v, valid.Name %v", s, got, want)
		}
	}
	for _, s := range []string{"", "plain", "two\nlines\tand a tab", "ünïcödé", "bell\a", "nul\x00", "del\x7f",
		"cr\r", "vt\v", "\u0085 C1 is text"} {
		if got, want := textRE.MatchString(s), valid.Text(s); got != want {
			t.Errorf("Text %q: the document says %v, valid.Text %v", s, got, want)
		}
	}
	// Every code point of the Basic Multilingual Plane, inside a name and in
	// free text: the document and the server agree but on unassigned ones.
	for r := rune(0); r <= 0xFFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		s := "a" + string(r) + "b"
		if got, want := docName(s), valid.Name(s); got != want && (contractAssigned(r) || !got) {
			t.Errorf("Name with %U: the document says %v, valid.Name %v", r, got, want)
		}
		if got, want := textRE.MatchString(s), valid.Text(s); got != want {
			t.Errorf("Text with %U: the document says %v, valid.Text %v", r, got, want)
		}
	}

	host := contractSchema(t, doc, "#/components/schemas/Host")
	branches, _ := host["anyOf"].([]any)
	if len(branches) == 0 {
		t.Fatal("Host has no anyOf branches")
	}
	hostName, _ := branches[0].(map[string]any)
	hostRE := contractGoRegexp(t, hostName["pattern"].(string))
	_, hostMax := contractLength(hostName)
	for _, s := range []string{"ws-07", "ws-07.acme.local", "WS_07.Acme.Local", "10.0.0.21", "a", "",
		"trailing.dot.", ".leading", "two..dots", "sp ace", "ünï.example", strings.Repeat("a", 63) + ".x",
		strings.Repeat("a", 64) + ".x", strings.Repeat("abcdefghi.", 25) + "abc", strings.Repeat("abcdefghi.", 25) + "abcd"} {
		got := len(s) <= hostMax && hostRE.MatchString(s)
		if want := valid.DomainName(s); got != want {
			t.Errorf("host name %q: the document says %v, valid.DomainName %v", s, got, want)
		}
	}

	pw := contractSchema(t, doc, "#/components/schemas/NewPassword")
	if lo, hi := contractLength(pw); lo != credential.MinPasswordLen || hi != credential.MaxPasswordLen {
		t.Errorf("NewPassword is %d to %d long; credential takes %d to %d bytes", lo, hi,
			credential.MinPasswordLen, credential.MaxPasswordLen)
	}
	for _, p := range []string{strings.Repeat("x", credential.MinPasswordLen-1), strings.Repeat("x", credential.MaxPasswordLen+1)} {
		if credential.PasswordProblem(p) == "" {
			t.Errorf("credential accepts a password of %d bytes, outside the document's bounds", len(p))
		}
	}
}
