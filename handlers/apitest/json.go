package apitest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
)

// JSON is a decoded JSON value (an answer's body or any part of it), read
// without type assertions. An accessor given another shape than it reads
// returns its zero value, and Get on a missing path gives an absent value,
// so a wrong answer fails the test's comparison instead of panicking. The
// Must accessors fail the test at once instead, for checks that would pass
// on a zero value.
type JSON struct {
	v    any
	path string // where the value was found, for failure messages
}

// J wraps a value encoding/json decoded into an any (map[string]any,
// []any, string, float64, bool or nil).
func J(v any) JSON {
	if m, ok := v.(map[string]any); ok && m == nil {
		v = nil
	}
	return JSON{v: v}
}

// JSON is the answer's whole body (absent if the answer had none).
func (r Response) JSON() JSON { return J(r.Body) }

// Get follows path from the answer's body: see JSON.Get.
func (r Response) Get(path ...string) JSON { return r.JSON().Get(path...) }

// Decode unmarshals the answer's body into a T, failing the test if it
// does not fit.
func Decode[T any](t testing.TB, r Response) T {
	t.Helper()
	var out T
	if err := json.Unmarshal(r.Raw, &out); err != nil {
		t.Fatalf("apitest: decoding %T: %v (%s)", out, err, r.Raw)
	}
	return out
}

// Get follows path through objects (by key) and lists (by index, written
// "0", "1", ...); the value is absent if a step is missing.
func (j JSON) Get(path ...string) JSON {
	for _, p := range path {
		next := JSON{path: join(j.path, p)}
		switch c := j.v.(type) {
		case map[string]any:
			next.v = c[p]
		case []any:
			if i, err := strconv.Atoi(p); err == nil && i >= 0 && i < len(c) {
				next.v = c[i]
			}
		}
		j = next
	}
	return j
}

// At is the list's i'th item (absent if out of range or not a list).
func (j JSON) At(i int) JSON { return j.Get(strconv.Itoa(i)) }

func join(path, step string) string {
	if path == "" {
		return step
	}
	return path + "." + step
}

// Any is the value as encoding/json decoded it (nil if absent).
func (j JSON) Any() any { return j.v }

// Str is the value if it is a string, else "".
func (j JSON) Str() string { s, _ := j.v.(string); return s }

// Float is the value if it is a number, else 0.
func (j JSON) Float() float64 { f, _ := j.v.(float64); return f }

// Int is the number truncated to an int (0 if not a number).
func (j JSON) Int() int { return int(j.Float()) }

// Bool is the value if it is a boolean, else false.
func (j JSON) Bool() bool { b, _ := j.v.(bool); return b }

// List is the list's items (nil if not a list).
func (j JSON) List() []JSON {
	l, _ := j.v.([]any)
	if l == nil {
		return nil
	}
	out := make([]JSON, len(l))
	for i, v := range l {
		out[i] = JSON{v: v, path: join(j.path, strconv.Itoa(i))}
	}
	return out
}

// Strings is the list's items as strings ("" for an item that is not one;
// nil if not a list).
func (j JSON) Strings() []string {
	var out []string
	for _, it := range j.List() {
		out = append(out, it.Str())
	}
	return out
}

// Map is the object's members (nil if not an object).
func (j JSON) Map() map[string]JSON {
	m, _ := j.v.(map[string]any)
	if m == nil {
		return nil
	}
	out := make(map[string]JSON, len(m))
	for k, v := range m {
		out[k] = JSON{v: v, path: join(j.path, k)}
	}
	return out
}

