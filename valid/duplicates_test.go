package valid

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestDuplicateKey(t *testing.T) {
	for _, tc := range []struct {
		in, path string
	}{
		{`{}`, ""},
		{`{"a":1,"b":2}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{` { "severity" : "low" , "severity" : "critical" } `, "severity"},
		{`{"a":{"x":1},"b":{"x":1}}`, ""},
		{`{"details":{"user":"ann","user":"root"}}`, "details.user"},
		{`{"a":"b\"c","a\"":1}`, ""},
		{`{"ab":1,"a\u0062":2}`, "a\u0062"},
		{`{"items":[{"id":1},{"id":2,"id":3}]}`, "items[1].id"},
		{`[{"k":1},{"k":1,"k":2}]`, "[1].k"},
		{`{"events":[],"events":[]}`, "events"},
		{`{"a":[1,2,{"b":[{"c":null,"c":true}]}]}`, "a[2].b[0].c"},
		{`"plain"`, ""},
		{`12.5e3`, ""},
		{`{"s":"}{,:[]\\","t":[{},[]],"u":{"v":{}}}`, ""},
	} {
		if !json.Valid([]byte(tc.in)) {
			t.Fatalf("bad case %s", tc.in)
		}
		path, found := DuplicateKey([]byte(tc.in))
		if found != (tc.path != "") || path != tc.path {
			t.Errorf("DuplicateKey(%s) = %q, %v; want %q", tc.in, path, found, tc.path)
		}
	}
}

func FuzzDuplicateKey(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[1,{"c":2,"c":3}]}}`, `[1,"x",null]`, `{"\u0061":1,"a":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		_, found := DuplicateKey([]byte(s))
		// Against decoding into maps: a duplicate is there exactly when
		// the decode loses a key.
		if lost := countKeys(t, []byte(s)) != keysKept(t, []byte(s)); found != lost {
			t.Fatalf("DuplicateKey found %v in %s; decoding lost keys: %v", found, s, lost)
		}
	})
}

// countKeys counts every key as written; keysKept counts the keys a decode
// into maps keeps.
func countKeys(t *testing.T, b []byte) int {
	n := 0
	var walk func(v json.RawMessage)
	walk = func(v json.RawMessage) {
		if m, ok := Members(v); ok {
			for _, mm := range m {
				n++
				walk(mm.Value)
			}
			return
		}
		var arr []json.RawMessage
		if json.Unmarshal(v, &arr) == nil {
			for _, e := range arr {
				walk(e)
			}
		}
	}
	walk(b)
	return n
}

func keysKept(t *testing.T, b []byte) int {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // 1E1000 is valid JSON, past a float64
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				n++
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return n
}

func TestDuplicateEmptyKey(t *testing.T) {
	if path, found := DuplicateKey([]byte(`{"":1,"":2}`)); !found || path != "" {
		t.Fatalf("%q %v", path, found)
	}
	if path, found := DuplicateKey([]byte(`{"a":{"":1,"":2}}`)); !found || path != "a." {
		t.Fatalf("%q %v", path, found)
	}
}
