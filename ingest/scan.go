package ingest

import (
	"encoding/json"
	"strings"
)

// The byte walks below read JSON that json.Valid already accepted, so they
// only find the ends of values; the one validating pass over a body is
// json.Valid's.

// eachMember calls fn with every key and raw value of the object at the
// start of obj; fn's error stops the walk. ok is false when obj holds no
// object.
func eachMember(obj []byte, fn func(key string, value []byte) error) (ok bool, err error) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false, nil
	}
	for i++; ; {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] == '}' {
			return true, nil
		}
		if obj[i] == ',' {
			i++
			continue
		}
		keyEnd := skipValue(obj, i)
		key := jsonString(obj[i:keyEnd])
		i = skipSpace(obj, skipSpace(obj, keyEnd)+1) // past the colon
		end := skipValue(obj, i)
		if err := fn(key, obj[i:end]); err != nil {
			return true, err
		}
		i = end
	}
}

// eachElement calls fn with the index and raw value of every element of
// the array arr; fn's error stops the walk. ok is false when arr holds no
// array.
func eachElement(arr []byte, fn func(i int, value []byte) error) (ok bool, err error) {
	j := skipSpace(arr, 0)
	if j >= len(arr) || arr[j] != '[' {
		return false, nil
	}
	for n, j := 0, j+1; ; {
		j = skipSpace(arr, j)
		if j >= len(arr) || arr[j] == ']' {
			return true, nil
		}
		if arr[j] == ',' {
			j++
			continue
		}
		end := skipValue(arr, j)
		if err := fn(n, arr[j:end]); err != nil {
			return true, err
		}
		n, j = n+1, end
	}
}

// countElements counts the elements of an array, stopping at limit+1: how
// a batch is measured before anything is allocated for it.
func countElements(arr []byte, limit int) int {
	n := 0
	eachElement(arr, func(int, []byte) error {
		if n++; n > limit {
			return errStop
		}
		return nil
	})
	return n
}

type stop struct{}

func (stop) Error() string { return "stop" }

var errStop error = stop{}

// stringMember stores a string member into dst: null leaves dst as it was,
// as encoding/json does; any other type is refused.
func stringMember(value []byte, dst *string) bool {
	switch value[0] {
	case '"':
		*dst = jsonString(value)
	case 'n':
	default:
		return false
	}
	return true
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