// Keys is the object's keys, sorted (nil if not an object).
func (j JSON) Keys() []string {
	m, _ := j.v.(map[string]any)
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Len is the number of a list's items or an object's members, else 0.
func (j JSON) Len() int {
	switch c := j.v.(type) {
	case []any:
		return len(c)
	case map[string]any:
		return len(c)
	}
	return 0
}

// Has reports whether the value is an object with the key (even if null).
func (j JSON) Has(key string) bool {
	m, _ := j.v.(map[string]any)
	_, ok := m[key]
	return ok
}

// IsNull reports whether the value is null or absent.
func (j JSON) IsNull() bool { return j.v == nil }

// IsStr reports whether the value is a string.
func (j JSON) IsStr() bool { _, ok := j.v.(string); return ok }

// IsFloat reports whether the value is a number.
func (j JSON) IsFloat() bool { _, ok := j.v.(float64); return ok }

// IsList reports whether the value is a list.
func (j JSON) IsList() bool { _, ok := j.v.([]any); return ok }

// IsObject reports whether the value is an object.
func (j JSON) IsObject() bool { _, ok := j.v.(map[string]any); return ok }

// Is reports whether the value is want: nil matches null or absent, a Go
// number matches an equal JSON number, and a string or bool matches the
// same string or bool. Unlike Str() == "", Is("") is false when absent.
func (j JSON) Is(want any) bool {
	switch w := want.(type) {
	case nil:
		return j.v == nil
	case string:
		s, ok := j.v.(string)
		return ok && s == w
	case bool:
		b, ok := j.v.(bool)
		return ok && b == w
	case JSON:
		return j.Equal(w)
	}
	f, ok := j.v.(float64)
	if !ok {
		return false
	}
	switch w := want.(type) {
	case float64:
		return f == w
	case float32:
		return f == float64(w)
	case int:
		return f == float64(w)
	case int64:
		return f == float64(w)
	case int32:
		return f == float64(w)
	case uint:
		return f == float64(w)
	case uint64:
		return f == float64(w)
	}
	return false
}

// Equal reports whether two values hold the same JSON (objects and lists
// compared member by member).
func (j JSON) Equal(o JSON) bool {
	a, errA := json.Marshal(j.v)
	b, errB := json.Marshal(o.v)
	return errA == nil && errB == nil && string(a) == string(b)
}

// String is the value as JSON text ("null" if absent), for messages.
func (j JSON) String() string {
	b, err := json.Marshal(j.v)
	if err != nil {
		return fmt.Sprint(j.v)
	}
	return string(b)
}

// MustStr is Str, failing the test unless the value is a string.
func (j JSON) MustStr(t testing.TB) string {
	t.Helper()
	s, ok := j.v.(string)
	if !ok {
		j.fail(t, "a string")
	}
	return s
}

// MustFloat is Float, failing the test unless the value is a number.
func (j JSON) MustFloat(t testing.TB) float64 {
	t.Helper()
	f, ok := j.v.(float64)
	if !ok {
		j.fail(t, "a number")
	}
	return f
}

// MustInt is Int, failing the test unless the value is a number.
func (j JSON) MustInt(t testing.TB) int {
	t.Helper()
	return int(j.MustFloat(t))
}

// MustBool is Bool, failing the test unless the value is a boolean.
func (j JSON) MustBool(t testing.TB) bool {
	t.Helper()
	b, ok := j.v.(bool)
	if !ok {
		j.fail(t, "a boolean")
	}
	return b
}

// MustList is List, failing the test unless the value is a list.
func (j JSON) MustList(t testing.TB) []JSON {
	t.Helper()
	if !j.IsList() {
		j.fail(t, "a list")
	}
	return j.List()
}

// MustObject returns the value, failing the test unless it is an object.
func (j JSON) MustObject(t testing.TB) JSON {
	t.Helper()
	if !j.IsObject() {
		j.fail(t, "an object")
	}
	return j
}

// MustMap is Map, failing the test unless the value is an object.
func (j JSON) MustMap(t testing.TB) map[string]JSON {
	t.Helper()
	return j.MustObject(t).Map()
}

func (j JSON) fail(t testing.TB, want string) {
	t.Helper()
	where := j.path
	if where == "" {
		where = "value"
	}
	got := "null or absent"
	if j.v != nil {
		got = j.String()
	}
	t.Fatalf("apitest: %s is %s, want %s", where, got, want)
}
