package handlers

import (
	"encoding/json"
	"strings"

	"garrison/valid"
)

// scanEvent reads one event object in a single pass over its bytes: the
// batch path's hot loop. raw must already be known to be valid JSON (the
// batch was parsed once); keys match exactly, and a string field holding
// another JSON type is refused as encoding/json would refuse it.
func scanEvent(raw []byte, prefix string) (eventInput, error) {
	var in eventInput
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		name := strings.TrimSuffix(prefix, ".")
		if name == "" {
			name = "body"
		}
		return in, valid.Field(name, "must be an event object")
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return in, nil
		}
		if raw[i] == ',' {
			i++
			continue
		}
		keyEnd := skipValue(raw, i)
		key := jsonString(raw[i:keyEnd])
		i = skipSpace(raw, keyEnd) + 1 // the colon
		i = skipSpace(raw, i)
		valueEnd := skipValue(raw, i)
		value := raw[i:valueEnd]
		i = valueEnd
		var dst *string
		switch key {
		case "type":
			dst = &in.Type
		case "severity":
			dst = &in.Severity
		case "timestamp":
			dst = &in.Timestamp
		case "source":
			dst = &in.Source
		case "asset":
			dst = &in.Asset
		case "message":
			dst = &in.Message
		case "indicator":
			dst = &in.Indicator
		case "details":
			in.Details = value
			continue
		default:
			return in, valid.Field(prefix+key, "is not a known field")
		}
		switch value[0] {
		case '"':
			*dst = jsonString(value)
		case 'n': // null leaves the field as it was, as encoding/json does
		default:
			return in, valid.Field(prefix+key, "must be a string")
		}
	}
}

// jsonString decodes a JSON string literal; escapes are rare, so only they
// go through encoding/json.
func jsonString(lit []byte) string {
	body := lit[1 : len(lit)-1]
	for _, c := range body {
		if c == '\\' {
			var s string
			json.Unmarshal(lit, &s)
			return s
		}
	}
	return string(body)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at i.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return i
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	return i
}
