// Package cpe decides which inventory software a CVE affects: from the CPE
// match criteria of NVD configurations (Range), or, for CVEs that have no CPE
// data yet, from the vendor and product names of the CVE 5 "affected" list
// (Affected). Both come down to comparing vendor-supplied version strings,
// which follow no single scheme, so Compare implements one documented,
// deterministic order rather than any particular ecosystem's.
package cpe

import (
	"fmt"
	"strings"
)

// MaxLen bounds the input of Parse: real CPE names are far shorter, and the
// bound keeps hostile input cheap. A longer name never matches anything,
// so the feeds leave it out (feed.MaxCPE).
const MaxLen = 1024

// Name is a parsed CPE 2.3 formatted string
// ("cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*").
//
// Each field holds the component exactly as it is written in a formatted
// string, escapes included ("tikiwiki_cms\/groupware", "12.2\(15\)"): that
// keeps a quoted "\*" distinct from "*" (ANY) and makes String lossless. "-"
// is NA (the attribute does not apply). Matching undoes the escapes itself.
type Name struct {
	Part, Vendor, Product, Version, Update, Edition, Language, SwEdition, TargetSW, TargetHW, Other string
}

var componentNames = [11]string{"part", "vendor", "product", "version", "update", "edition", "language", "sw_edition", "target_sw", "target_hw", "other"}

func (n *Name) fields() [11]*string {
	return [11]*string{&n.Part, &n.Vendor, &n.Product, &n.Version, &n.Update, &n.Edition, &n.Language, &n.SwEdition, &n.TargetSW, &n.TargetHW, &n.Other}
}

// Parse reads a CPE 2.3 formatted string, or a CPE 2.2 URI ("cpe:/a:apache:http_server:2.4.49"),
// which older feeds, the CVE 5 "cpes" field and many scanners still emit; a
// URI is converted to the 2.3 form, with its empty or missing components as
// ANY.
//
// Parse is strict where a lenient reading would guess: every 2.3 component
// must be present and non-empty, only printable ASCII is allowed, an unquoted
// "*" may only open or close a value. Unquoted punctuation that the
// specification wants quoted ("bar!") is tolerated, since some tools emit it
// and its meaning is not in doubt. A 2.3 name is not copied: the fields share
// its memory, which keeps matching allocation-free.
func Parse(s string) (Name, error) {
	if len(s) > MaxLen {
		return Name{}, fmt.Errorf("cpe: name is %d bytes, longer than the %d allowed", len(s), MaxLen)
	}
	switch {
	case hasPrefixFold(s, "cpe:2.3:"):
		return parse23(s)
	case hasPrefixFold(s, "cpe:/"):
		return parse22(s)
	}
	return Name{}, parseError(s, `missing "cpe:2.3:" or "cpe:/" prefix`)
}

func parseError(s, msg string) error {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return fmt.Errorf("cpe: invalid name %q: %s", s, msg)
}

func parse23(s string) (Name, error) {
	rest := s[len("cpe:2.3:"):]
	var comps [11]string
	n, start := 0, 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++ // the quoted byte, ':' included, belongs to the value
		case ':':
			if n < len(comps) {
				comps[n] = rest[start:i]
			}
			n++
			start = i + 1
		}
	}
	if n < len(comps) {
		comps[n] = rest[start:]
	}
	n++
	if n != len(comps) {
		return Name{}, parseError(s, fmt.Sprintf("want 13 colon-separated components, got %d", n+2))
	}
	var name Name
	for i, f := range name.fields() {
		if msg := checkComponent(comps[i], i); msg != "" {
			return Name{}, parseError(s, msg)
		}
		*f = comps[i]
	}
	if msg := checkPart(name.Part); msg != "" {
		return Name{}, parseError(s, msg)
	}
	return name, nil
}

// checkComponent validates one formatted-string value; it returns the
// problem, or "".
func checkComponent(v string, idx int) string {
	what := componentNames[idx]
	if v == "" {
		return fmt.Sprintf("%s is empty (use * for ANY)", what)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x21 || c > 0x7e {
			return fmt.Sprintf("invalid character %s in %s", charDesc(c), what)
		}
		switch c {
		case '\\':
			if i+1 == len(v) {
				return fmt.Sprintf("dangling backslash at the end of %s", what)
			}
			i++
			if d := v[i]; d < 0x21 || d > 0x7e {
				return fmt.Sprintf("invalid character %s in %s", charDesc(d), what)
			}
		case '*':
			if i != 0 && i != len(v)-1 {
				return fmt.Sprintf(`unquoted "*" inside %s (a wildcard may only open or close a value; quote a literal one as "\*")`, what)
			}
		}
	}
	return ""
}

