package telemetry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// obj is a decoded JSON object. Its accessors treat a value of the wrong
// type as absent, so hostile input can only make fields missing.
type obj map[string]any

func (o obj) str(key string) string {
	switch v := o[key].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

func (o obj) sub(key string) obj {
	m, _ := o[key].(map[string]any)
	return obj(m)
}

// path follows nested objects: o.path("rule", "mitre").
func (o obj) path(keys ...string) obj {
	for _, k := range keys {
		o = o.sub(k)
	}
	return o
}

func (o obj) num(key string) (float64, bool) {
	switch v := o[key].(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil
	}
	return 0, false
}

func (o obj) int(key string) (int, bool) {
	f, ok := o.num(key)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, false
	}
	return int(f), true
}

// strs reads a list of strings (other members are left out).
func (o obj) strs(key string) []string {
	list, _ := o[key].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok && len(out) < 32 {
			out = append(out, text(s, 128))
		}
	}
	return out
}

// eachJSON walks the JSON records of a body: a JSON array, JSON lines, or
// objects one after another however they are laid out (evtx_dump writes
// them pretty-printed). fn gets each object with the line it starts on and
// its bytes; a record that is not a JSON object is a problem of res, and
// the walk goes on with the next line that starts one.
func eachJSON(body []byte, res *Result, fn func(line int, o obj, raw []byte)) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	start := bytes.TrimLeft(body, " \t\r\n")
	if len(start) > 0 && start[0] == '[' {
		eachElement(body, res, fn)
		return
	}
	if jsonLines(body) {
		res.Records = make([]Record, 0, lineCount(body))
		eachJSONLine(body, res, fn)
		return
	}
	eachObject(body, res, fn)
}

// jsonLines reports whether the body's first record is one whole line.
func jsonLines(body []byte) bool {
	for len(body) > 0 {
		line, rest, _ := bytes.Cut(body, []byte("\n"))
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return json.Valid(line)
		}
		body = rest
	}
	return true
}

func eachJSONLine(body []byte, res *Result, fn func(int, obj, []byte)) {
	for n := 1; len(body) > 0; n++ {
		var line []byte
		line, body, _ = bytes.Cut(body, []byte("\n"))
		line = bytes.TrimSpace(bytes.TrimLeft(bytes.TrimSpace(line), "\x1e"))
		if len(line) == 0 {
			continue
		}
		if res.full(n) {
			return
		}
		o, err := decodeObject(line)
		if err != nil {
			res.refuse(n, "%v", err)
			continue
		}
		fn(n, o, line)
	}
}

// eachObject decodes objects one after another; after a broken one it
// resumes at the next line that starts with "{".
func eachObject(body []byte, res *Result, fn func(int, obj, []byte)) {
	offset, line, counted := 0, 1, 0
	for {
		rest := body[offset:]
		skip := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n\x1e"))
		offset += skip
		if offset >= len(body) {
			return
		}
		line += bytes.Count(body[counted:offset], []byte("\n")) // each byte counted once
		counted = offset
		if res.full(line) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(body[offset:]))
		dec.UseNumber()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == nil {
			var o obj
			if o, err = decodeObject(raw); err == nil {
				fn(line, o, raw)
				offset += int(dec.InputOffset())
				continue
			}
		}
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			res.refuse(line, "%s", cutShort)
			return
		}
		res.refuse(line, "is not JSON: %v", err)
		next := bytes.Index(body[offset+1:], []byte("\n{"))
		if next < 0 {
			return
		}
		offset += 1 + next + 1
	}
}

func eachElement(body []byte, res *Result, fn func(int, obj, []byte)) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // [
		res.refuse(1, "is not a JSON array: %v", err)
		return
	}
	for i := 1; dec.More(); i++ {
		if res.full(i) {
			return
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			res.refuse(i, "element %d is not JSON: %v", i, err)
			return
		}
		o, err := decodeObject(raw)
		if err != nil {
			res.refuse(i, "element %d: %v", i, err)
			continue
		}
		fn(i, o, raw)
	}
}

const cutShort = "is cut short: the record ends before its JSON does"

func decodeObject(raw []byte) (obj, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("%s", cutShort)
		}
		return nil, fmt.Errorf("is not JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("holds more than one JSON value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("is not a JSON object")
	}
	return obj(m), nil
}
