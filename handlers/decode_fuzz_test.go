package handlers

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"garrison/valid"
)

type fuzzNested struct {
	Kind  string         `json:"kind"`
	Count int            `json:"count"`
	Extra map[string]any `json:"extra"`
}

type fuzzBody struct {
	Email  string       `json:"email"`
	Flag   *bool        `json:"flag"`
	Items  []fuzzNested `json:"items"`
	Nested fuzzNested   `json:"nested"`
}

// FuzzDecodeJSON: the strict decoder never panics; it either refuses with a
// validation_error naming at least one field, or the body was valid UTF-8
// JSON whose every key matches a field exactly.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{
		`{"email":"a@b.co"}`,
		`{"items":[{"kind":"x","count":2,"extra":{"K":1}}],"nested":{"kind":"y"}}`,
		`{"EMAIL":"x"}`,
		`{"items":[{"Kind":"x"}]}`,
		`{"email":"a"} {}`,
		"{\"email\":\"\xff\"}",
		`[1,2,3]`,
		`{"flag":"yes"}`,
		`{"email":`,
		`null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var dst fuzzBody
		err := decodeJSON(body, &dst)
		if err != nil {
			var invalid *valid.Error
			if !errors.As(err, &invalid) || len(invalid.Fields()) == 0 {
				t.Fatalf("refusal is not a validation_error with fields: %v", err)
			}
			return
		}
		if !utf8.Valid(body) || !json.Valid(body) {
			t.Fatalf("accepted invalid input %q", body)
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(body, &top) == nil {
			for k := range top {
				if _, ok := jsonFields(reflect.TypeFor[fuzzBody]())[k]; !ok {
					t.Fatalf("accepted unknown key %q in %q", k, body)
				}
			}
		}
	})
}
