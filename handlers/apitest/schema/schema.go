// Package schema is a small JSON Schema (2020-12) validator for the subset
// docs/openapi.json uses, so the API tests can check the server's real
// answers against the documented schemas. Standard library only.
//
// Handled: $ref (local, "#/..."), type (one or a list, "null" included),
// properties, patternProperties, additionalProperties,
// unevaluatedProperties, required, dependentRequired, minProperties,
// maxProperties, items, minItems, maxItems, uniqueItems, enum, const,
// allOf, anyOf, oneOf, not, if/then/else, minLength, maxLength, pattern,
// minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf.
//
// Deliberately ignored (annotations, or OpenAPI vocabulary that does not
// constrain the instance): format, discriminator (used only to pick which
// branch's errors to report; oneOf alone decides validity), title,
// description, default, examples, example, deprecated, readOnly,
// writeOnly, $comment, externalDocs, xml, $schema, $id, $anchor, $defs
// (its schemas are compiled when referenced) and every x-* extension.
// Any other keyword is ignored but listed in Doc.Unsupported, so a test can
// insist that the validator understands every keyword a document uses.
//
// Patterns are ECMA-262 in JSON Schema and RE2 in Go: a \u escape (four
// hex digits) is rewritten to RE2's \x{...}; a pattern Go still cannot
// compile (a lookahead, say) is left unchecked and noted once (Doc.Notes),
// which the project's own document may not have
// (TestOpenAPIResponseValidatorCoversDocument). Go's \s is ASCII white space, ECMA-262's also
// Unicode's: so \S and [^\s...] match a little more in Go (U+00A0, say),
// which can miss a violation but never invents one.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is one violation: where in the instance, which keyword of which
// schema, and what is wrong.
type Error struct {
	Path    string // JSON path of the instance value, e.g. $.data[0].severity
	Keyword string // absolute keyword location, e.g. #/components/schemas/alertView/properties/severity/enum
	Message string
}

func (e Error) Error() string { return e.Path + ": " + e.Message + " (" + e.Keyword + ")" }

// Schema is a compiled schema. It is safe for concurrent use.
type Schema struct {
	loc     string
	boolean *bool // the schema true or false

	ref         *Schema
	types       []string
	properties  map[string]*Schema
	propNames   []string // sorted, for stable error order
	patternProp []patternProp
	additional  *Schema
	unevaluated *Schema
	required    []string
	depRequired map[string][]string
	minProps    int
	maxProps    int // -1: none
	items       *Schema
	minItems    int
	maxItems    int // -1: none
	unique      bool
	enum        []any
	hasEnum     bool
	constVal    any
	hasConst    bool
	allOf       []*Schema
	anyOf       []*Schema
	oneOf       []*Schema
	not         *Schema
	ifS         *Schema
	thenS       *Schema
	elseS       *Schema
	minLength   int
	maxLength   int // -1: none
	pattern     *regexp.Regexp
	patternSrc  string
	minimum     *float64
	maximum     *float64
	exclMin     *float64
	exclMax     *float64
	multipleOf  *float64
	discProp    string
	discMap     map[string]*Schema
}

type patternProp struct {
	re     *regexp.Regexp
	schema *Schema
}

// Location is the schema's absolute location in its document.
func (s *Schema) Location() string { return s.loc }

// Types is the schema's type keyword, following $ref; nil if it has none.
func (s *Schema) Types() []string {
	for s != nil {
		if len(s.types) > 0 {
			return s.types
		}
		s = s.ref
	}
	return nil
}

// Doc is a JSON document holding schemas (an OpenAPI document, or a bare
// schema), compiled on demand and cached by location. Compile is not safe
// for concurrent use; validation is.
type Doc struct {
	root     any
	compiled map[string]*Schema
	// Notes says what the validator had to leave out (patterns Go cannot
	// compile), once each.
	Notes []string
	// Unsupported lists keywords the validator does not know, once per
	// place; they are ignored, so a test should insist this stays empty.
	Unsupported []string
}

// NewDoc wraps a decoded JSON document.
func NewDoc(root any) *Doc { return &Doc{root: root, compiled: map[string]*Schema{}} }

// Parse decodes a JSON document.
func Parse(raw []byte) (*Doc, error) {
	v, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	return NewDoc(v), nil
}

