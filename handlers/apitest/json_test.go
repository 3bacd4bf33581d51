package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

const sampleBody = `{"success":true,"data":{"id":"run_1","count":2,"ratio":0.5,"zero":0,"empty":"","no":false,"yes":true,"nothing":null,
	"tags":["a","b",3],"items":[{"name":"x"},{"name":"y"}],"nested":{"v3.1":{"score":7.5}}},"pagination":{"total":0}}`

func sample(t *testing.T) Response {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal([]byte(sampleBody), &body); err != nil {
		t.Fatal(err)
	}
	return Response{Status: http.StatusOK, Raw: []byte(sampleBody), Body: body}
}

func TestJSONAccessors(t *testing.T) {
	r := sample(t)
	d := r.Get("data")
	cases := []struct {
		name      string
		got, want any
	}{
		{"string", d.Get("id").Str(), "run_1"},
		{"string of a number", d.Get("count").Str(), ""},
		{"number", d.Get("count").Float(), 2.0},
		{"int", d.Get("count").Int(), 2},
		{"fraction", d.Get("ratio").Float(), 0.5},
		{"number of a string", d.Get("id").Float(), 0.0},
		{"bool", d.Get("yes").Bool(), true},
		{"bool of a string", d.Get("id").Bool(), false},
		{"path from the response", r.Get("data", "items", "1", "name").Str(), "y"},
		{"path through a list", d.Get("items", "0", "name").Str(), "x"},
		{"At", d.Get("items").At(1).Get("name").Str(), "y"},
		{"index out of range", d.Get("items", "2", "name").IsNull(), true},
		{"negative index", d.Get("items").At(-1).IsNull(), true},
		{"index into an object", d.Get("nested", "0").IsNull(), true},
		{"key with a dot", d.Get("nested", "v3.1", "score").Float(), 7.5},
		{"missing key", d.Get("nope", "deeper").IsNull(), true},
		{"null", d.Get("nothing").IsNull(), true},
		{"present", d.Get("zero").IsNull(), false},
		{"Has null", d.Has("nothing"), true},
		{"Has missing", d.Has("nope"), false},
		{"Has of a list", d.Get("tags").Has("0"), false},
		{"list length", d.Get("tags").Len(), 3},
		{"object length", d.Get("nested").Len(), 1},
		{"length of a string", d.Get("id").Len(), 0},
		{"List of an object", d.Get("nested").List() == nil, true},
		{"List items", len(d.Get("items").List()), 2},
		{"Strings", d.Get("tags").Strings(), []string{"a", "b", ""}},
		{"Strings of an object", d.Get("nested").Strings(), []string(nil)},
		{"Keys", d.Get("nested", "v3.1").Keys(), []string{"score"}},
		{"Map", d.Get("nested").Map()["v3.1"].Get("score").Float(), 7.5},
		{"Map of a list", d.Get("tags").Map() == nil, true},
		{"IsObject", d.Get("nested").IsObject(), true},
		{"IsList", d.Get("tags").IsList(), true},
		{"IsStr", d.Get("count").IsStr(), false},
		{"IsFloat", d.Get("count").IsFloat(), true},
		{"Any", d.Get("count").Any(), 2.0},
		{"Is number", d.Get("count").Is(2), true},
		{"Is float", d.Get("ratio").Is(0.5), true},
		{"Is zero", d.Get("zero").Is(0), true},
		{"Is zero when absent", d.Get("nope").Is(0), false},
		{"Is empty string", d.Get("empty").Is(""), true},
		{"Is empty string when absent", d.Get("nope").Is(""), false},
		{"Is false", d.Get("no").Is(false), true},
		{"Is false when absent", d.Get("nope").Is(false), false},
		{"Is nil when null", d.Get("nothing").Is(nil), true},
		{"Is nil when absent", d.Get("nope").Is(nil), true},
		{"Is string against a number", d.Get("count").Is("2"), false},
		{"Is number against a string", d.Get("id").Is(1), false},
		{"Equal", d.Get("items", "0").Equal(J(map[string]any{"name": "x"})), true},
		{"Equal absent", d.Get("nope").Equal(d.Get("nothing")), true},
		{"not Equal", d.Get("count").Equal(d.Get("zero")), false},
		{"String", d.Get("tags").String(), `["a","b",3]`},
		{"String absent", d.Get("nope").String(), "null"},
		{"whole body", r.JSON().Get("pagination", "total").Is(0), true},
		{"nil body", Response{}.JSON().IsNull(), true},
	}
	for _, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

// fatals is a testing.TB whose Fatalf records the message and returns.
type fatals struct {
	testing.TB
	msgs []string
}

func (f *fatals) Helper() {}
func (f *fatals) Fatalf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

func TestJSONMust(t *testing.T) {
	d := sample(t).Get("data")
	cases := []struct {
		name    string
		call    func(tb testing.TB) any
		want    any
		failure string // "" when the call passes
	}{
		{"MustStr", func(tb testing.TB) any { return d.Get("id").MustStr(tb) }, "run_1", ""},
		{"MustStr of a number", func(tb testing.TB) any { return d.Get("count").MustStr(tb) }, "", "apitest: data.count is 2, want a string"},
		{"MustStr absent", func(tb testing.TB) any { return d.Get("nope").MustStr(tb) }, "", "apitest: data.nope is null or absent, want a string"},
		{"MustFloat", func(tb testing.TB) any { return d.Get("zero").MustFloat(tb) }, 0.0, ""},
		{"MustFloat absent", func(tb testing.TB) any { return d.Get("nope").MustFloat(tb) }, 0.0, "want a number"},
		{"MustInt", func(tb testing.TB) any { return d.Get("count").MustInt(tb) }, 2, ""},
		{"MustBool", func(tb testing.TB) any { return d.Get("no").MustBool(tb) }, false, ""},
		{"MustBool of null", func(tb testing.TB) any { return d.Get("nothing").MustBool(tb) }, false, "want a boolean"},
		{"MustList", func(tb testing.TB) any { return len(d.Get("tags").MustList(tb)) }, 3, ""},
		{"MustList of an object", func(tb testing.TB) any { return len(d.Get("nested").MustList(tb)) }, 0, "want a list"},
		{"MustList item path", func(tb testing.TB) any { return d.Get("items").MustList(tb)[1].Get("name").MustStr(tb) }, "y", ""},
		{"MustObject", func(tb testing.TB) any { return d.Get("nested").MustObject(tb).Len() }, 1, ""},
		{"MustObject of a list", func(tb testing.TB) any { return d.Get("items").MustObject(tb).Len() }, 2, "apitest: data.items is"},
		{"MustMap", func(tb testing.TB) any { return len(d.Get("nested").MustMap(tb)) }, 1, ""},
		{"MustMap absent", func(tb testing.TB) any { return len(d.Get("nope").MustMap(tb)) }, 0, "want an object"},
	}
	for _, c := range cases {
		f := &fatals{TB: t}
		got := c.call(f)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, got, c.want)
		}
		switch {
		case c.failure == "" && len(f.msgs) != 0:
			t.Errorf("%s: failed the test: %v", c.name, f.msgs)
		case c.failure != "" && (len(f.msgs) != 1 || !strings.Contains(f.msgs[0], c.failure)):
			t.Errorf("%s: failures %q, want one containing %q", c.name, f.msgs, c.failure)
		}
	}
}

func TestDecode(t *testing.T) {
	type run struct {
		Data struct {
			ID    string                  `json:"id"`
			Count int                     `json:"count"`
			Tags  []any                   `json:"tags"`
			Items []struct{ Name string } `json:"items"`
		} `json:"data"`
	}
	got := Decode[run](t, sample(t))
	if got.Data.ID != "run_1" || got.Data.Count != 2 || len(got.Data.Tags) != 3 || len(got.Data.Items) != 2 || got.Data.Items[1].Name != "y" {
		t.Fatalf("decoded %+v", got)
	}
	f := &fatals{TB: t}
	Decode[struct{ Data []int }](f, sample(t))
	if len(f.msgs) != 1 || !strings.Contains(f.msgs[0], "apitest: decoding") {
		t.Fatalf("a body that does not fit: %q", f.msgs)
	}
}
