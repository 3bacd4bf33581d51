package store

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// parseSoftware reads an asset's stored software list, the JSON
// json.Marshal wrote of []Software: an array of objects whose members are
// strings. Matching reads whole inventories (a full match reads every
// asset), where encoding/json's reflection was most of the time; this
// reads that one shape directly and hands anything else (an escape it
// does not take whole, a member that is not a string, broken JSON) to
// encoding/json, so both always agree (FuzzParseSoftware).
func parseSoftware(s string) ([]Software, error) {
	if out, ok := parseSoftwareFast(s); ok {
		return out, nil
	}
	var out []Software
	err := json.Unmarshal([]byte(s), &out)
	return out, err
}

func parseSoftwareFast(s string) ([]Software, bool) {
	p := softwareParser{s: s}
	if !p.take('[') {
		return nil, false
	}
	out := make([]Software, 0, strings.Count(s, `"vendor"`))
	if p.take(']') {
		return out, p.end()
	}
	for {
		var sw Software
		if !p.take('{') {
			return nil, false
		}
		if !p.take('}') {
			for {
				key, ok := p.str()
				if !ok || !p.take(':') {
					return nil, false
				}
				if key == "packages" {
					if sw.Packages, ok = p.strs(); !ok {
						return nil, false
					}
				} else if !p.field(&sw, key) {
					return nil, false
				}
				if p.take('}') {
					break
				}
				if !p.take(',') {
					return nil, false
				}
			}
		}
		out = append(out, sw)
		if p.take(']') {
			return out, p.end()
		}
		if !p.take(',') {
			return nil, false
		}
	}
}

// field reads a string member's value into sw.
func (p *softwareParser) field(sw *Software, key string) bool {
	val, ok := p.str()
	if !ok {
		return false
	}
	switch key {
	case "vendor":
		sw.Vendor = val
	case "product":
		sw.Product = val
	case "version":
		sw.Version = val
	case "cpe":
		sw.CPE = val
	case "rule":
		sw.Rule = val
	default:
		return false // encoding/json matches keys without case; leave it to it
	}
	return true
}

// strs reads an array of strings (a null, an empty array or anything else
// is left to encoding/json: it keeps or drops a slice as it does).
func (p *softwareParser) strs() ([]string, bool) {
	if !p.take('[') || p.take(']') {
		return nil, false
	}
	var out []string
	for {
		v, ok := p.str()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if p.take(']') {
			return out, true
		}
		if !p.take(',') {
			return nil, false
		}
	}
}

type softwareParser struct {
	s string
	i int
}

func (p *softwareParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// take consumes c after white space.
func (p *softwareParser) take(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *softwareParser) end() bool {
	p.space()
	return p.i == len(p.s)
}

// str reads a string without escapes, control characters or invalid
// UTF-8 (what json.Marshal writes of plain text); anything else is left
// to encoding/json.
func (p *softwareParser) str() (string, bool) {
	if !p.take('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			v := p.s[start:p.i]
			p.i++
			return v, true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			p.i += size
		default:
			p.i++
		}
	}
	return "", false
}
