package valid

import (
	"encoding/json"
	"strconv"
	"strings"
)

// DuplicateKey finds a key given twice in one object anywhere in a JSON
// value that json.Valid accepted, and names it by its path ("details.user",
// "alert.signature", "items[2].id"). Go's decoder keeps the last of two
// keys and another reader may keep the first, so a record holding one says
// two things: refused, it cannot be read two ways.
func DuplicateKey(raw []byte) (path string, found bool) {
	_, where, found := dupIn(raw, skipWS(raw, 0))
	if !found {
		return "", false
	}
	for k := len(where) - 1; k >= 0; k-- { // outermost last: walk back out
		switch seg := where[k]; {
		case strings.HasPrefix(seg, "[") || path == "":
			path += seg
		default:
			path += "." + seg
		}
	}
	return path, true
}

// dupIn walks the value at i and returns its end and, for a duplicated
// key within it, its path innermost first. Nothing is allocated unless a
// duplicate is found (a batch of ten thousand events walks for free).
func dupIn(b []byte, i int) (end int, where []string, found bool) {
	if i >= len(b) {
		return i, nil, false
	}
	switch b[i] {
	case '{':
		var buf [16][]byte // objects are small: a stack slice beats a map
		keys := buf[:0]
		i = skipWS(b, i+1)
		for i < len(b) && b[i] != '}' {
			keyEnd := stringEnd(b, i)
			key := keyBytes(b[i:keyEnd])
			for _, k := range keys {
				if string(k) == string(key) {
					return i, []string{string(key)}, true
				}
			}
			keys = append(keys, key)
			i = skipWS(b, skipWS(b, keyEnd)+1) // past the colon
			if i, where, found = dupIn(b, i); found {
				return i, append(where, string(key)), true
			}
			if i = skipWS(b, i); i < len(b) && b[i] == ',' {
				i = skipWS(b, i+1)
			}
		}
		return i + 1, nil, false
	case '[':
		i = skipWS(b, i+1)
		for n := 0; i < len(b) && b[i] != ']'; n++ {
			if i, where, found = dupIn(b, i); found {
				return i, append(where, "["+strconv.Itoa(n)+"]"), true
			}
			if i = skipWS(b, i); i < len(b) && b[i] == ',' {
				i = skipWS(b, i+1)
			}
		}
		return i + 1, nil, false
	case '"':
		return stringEnd(b, i), nil, false
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++ // a number, true, false or null
	}
	return i, nil, false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the end of the string literal starting at i.
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// keyBytes is a key literal's text: its bytes as written, or decoded when
// it holds an escape ("a\u0062" and "ab" are the same key), which is rare.
func keyBytes(lit []byte) []byte {
	for _, c := range lit[1 : len(lit)-1] {
		if c == '\\' {
			var s string
			json.Unmarshal(lit, &s)
			return []byte(s)
		}
	}
	return lit[1 : len(lit)-1]
}