// Decode decodes JSON keeping numbers exact (json.Number), as Validate
// wants them; it refuses anything after the value.
func Decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

// Resolve follows a local JSON pointer ("#", "#/components/schemas/X").
func (d *Doc) Resolve(ref string) (any, error) {
	if ref == "#" || ref == "" {
		return d.root, nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("$ref %q: only local references (#/...) are supported", ref)
	}
	cur := d.root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("$ref %q: no %q", ref, tok)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("$ref %q: no index %q", ref, tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("$ref %q: %q is inside a scalar", ref, tok)
		}
	}
	return cur, nil
}

// Pointer escapes one JSON pointer token.
func Pointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// Compile compiles the schema at a location of the document.
func (d *Doc) Compile(loc string) (*Schema, error) {
	if s, ok := d.compiled[loc]; ok {
		return s, nil
	}
	v, err := d.Resolve(loc)
	if err != nil {
		return nil, err
	}
	return d.compile(v, loc)
}

// CompileValue compiles a schema given as a value (one not in the
// document, such as a test's inline schema); loc names it in errors, and
// its $refs resolve against the document.
func (d *Doc) CompileValue(v any, loc string) (*Schema, error) { return d.compile(v, loc) }

// ignored are the keywords that do not constrain an instance.
var ignored = map[string]bool{
	"format": true, "discriminator": true, "title": true, "description": true, "default": true,
	"examples": true, "example": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"$comment": true, "externalDocs": true, "xml": true, "$schema": true, "$id": true, "$anchor": true,
	"$defs": true,
}

func (d *Doc) compile(v any, loc string) (*Schema, error) {
	if s, ok := d.compiled[loc]; ok {
		return s, nil
	}
	s := &Schema{loc: loc, maxProps: -1, maxItems: -1, maxLength: -1}
	d.compiled[loc] = s // before the subschemas, so a cycle of $refs ends here
	switch m := v.(type) {
	case bool:
		s.boolean = &m
		return s, nil
	case map[string]any:
		if err := d.fill(s, m); err != nil {
			delete(d.compiled, loc)
			return nil, err
		}
		return s, nil
	default:
		delete(d.compiled, loc)
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean, not %s", loc, typeName(v))
	}
}

