package eve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"garrison/valid"
)

// eachRecord calls fn for every record of a JSON-lines or JSON-array
// payload, in order. Every error it returns is a *lineError.
func eachRecord(data []byte, fn func(line int, r record) error) error {
	return eachRecordTolerant(data, fn, nil)
}

// eachRecordTolerant is eachRecord handing each record that cannot be
// decoded to bad, when bad is not nil, and going on with the next.
func eachRecordTolerant(data []byte, fn func(line int, r record) error, bad func(line int, err error)) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM some shippers add
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return eachElement(t, fn, bad)
	}
	return eachLine(data, fn, bad)
}

// eachLine walks a JSON-lines payload. Blank lines are ignored but still
// counted, so Line matches what an editor shows.
func eachLine(data []byte, fn func(int, record) error, bad func(int, error)) error {
	records := 0
	for line := 1; len(data) > 0; line++ {
		var cur []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			cur, data = data[:i], data[i+1:]
		} else {
			cur, data = data, nil
		}
		// Also drops the CR of CRLF, and the record separator (0x1E) an
		// application/json-seq sender (RFC 7464) puts before each record.
		cur = bytes.TrimSpace(bytes.TrimLeft(bytes.TrimSpace(cur), "\x1e"))
		if len(cur) == 0 {
			continue
		}
		if records++; records > MaxRecords {
			return &lineError{line: line, err: ErrTooManyRecords}
		}
		r, err := decodeLine(cur)
		if err != nil && bad != nil {
			bad(line, err)
			continue
		}
		if err != nil {
			return &lineError{line: line, err: err}
		}
		if err := fn(line, r); err != nil {
			return err
		}
	}
	return nil
}

// errDuplicateKey refuses a record holding a key twice: Go keeps the
// last, another reader the first.
type errDuplicateKey struct{ path string }

func (e errDuplicateKey) Error() string {
	return fmt.Sprintf("the key %q is given twice; a key may appear once in an object", e.path)
}

// decodeLine decodes exactly one JSON object.
func decodeLine(b []byte) (record, error) {
	if json.Valid(b) {
		if path, dup := valid.DuplicateKey(b); dup {
			return nil, errDuplicateKey{path}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // keeps flow_id and other large integers exact
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("malformed JSON: data after the object")
	}
	return asRecord(v)
}

// eachElement walks a JSON array with a streaming decoder so one bad
// element is reported by its index and no copy of the array is built.
func eachElement(data []byte, fn func(int, record) error, bad func(int, error)) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // the '['
		return &lineError{line: 1, err: fmt.Errorf("malformed JSON: %w", err)}
	}
	n := 0
	for dec.More() {
		n++
		if n > MaxRecords {
			return &lineError{line: n, err: ErrTooManyRecords}
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return &lineError{line: n, err: fmt.Errorf("malformed JSON: %w", err)}
		}
		var r record
		v, err := decodeValue(raw)
		if path, dup := valid.DuplicateKey(raw); dup {
			err = errDuplicateKey{path}
		} else if err != nil {
			err = fmt.Errorf("malformed JSON: %w", err)
		} else {
			r, err = asRecord(v)
		}
		if err != nil && bad != nil {
			bad(n, err)
			continue
		}
		if err != nil {
			return &lineError{line: n, err: err}
		}
		if err := fn(n, r); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the ']'
		return &lineError{line: n + 1, err: fmt.Errorf("malformed JSON array: %w", err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &lineError{line: n + 1, err: errors.New("malformed JSON: data after the end of the array")}
	}
	return nil
}

// decodeValue decodes one JSON value, large integers kept exact.
func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func asRecord(v any) (record, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("record is a JSON %s, not an object", jsonKind(v))
	}
	return record(m), nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	}
	return "value"
}
