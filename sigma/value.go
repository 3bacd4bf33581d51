package sigma

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"

	"go.yaml.in/yaml/v3"
)

// valueMatcher is one value of a field condition. v is the field's value
// and lower the same in lower case; present is whether the event has the
// field at all.
type valueMatcher interface {
	matchValue(v, lower string, present bool, e *Prepared) bool
}

// fieldMatcher is one key of a search map: a field, and values of which
// any (all with |all) must match.
type fieldMatcher struct {
	field  string
	values []valueMatcher
	all    bool
	exists int // with |exists: 1 the field must be there, -1 it must not; 0 otherwise
}

func (f *fieldMatcher) match(e *Prepared) bool {
	if f.field == "" {
		return f.matchAnyField(e)
	}
	v, lower, present := e.get(f.field)
	if f.exists != 0 {
		return present == (f.exists > 0)
	}
	for _, m := range f.values {
		if m.matchValue(v, lower, present, e) != f.all {
			return !f.all
		}
	}
	return f.all
}

// matchAnyField is a keyword list with modifiers ('|all': …): each value
// (any one without |all) must be in some field.
func (f *fieldMatcher) matchAnyField(e *Prepared) bool {
	for _, m := range f.values {
		found := false
		for field := range e.event {
			v, lower, _ := e.get(field)
			if m.matchValue(v, lower, true, e) {
				found = true
				break
			}
		}
		if found != f.all {
			return found
		}
	}
	return f.all
}

// needsLower reports whether v has an upper-case letter or is not ASCII.
func needsLower(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c >= 0x80 || ('A' <= c && c <= 'Z') {
			return true
		}
	}
	return false
}

// anyValue is the variants one value became: any of them matches.
type anyValue []valueMatcher

func (a anyValue) matchValue(v, lower string, present bool, e *Prepared) bool {
	for _, m := range a {
		if m.matchValue(v, lower, present, e) {
			return true
		}
	}
	return false
}

// nullValue matches a field that is absent or empty.
type nullValue struct{}

func (nullValue) matchValue(v, _ string, present bool, _ *Prepared) bool { return !present || v == "" }

func (p *pattern) matchValue(v, lower string, present bool, _ *Prepared) bool {
	return present && p.matchLower(v, lower)
}

// regexValue is a |re value: unanchored and case-sensitive unless |i.
type regexValue struct{ re *regexp.Regexp }

func (r regexValue) matchValue(v, _ string, present bool, _ *Prepared) bool {
	return present && r.re.MatchString(v)
}

// cidrValue is a |cidr value: the field is an address inside it.
type cidrValue struct{ prefix netip.Prefix }

func (c cidrValue) matchValue(v, _ string, present bool, _ *Prepared) bool {
	if !present {
		return false
	}
	a, err := netip.ParseAddr(strings.Trim(v, "[]"))
	return err == nil && c.prefix.Contains(a.Unmap())
}

// numberValue is a |lt, |lte, |gt or |gte value.
type numberValue struct {
	op string
	n  float64
}

func (c numberValue) matchValue(v, _ string, present bool, _ *Prepared) bool {
	if !present {
		return false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return false
	}
	switch c.op {
	case "lt":
		return f < c.n
	case "lte":
		return f <= c.n
	case "gt":
		return f > c.n
	}
	return f >= c.n
}

// fieldRef is a |fieldref value: the field equals (contains, starts or
// ends with) another field of the same event.
type fieldRef struct {
	other string
	kind  matchKind
}

func (f fieldRef) matchValue(v, lower string, present bool, e *Prepared) bool {
	_, o, ok := e.get(f.other)
	if !present || !ok {
		return false
	}
	switch f.kind {
	case matchContains:
		return strings.Contains(lower, o)
	case matchStartsWith:
		return strings.HasPrefix(lower, o)
	case matchEndsWith:
		return strings.HasSuffix(lower, o)
	}
	return lower == o
}