func (d *Doc) fill(s *Schema, m map[string]any) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	loc := s.loc
	sub := func(k string, v any) (*Schema, error) { return d.compile(v, loc+"/"+Pointer(k)) }
	list := func(k string, v any) ([]*Schema, error) {
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			return nil, fmt.Errorf("%s/%s: want a non-empty array of schemas", loc, k)
		}
		out := make([]*Schema, len(arr))
		for i, x := range arr {
			c, err := d.compile(x, loc+"/"+k+"/"+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	num := func(k string, v any) (*float64, error) {
		f, ok := number(v)
		if !ok {
			return nil, fmt.Errorf("%s/%s: want a number, not %s", loc, k, typeName(v))
		}
		return &f, nil
	}
	count := func(k string, v any) (int, error) {
		f, ok := number(v)
		if !ok || f < 0 || f != math.Trunc(f) {
			return 0, fmt.Errorf("%s/%s: want a non-negative integer", loc, k)
		}
		return int(f), nil
	}
	strs := func(k string, v any) ([]string, error) {
		arr, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s/%s: want an array of strings", loc, k)
		}
		out := make([]string, len(arr))
		for i, x := range arr {
			str, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s/%s/%d: want a string", loc, k, i)
			}
			out[i] = str
		}
		return out, nil
	}
	var err error
	for _, k := range keys {
		v := m[k]
		switch {
		case ignored[k] || strings.HasPrefix(k, "x-"):
			if k == "discriminator" {
				err = d.discriminator(s, v)
			}
		case k == "$ref":
			ref, ok := v.(string)
			if !ok {
				return fmt.Errorf("%s/$ref: want a string", loc)
			}
			var target any
			if target, err = d.Resolve(ref); err == nil {
				s.ref, err = d.compile(target, ref)
			}
		case k == "type":
			switch t := v.(type) {
			case string:
				s.types = []string{t}
			default:
				s.types, err = strs(k, v)
			}
			for _, t := range s.types {
				switch t {
				case "null", "boolean", "object", "array", "number", "integer", "string":
				default:
					return fmt.Errorf("%s/type: unknown type %q", loc, t)
				}
			}
		case k == "properties" || k == "patternProperties":
			props, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("%s/%s: want an object", loc, k)
			}
			names := make([]string, 0, len(props))
			for name := range props {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				c, err := d.compile(props[name], loc+"/"+k+"/"+Pointer(name))
				if err != nil {
					return err
				}
				if k == "properties" {
					if s.properties == nil {
						s.properties = map[string]*Schema{}
					}
					s.properties[name] = c
					s.propNames = append(s.propNames, name)
					continue
				}
				re, ok := d.regexp(name, loc+"/"+k)
				if ok {
					s.patternProp = append(s.patternProp, patternProp{re, c})
				}
			}
		case k == "additionalProperties":
			s.additional, err = sub(k, v)
		case k == "unevaluatedProperties":
			s.unevaluated, err = sub(k, v)
		case k == "items":
			s.items, err = sub(k, v)
		case k == "not":
			s.not, err = sub(k, v)
		case k == "if":
			s.ifS, err = sub(k, v)
		case k == "then":
			s.thenS, err = sub(k, v)
		case k == "else":
			s.elseS, err = sub(k, v)
		case k == "allOf":
			s.allOf, err = list(k, v)
		case k == "anyOf":
			s.anyOf, err = list(k, v)
		case k == "oneOf":
			s.oneOf, err = list(k, v)
		case k == "required":
			s.required, err = strs(k, v)
		case k == "dependentRequired":
			deps, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("%s/%s: want an object", loc, k)
			}
			s.depRequired = map[string][]string{}
			for name, x := range deps {
				if s.depRequired[name], err = strs(k+"/"+Pointer(name), x); err != nil {
					return err
				}
			}
		case k == "enum":
			arr, ok := v.([]any)
			if !ok {
				return fmt.Errorf("%s/enum: want an array", loc)
			}
			s.enum, s.hasEnum = arr, true
		case k == "const":
			s.constVal, s.hasConst = v, true
		case k == "minLength":
			s.minLength, err = count(k, v)
		case k == "maxLength":
			s.maxLength, err = count(k, v)
		case k == "minItems":
			s.minItems, err = count(k, v)
		case k == "maxItems":
			s.maxItems, err = count(k, v)
		case k == "minProperties":
			s.minProps, err = count(k, v)
		case k == "maxProperties":
			s.maxProps, err = count(k, v)
		case k == "uniqueItems":
			b, ok := v.(bool)
			if !ok {
				return fmt.Errorf("%s/uniqueItems: want a boolean", loc)
			}
			s.unique = b
		case k == "pattern":
			src, ok := v.(string)
			if !ok {
				return fmt.Errorf("%s/pattern: want a string", loc)
			}
			s.patternSrc = src
			s.pattern, _ = d.regexp(src, loc+"/pattern")
		case k == "minimum":
			s.minimum, err = num(k, v)
		case k == "maximum":
			s.maximum, err = num(k, v)
		case k == "exclusiveMinimum":
			s.exclMin, err = num(k, v)
		case k == "exclusiveMaximum":
			s.exclMax, err = num(k, v)
		case k == "multipleOf":
			s.multipleOf, err = num(k, v)
			if err == nil && *s.multipleOf <= 0 {
				err = fmt.Errorf("%s/multipleOf: must be positive", loc)
			}
		default:
			d.Unsupported = append(d.Unsupported, fmt.Sprintf("%s: keyword %q is not supported by this validator; ignored", loc, k))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// discriminator remembers an OpenAPI discriminator's property and mapping;
// it only chooses which oneOf/anyOf branch's errors are reported.
func (d *Doc) discriminator(s *Schema, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s/discriminator: want an object", s.loc)
	}
	s.discProp, _ = m["propertyName"].(string)
	mapping, _ := m["mapping"].(map[string]any)
	for value, x := range mapping {
		ref, ok := x.(string)
		if !ok {
			continue
		}
		target, err := d.Resolve(ref)
		if err != nil {
			return fmt.Errorf("%s/discriminator/mapping/%s: %v", s.loc, value, err)
		}
		c, err := d.compile(target, ref)
		if err != nil {
			return err
		}
		if s.discMap == nil {
			s.discMap = map[string]*Schema{}
		}
		s.discMap[value] = c
	}
	return nil
}

