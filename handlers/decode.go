package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"garrison/valid"
)

// decode reads a JSON object body into dst strictly: JSON content type,
// valid UTF-8, one object, no unknown fields (compared case-sensitively, as
// Go's decoder alone would accept "ROLE" for "role"), no trailing data. An
// empty body decodes as {} so required-field checks report what is missing.
func decode(r *http.Request, dst any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return decodeJSON(body, dst)
}

// readBody returns a request's JSON body, {} when empty, after checking the
// content type.
func readBody(r *http.Request) ([]byte, error) {
	return readBodyAs(r, "application/json")
}

// readBodyAs is readBody for bodies that may come as any of the media types.
func readBodyAs(r *http.Request, mediaTypes ...string) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, err
		}
		return nil, valid.Field("body", "could not be read")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return []byte("{}"), nil
	}
	if err := checkMediaType(r, mediaTypes...); err != nil {
		return nil, err
	}
	return body, nil
}

// checkMediaType refuses a Content-Type other than the given ones, and a
// charset other than UTF-8 (or ASCII, its subset): the body is read as
// UTF-8 whatever it says.
func checkMediaType(r *http.Request, mediaTypes ...string) error {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || !slices.Contains(mediaTypes, mt) {
		return valid.Field("Content-Type", "must be "+strings.Join(mediaTypes, " or "))
	}
	if cs, ok := params["charset"]; ok && !slices.Contains([]string{"utf-8", "utf8", "us-ascii", "ascii"}, strings.ToLower(cs)) {
		return valid.Field("Content-Type", "must have charset utf-8, or none")
	}
	return nil
}

// decodeJSON is decode without the HTTP part; fuzzed directly.
func decodeJSON(body []byte, dst any) error {
	if !utf8.Valid(body) {
		return valid.Field("body", "is not valid UTF-8")
	}
	if err := checkKeys(body, reflect.TypeOf(dst), ""); err != nil {
		return err
	}
	// Go decodes null into a struct as nothing at all: a body of null would
	// pass as {}.
	if k := reflect.TypeOf(dst).Elem().Kind(); (k == reflect.Struct || k == reflect.Map) &&
		!bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")) {
		return valid.Field("body", "must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return valid.Field("body", "must contain a single JSON object")
	}
	return nil
}

// decodeError turns a decoder error into a client-safe validation error.
func decodeError(err error) error {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntaxErr):
		return valid.Field("body", fmt.Sprintf("is malformed JSON (at byte %d)", syntaxErr.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return valid.Field("body", "is malformed JSON (unexpected end)")
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return valid.Field("body", "must be a JSON object")
		}
		return valid.Field(typeErr.Field, "must be "+jsonKind(typeErr.Type))
	}
	return valid.Field("body", "is not a valid JSON object")
}

func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "of another type"
}

// fieldInfo is what the strict decoder knows of a struct field: its type,
// and whether JSON null (tag option "notnull") or the empty string (tag
// option "notempty") is refused for it, for fields where either would
// silently mean the default.
type fieldInfo struct {
	typ               reflect.Type
	notNull, notEmpty bool
}

// fieldNames caches, per struct type, the exact JSON name of each field.
var fieldNames sync.Map // reflect.Type → map[string]fieldInfo

func jsonFields(t reflect.Type) map[string]fieldInfo {
	if m, ok := fieldNames.Load(t); ok {
		return m.(map[string]fieldInfo)
	}
	m := map[string]fieldInfo{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		options := strings.Split(opts, ",")
		m[name] = fieldInfo{typ: f.Type, notNull: slices.Contains(options, "notnull"), notEmpty: slices.Contains(options, "notempty")}
	}
	fieldNames.Store(t, m)
	return m
}

// checkKeys walks body alongside the Go type and refuses any object key that
// is not exactly a field's JSON name or that is given twice (Go's decoder
// would keep the last, another reader the first), null for a notnull field
// and "" for a notempty one. Values of other shapes are left for the
// decoder to judge.
func checkKeys(body []byte, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := valid.Members(body)
		if !ok {
			return nil
		}
		fields := jsonFields(t)
		seen := make(map[string]bool, len(obj))
		for _, m := range obj {
			k, v := m.Key, m.Value
			f, ok := fields[k]
			name := joinPath(path, k)
			if !ok {
				return valid.Field(name, "is not a known field")
			}
			if seen[k] {
				return valid.Field(name, "is given more than once")
			}
			seen[k] = true
			if f.notNull && bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
				return valid.Field(name, "must not be null; leave it out instead")
			}
			if f.notEmpty && bytes.Equal(bytes.TrimSpace(v), []byte(`""`)) {
				return valid.Field(name, "must not be empty; leave it out for the default")
			}
			if err := checkKeys(v, f.typ, name); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := valid.Members(body)
		if !ok {
			return nil
		}
		seen := make(map[string]bool, len(obj))
		for _, m := range obj {
			name := joinPath(path, m.Key)
			if seen[m.Key] {
				return valid.Field(name, "is given more than once")
			}
			seen[m.Key] = true
			if err := checkKeys(m.Value, t.Elem(), name); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		var items []json.RawMessage
		if json.Unmarshal(body, &items) != nil {
			return nil
		}
		for i, v := range items {
			if err := checkKeys(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