func checkPart(p string) string {
	switch p {
	case "a", "o", "h", "*", "A", "O", "H":
		return ""
	}
	return fmt.Sprintf("part %q is not a, o, h or *", p)
}

func parse22(s string) (Name, error) {
	comps := strings.Split(s[len("cpe:/"):], ":")
	if len(comps) > 7 {
		return Name{}, parseError(s, fmt.Sprintf("a CPE 2.2 URI has at most 7 components, got %d", len(comps)))
	}
	var raw [11]string // in Name field order; missing components stay "" (ANY)
	copy(raw[:], comps[:min(len(comps), 5)])
	if len(comps) > 6 {
		raw[6] = comps[6]
	}
	if len(comps) > 5 {
		ed := comps[5]
		if strings.HasPrefix(ed, "~") {
			// 2.3 attributes that 2.2 lacks are packed into the edition:
			// "~edition~sw_edition~target_sw~target_hw~other".
			packed := strings.Split(ed, "~")
			if len(packed) != 6 {
				return Name{}, parseError(s, fmt.Sprintf("packed edition %q needs 5 ~-separated fields, got %d", ed, len(packed)-1))
			}
			raw[5] = packed[1]
			copy(raw[7:], packed[2:])
		} else {
			raw[5] = ed
		}
	}
	var name Name
	for i, f := range name.fields() {
		v, msg := uriToFormatted(raw[i], i)
		if msg != "" {
			return Name{}, parseError(s, msg)
		}
		*f = v
	}
	if msg := checkPart(name.Part); msg != "" {
		return Name{}, parseError(s, msg)
	}
	return name, nil
}

// uriToFormatted turns one 2.2 URI component into its 2.3 formatted-string
// value: percent-encodings decoded, then everything but letters, digits and
// "_-." quoted, as the formatted string wants.
func uriToFormatted(raw string, idx int) (string, string) {
	what := componentNames[idx]
	switch raw {
	case "":
		return "*", ""
	case "-":
		return "-", ""
	}
	var b strings.Builder
	b.Grow(len(raw) + 4)
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c < 0x21 || c > 0x7e {
			return "", fmt.Sprintf("invalid character %s in %s", charDesc(c), what)
		}
		if c == '%' {
			if i+2 >= len(raw) {
				return "", fmt.Sprintf("truncated percent-encoding in %s", what)
			}
			h, ok := unhex(raw[i+1], raw[i+2])
			if !ok {
				return "", fmt.Sprintf("invalid percent-encoding %q in %s", raw[i:i+3], what)
			}
			i += 2
			switch h {
			case 0x01: // the URI binding's unquoted "?" and "*" wildcards
				b.WriteByte('?')
				continue
			case 0x02:
				b.WriteByte('*')
				continue
			}
			if h < 0x21 || h > 0x7e {
				return "", fmt.Sprintf("percent-encoding %q in %s is not printable ASCII", raw[i-2:i+1], what)
			}
			c = h
		}
		if !isAlnum(c) && c != '_' && c != '-' && c != '.' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	v := b.String()
	if v == "-" { // a decoded "%2d" is a literal hyphen, not NA
		v = `\-`
	}
	if msg := checkComponent(v, idx); msg != "" {
		return "", msg
	}
	return v, ""
}

// charDesc names a rejected byte; a lone byte of a UTF-8 sequence is shown
// as a number, since as a character it would read as something else.
func charDesc(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func unhex(a, b byte) (byte, bool) {
	x, ok1 := hexVal(a)
	y, ok2 := hexVal(b)
	return x<<4 | y, ok1 && ok2
}

func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// String formats the name as a CPE 2.3 formatted string. An empty field is
// written as "*" (ANY), so a Name built by hand with only some fields set
// still yields a name that Parse accepts.
func (n Name) String() string {
	var b strings.Builder
	b.Grow(len("cpe:2.3:") + 11 + len(n.Part) + len(n.Vendor) + len(n.Product) + len(n.Version) + len(n.Update) +
		len(n.Edition) + len(n.Language) + len(n.SwEdition) + len(n.TargetSW) + len(n.TargetHW) + len(n.Other))
	b.WriteString("cpe:2.3")
	for _, f := range n.fields() {
		b.WriteByte(':')
		if *f == "" {
			b.WriteByte('*')
		} else {
			b.WriteString(*f)
		}
	}
	return b.String()
}

// unescape returns a formatted-string value with its quoting removed; it
// allocates only when there is quoting to remove.
func unescape(v string) string {
	if strings.IndexByte(v, '\\') < 0 {
		return v
	}
	b := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b = append(b, v[i])
	}
	return string(b)
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