// regexp compiles an ECMA-262 pattern as Go RE2, noting once one it cannot.
func (d *Doc) regexp(src, loc string) (*regexp.Regexp, bool) {
	re, err := regexp.Compile(goPattern(src))
	if err != nil {
		d.Notes = append(d.Notes, fmt.Sprintf("%s: pattern %q left unchecked: Go cannot compile it: %v", loc, src, err))
		return nil, false
	}
	return re, true
}

// goPattern rewrites ECMA-262's \u escapes (four hex digits) as RE2's
// \x{...} with the same digits.
func goPattern(src string) string {
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\\' || i+1 >= len(src) {
			b.WriteByte(c)
			continue
		}
		if src[i+1] == 'u' && i+6 <= len(src) && isHex(src[i+2:i+6]) {
			b.WriteString(`\x{` + src[i+2:i+6] + `}`)
			i += 5
			continue
		}
		b.WriteByte(c)
		b.WriteByte(src[i+1])
		i++
	}
	return b.String()
}

func isHex(s string) bool {
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// Validate checks an instance (as Decode gives it; float64 and int numbers
// are accepted too) and returns every violation, in a stable order.
func (s *Schema) Validate(instance any) []Error {
	errs, _ := s.validate(instance, "$")
	return errs
}

// validate returns the violations and, for an object, the names of the
// properties this schema evaluated (for unevaluatedProperties).
func (s *Schema) validate(v any, path string) (errs []Error, evaluated map[string]bool) {
	if s.boolean != nil {
		if !*s.boolean {
			return []Error{{path, s.loc, "no value is allowed here (schema false)"}}, nil
		}
		// true evaluates no property by itself: only properties,
		// patternProperties, additionalProperties and unevaluatedProperties do.
		return nil, nil
	}
	obj, isObj := v.(map[string]any)
	if isObj {
		evaluated = map[string]bool{}
	}
	merge := func(ev map[string]bool) {
		for k := range ev {
			evaluated[k] = true
		}
	}
	kw := func(k string) string { return s.loc + "/" + k }
	fail := func(k, format string, args ...any) {
		errs = append(errs, Error{path, kw(k), fmt.Sprintf(format, args...)})
	}

	if s.ref != nil {
		e, ev := s.ref.validate(v, path)
		errs = append(errs, e...)
		merge(ev)
	}
	if len(s.types) > 0 && !hasType(v, s.types) {
		fail("type", "want %s, got %s", strings.Join(s.types, " or "), describe(v))
		// The other keywords would only repeat the mismatch.
		return errs, evaluated
	}
	if s.hasConst && !equal(v, s.constVal) {
		fail("const", "want %s, got %s", show(s.constVal), show(v))
	}
	if s.hasEnum {
		ok := false
		for _, e := range s.enum {
			if equal(v, e) {
				ok = true
				break
			}
		}
		if !ok {
			var vals []string
			for _, e := range s.enum {
				vals = append(vals, show(e))
			}
			fail("enum", "%s is not one of %s", show(v), strings.Join(vals, ", "))
		}
	}

	switch x := v.(type) {
	case string:
		n := utf8.RuneCountInString(x)
		if n < s.minLength {
			fail("minLength", "length %d is under minLength %d", n, s.minLength)
		}
		if s.maxLength >= 0 && n > s.maxLength {
			fail("maxLength", "length %d is over maxLength %d", n, s.maxLength)
		}
		if s.pattern != nil && !s.pattern.MatchString(x) {
			fail("pattern", "%s does not match pattern %s", show(x), s.patternSrc)
		}
	case []any:
		if len(x) < s.minItems {
			fail("minItems", "%d items, under minItems %d", len(x), s.minItems)
		}
		if s.maxItems >= 0 && len(x) > s.maxItems {
			fail("maxItems", "%d items, over maxItems %d", len(x), s.maxItems)
		}
		if s.unique {
		dup:
			for i := range x {
				for j := i + 1; j < len(x); j++ {
					if equal(x[i], x[j]) {
						fail("uniqueItems", "items %d and %d are equal", i, j)
						break dup
					}
				}
			}
		}
		if s.items != nil {
			for i, item := range x {
				e, _ := s.items.validate(item, path+"["+strconv.Itoa(i)+"]")
				errs = append(errs, e...)
			}
		}
	case map[string]any:
		errs = append(errs, s.validateObject(obj, path, evaluated)...)
	default:
		if f, ok := number(v); ok {
			if s.minimum != nil && f < *s.minimum {
				fail("minimum", "%s is under minimum %s", show(v), show(*s.minimum))
			}
			if s.maximum != nil && f > *s.maximum {
				fail("maximum", "%s is over maximum %s", show(v), show(*s.maximum))
			}
			if s.exclMin != nil && f <= *s.exclMin {
				fail("exclusiveMinimum", "%s is not over exclusiveMinimum %s", show(v), show(*s.exclMin))
			}
			if s.exclMax != nil && f >= *s.exclMax {
				fail("exclusiveMaximum", "%s is not under exclusiveMaximum %s", show(v), show(*s.exclMax))
			}
			if s.multipleOf != nil {
				if q := f / *s.multipleOf; q != math.Trunc(q) {
					fail("multipleOf", "%s is not a multiple of %s", show(v), show(*s.multipleOf))
				}
			}
		}
	}

	for _, c := range s.allOf {
		e, ev := c.validate(v, path)
		errs = append(errs, e...)
		merge(ev)
	}
	if len(s.anyOf) > 0 {
		e, ev := s.alternatives("anyOf", s.anyOf, v, path)
		errs = append(errs, e...)
		merge(ev)
	}
	if len(s.oneOf) > 0 {
		e, ev := s.alternatives("oneOf", s.oneOf, v, path)
		errs = append(errs, e...)
		merge(ev)
	}
	if s.not != nil {
		if e, _ := s.not.validate(v, path); len(e) == 0 {
			fail("not", "must not match the schema at %s", s.not.loc)
		}
	}
	if s.ifS != nil {
		e, ev := s.ifS.validate(v, path)
		branch := s.elseS
		if len(e) == 0 {
			merge(ev)
			branch = s.thenS
		}
		if branch != nil {
			e, ev := branch.validate(v, path)
			errs = append(errs, e...)
			merge(ev)
		}
	}
	if isObj && s.unevaluated != nil {
		for _, k := range sortedKeys(obj) {
			if evaluated[k] {
				continue
			}
			if s.unevaluated.boolean != nil && !*s.unevaluated.boolean {
				errs = append(errs, Error{child(path, k), kw("unevaluatedProperties"),
					fmt.Sprintf("property %q is not allowed (unevaluatedProperties is false)", k)})
				continue
			}
			e, _ := s.unevaluated.validate(obj[k], child(path, k))
			errs = append(errs, e...)
		}
		for k := range obj {
			evaluated[k] = true
		}
	}
	return errs, evaluated
}

func (s *Schema) validateObject(obj map[string]any, path string, evaluated map[string]bool) (errs []Error) {
	kw := func(k string) string { return s.loc + "/" + k }
	var missing []string
	for _, k := range s.required {
		if _, ok := obj[k]; !ok {
			missing = append(missing, strconv.Quote(k))
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		errs = append(errs, Error{path, kw("required"), "required property " + missing[0] + " is missing"})
	default:
		errs = append(errs, Error{path, kw("required"), "required properties " + strings.Join(missing, ", ") + " are missing"})
	}
	for _, k := range sortedKeys(s.depRequired) {
		if _, ok := obj[k]; !ok {
			continue
		}
		for _, need := range s.depRequired[k] {
			if _, ok := obj[need]; !ok {
				errs = append(errs, Error{path, kw("dependentRequired"), fmt.Sprintf("property %q needs %q, which is missing", k, need)})
			}
		}
	}
	if len(obj) < s.minProps {
		errs = append(errs, Error{path, kw("minProperties"), fmt.Sprintf("%d properties, under minProperties %d", len(obj), s.minProps)})
	}
	if s.maxProps >= 0 && len(obj) > s.maxProps {
		errs = append(errs, Error{path, kw("maxProperties"), fmt.Sprintf("%d properties, over maxProperties %d", len(obj), s.maxProps)})
	}
	for _, k := range s.propNames {
		v, ok := obj[k]
		if !ok {
			continue
		}
		evaluated[k] = true
		e, _ := s.properties[k].validate(v, child(path, k))
		errs = append(errs, e...)
	}
	keys := sortedKeys(obj)
	matchedPattern := map[string]bool{}
	for _, pp := range s.patternProp {
		for _, k := range keys {
			if pp.re.MatchString(k) {
				matchedPattern[k], evaluated[k] = true, true
				e, _ := pp.schema.validate(obj[k], child(path, k))
				errs = append(errs, e...)
			}
		}
	}
	if s.additional != nil {
		for _, k := range keys {
			if _, ok := s.properties[k]; ok || matchedPattern[k] {
				continue
			}
			evaluated[k] = true
			if s.additional.boolean != nil && !*s.additional.boolean {
				errs = append(errs, Error{child(path, k), kw("additionalProperties"),
					fmt.Sprintf("property %q is not allowed (additionalProperties is false)", k)})
				continue
			}
			e, _ := s.additional.validate(obj[k], child(path, k))
			errs = append(errs, e...)
		}
	}
	return errs
}

// alternatives checks anyOf or oneOf. When nothing matches, it reports the
// errors of the one branch the value was evidently meant for (named by a
// discriminator, or the only branch that did not fail at once on type,
// const or enum), else one error summarizing every branch.
func (s *Schema) alternatives(k string, branches []*Schema, v any, path string) ([]Error, map[string]bool) {
	var matched []int
	var evaluated map[string]bool
	failures := make([][]Error, len(branches))
	for i, b := range branches {
		e, ev := b.validate(v, path)
		if len(e) > 0 {
			failures[i] = e
			continue
		}
		matched = append(matched, i)
		if evaluated == nil {
			evaluated = map[string]bool{}
		}
		for p := range ev {
			evaluated[p] = true
		}
	}
	loc := s.loc + "/" + k
	switch {
	case k == "oneOf" && len(matched) > 1:
		return []Error{{path, loc, fmt.Sprintf("matches %d oneOf branches (%s), want exactly one", len(matched), joinInts(matched))}}, evaluated
	case len(matched) > 0:
		return nil, evaluated
	}
	if b := s.intended(branches, failures, v, path); b >= 0 {
		return failures[b], nil
	}
	var parts []string
	for i, e := range failures {
		parts = append(parts, fmt.Sprintf("[%d] %s: %s", i, e[0].Path, e[0].Message))
	}
	return []Error{{path, loc, fmt.Sprintf("matches none of the %d %s branches: %s", len(branches), k, strings.Join(parts, "; "))}}, nil
}

func (s *Schema) intended(branches []*Schema, failures [][]Error, v any, path string) int {
	if obj, ok := v.(map[string]any); ok && s.discProp != "" {
		if val, ok := obj[s.discProp].(string); ok {
			if target := s.discMap[val]; target != nil {
				for i, b := range branches {
					if b == target || b.ref == target {
						return i
					}
				}
			}
		}
	}
	deep := -1
	for i, e := range failures {
		shallow := true
		for _, x := range e {
			if x.Path != path || !(strings.HasSuffix(x.Keyword, "/type") || strings.HasSuffix(x.Keyword, "/const") || strings.HasSuffix(x.Keyword, "/enum")) {
				shallow = false
				break
			}
		}
		if !shallow {
			if deep >= 0 {
				return -1
			}
			deep = i
		}
	}
	return deep
}

func joinInts(xs []int) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, strconv.Itoa(x))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// child is the JSON path of an object's property.
func child(path, k string) string {
	if identifier.MatchString(k) {
		return path + "." + k
	}
	return path + "[" + strconv.Quote(k) + "]"
}

// number reads any JSON number representation.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil || isRangeErr(err)
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	return 0, false
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func isInteger(v any) bool {
	if n, ok := v.(json.Number); ok {
		if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return true
		}
	}
	f, ok := number(v)
	return ok && !math.IsInf(f, 0) && f == math.Trunc(f)
}

func hasType(v any, types []string) bool {
	for _, t := range types {
		switch t {
		case "null":
			if v == nil {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "array":
			if _, ok := v.([]any); ok {
				return true
			}
		case "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case "number":
			if _, ok := number(v); ok {
				return true
			}
		case "integer":
			if isInteger(v) {
				return true
			}
		}
	}
	return false
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	if _, ok := number(v); ok {
		if isInteger(v) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// describe is a value's type and, for scalars, the value.
func describe(v any) string {
	switch v.(type) {
	case []any, map[string]any, nil:
		return typeName(v)
	}
	return typeName(v) + " " + show(v)
}

// show renders a value as short JSON.
func show(v any) string {
	if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// equal is JSON equality: numbers by value, objects by their members.
func equal(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}
