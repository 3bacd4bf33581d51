package detection

import (
	"strings"
	"testing"

	"garrison/store"
)

func TestPolicyEnabled(t *testing.T) {
	choice := func(kind, name string, on bool) store.DetectionChoice {
		return store.DetectionChoice{Kind: kind, Name: name, Enabled: on}
	}
	const rule, set = "r1", "windows.builtin"
	cases := []struct {
		name          string
		own, provider []store.DetectionChoice
		on            bool
		from          string
	}{
		{"nothing chosen", nil, nil, true, FromDefault},
		{"provider's set", nil, []store.DetectionChoice{choice("set", set, false)}, false, FromProviderSet},
		{"provider's rule over its set", nil, []store.DetectionChoice{choice("set", set, false), choice("rule", rule, true)}, true, FromProviderRule},
		{"own set over provider's rule", []store.DetectionChoice{choice("set", set, true)}, []store.DetectionChoice{choice("rule", rule, false)}, true, FromOwnSet},
		{"own rule over own set", []store.DetectionChoice{choice("set", set, true), choice("rule", rule, false)}, nil, false, FromOwnRule},
		{"another set's choice", []store.DetectionChoice{choice("set", "windows.registry", false)}, nil, true, FromDefault},
		{"another rule's choice", []store.DetectionChoice{choice("rule", "r2", false)}, nil, true, FromDefault},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			on, from := NewPolicy(store.DetectionConfig{Own: c.own, Provider: c.provider}).Enabled(rule, set)
			if on != c.on || from != c.from {
				t.Fatalf("got %v by %s, want %v by %s", on, from, c.on, c.from)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	const good = "title: t\nid: 6f1d2c3b-0a4e-4d5f-9b8a-7c6d5e4f3a2b\nlevel: high\nlogsource:\n  product: windows\ndetection:\n  s:\n    X: 1\n  condition: s\n"
	cases := []struct {
		name, text, want string
	}{
		{"good", good, ""},
		{"blank", " \n", "yaml must be a Sigma rule"},
		{"no id", strings.Replace(good, "id: 6f1d2c3b-0a4e-4d5f-9b8a-7c6d5e4f3a2b\n", "", 1), "id must be a UUID"},
		{"id not a UUID", strings.Replace(good, "6f1d2c3b-0a4e-4d5f-9b8a-7c6d5e4f3a2b", "my-rule", 1), "id must be a UUID"},
		{"id with a bad digit", strings.Replace(good, "6f1d2c3b", "6f1d2c3g", 1), "id must be a UUID"},
		{"no level", strings.Replace(good, "level: high\n", "", 1), "level must be one of"},
		{"bad YAML", "title: [\n", "not valid YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Validate(c.text)
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}