// compileField compiles one key of a search map ("Field|mod|mod") and its
// value or values.
func compileField(key, value *yaml.Node) (fieldMatcher, error) {
	parts := strings.Split(key.Value, "|")
	f := fieldMatcher{field: parts[0]}
	kind, cased := matchExact, false
	if f.field == "" {
		if len(parts) == 1 {
			return f, errAt(key, "a field condition needs a field name")
		}
		kind = matchContains // keywords: text anywhere in a field
	}
	var transforms []string
	var special string // re, cidr, exists, fieldref, lt, lte, gt, gte
	reFlags := ""
	for _, mod := range parts[1:] {
		switch mod {
		case "contains":
			kind = matchContains
		case "startswith":
			kind = matchStartsWith
		case "endswith":
			kind = matchEndsWith
		case "all":
			f.all = true
		case "cased":
			cased = true
		case "base64", "base64offset", "wide", "utf16le", "utf16be", "utf16", "windash":
			transforms = append(transforms, mod)
		case "re", "cidr", "exists", "fieldref", "lt", "lte", "gt", "gte":
			if f.field == "" {
				return f, errAt(key, "modifier %s needs a field name", mod)
			}
			if special != "" {
				return f, errAt(key, "modifiers %s and %s cannot be combined", special, mod)
			}
			special = mod
		case "i", "m", "s":
			if special != "re" {
				return f, errAt(key, "modifier %s applies only after re", mod)
			}
			reFlags += mod
		case "expand":
			return f, errAt(key, "modifier expand (placeholders) is not supported")
		default:
			return f, errAt(key, "unknown modifier %q", mod)
		}
	}
	var nodes []*yaml.Node
	switch value.Kind {
	case yaml.ScalarNode:
		nodes = []*yaml.Node{value}
	case yaml.SequenceNode:
		nodes = value.Content
		if len(nodes) == 0 {
			return f, errAt(value, "field %s has an empty list of values", f.field)
		}
	default:
		return f, errAt(value, "field %s takes a value or a list of values", f.field)
	}
	for _, n := range nodes {
		if n.Kind != yaml.ScalarNode {
			return f, errAt(n, "field %s takes plain values", f.field)
		}
		if n.Tag == "!!null" {
			if special != "" || len(transforms) > 0 {
				return f, errAt(n, "null cannot take modifiers")
			}
			f.values = append(f.values, nullValue{})
			continue
		}
		ms, err := compileValue(n.Value, kind, cased, transforms, special, reFlags)
		if err != nil {
			return f, errAt(n, "field %s: %v", f.field, err)
		}
		if special == "exists" {
			f.exists = map[bool]int{true: 1, false: -1}[n.Value == "true"]
			if n.Value != "true" && n.Value != "false" {
				return f, errAt(n, "field %s: exists takes true or false", f.field)
			}
		}
		if len(ms) > 1 {
			f.values = append(f.values, anyValue(ms)) // a value's variants (windash, base64offset): any of them, even under |all
		} else {
			f.values = append(f.values, ms...)
		}
	}
	if f.all && len(f.values) > 1 {
		return f, nil
	}
	f.all = false // |all of one value is that value
	return f, nil
}

// compileValue compiles one value: a transform may make several of one.
func compileValue(raw string, kind matchKind, cased bool, transforms []string, special, reFlags string) ([]valueMatcher, error) {
	switch special {
	case "exists":
		return nil, nil
	case "re":
		flags := ""
		if reFlags != "" {
			flags = "(?" + reFlags + ")"
		}
		re, err := regexp.Compile(flags + raw)
		if err != nil {
			return nil, fmt.Errorf("a regular expression RE2 cannot read: %v", err)
		}
		return []valueMatcher{regexValue{re}}, nil
	case "cidr":
		p, err := netip.ParsePrefix(raw)
		if err != nil {
			return nil, fmt.Errorf("not a CIDR prefix: %v", err)
		}
		return []valueMatcher{cidrValue{p.Masked()}}, nil
	case "fieldref":
		return []valueMatcher{fieldRef{other: raw, kind: kind}}, nil
	case "lt", "lte", "gt", "gte":
		n, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return nil, fmt.Errorf("%s takes a number", special)
		}
		return []valueMatcher{numberValue{special, n}}, nil
	}
	values := []string{raw}
	for _, t := range transforms {
		var next []string
		for _, v := range values {
			out, err := transform(t, v)
			if err != nil {
				return nil, err
			}
			next = append(next, out...)
		}
		values = next
	}
	out := make([]valueMatcher, 0, len(values))
	for _, v := range values {
		p, err := compileGlob(v, kind, cased)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// transform applies one value modifier, as pySigma does.
func transform(name, v string) ([]string, error) {
	switch name {
	case "wide", "utf16le":
		return []string{string(utf16Bytes(v, false, false))}, nil
	case "utf16be":
		return []string{string(utf16Bytes(v, true, false))}, nil
	case "utf16":
		return []string{string(utf16Bytes(v, false, true))}, nil
	case "base64":
		return []string{base64.StdEncoding.EncodeToString([]byte(v))}, nil
	case "base64offset":
		var out []string
		for i := range 3 {
			enc := base64.StdEncoding.EncodeToString(append(bytes.Repeat([]byte(" "), i), v...))
			start := []int{0, 2, 3}[i]
			cut := []int{0, 3, 2}[(len(v)+i)%3]
			if start > len(enc)-cut {
				continue
			}
			out = append(out, enc[start:len(enc)-cut])
		}
		return out, nil
	case "windash":
		return windash(v)
	}
	return nil, fmt.Errorf("unknown modifier %q", name)
}

func utf16Bytes(v string, bigEndian, bom bool) []byte {
	var b []byte
	if bom {
		b = append(b, 0xff, 0xfe)
	}
	for _, u := range utf16.Encode([]rune(v)) {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return b
}

// windashes are the characters Windows programs take for a leading dash.
var windashes = []string{"-", "/", "\u2013", "\u2014", "\u2015"}

// maxWindashes bounds the dashes one value may vary (5 variants each).
const maxWindashes = 4

// windash varies each dash or slash that starts an option (after a
// non-word character, before a word character: pySigma's \B[-/]\b).
func windash(v string) ([]string, error) {
	var at []int
	for i := 0; i < len(v); i++ {
		if (v[i] == '-' || v[i] == '/') && (i == 0 || !isWord(v[i-1])) && i+1 < len(v) && isWord(v[i+1]) {
			at = append(at, i)
		}
	}
	if len(at) > maxWindashes {
		return nil, fmt.Errorf("windash varies at most %d dashes in one value", maxWindashes)
	}
	out := []string{""}
	last := 0
	for _, i := range at {
		var next []string
		for _, prefix := range out {
			for _, d := range windashes {
				next = append(next, prefix+v[last:i]+d)
			}
		}
		out, last = next, i+1
	}
	for i := range out {
		out[i] += v[last:]
	}
	return out, nil
}

func isWord(c byte) bool {
	return c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}
