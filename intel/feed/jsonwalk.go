package feed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// startJSON sets up the decoder over the input, after a BOM.
func (p *parser) startJSON(r io.Reader) {
	p.lim = &limitReader{r: r, err: errTooLarge}
	p.dec = json.NewDecoder(p.lim)
	p.dec.UseNumber()
	p.arm()
}

// arm allows the decoder to read one more record (or token) of up to
// maxRecordSize bytes from where it stands.
func (p *parser) arm() { p.lim.limit = p.dec.InputOffset() + maxRecordSize + slack }

// offset is the stream offset of the decoder.
func (p *parser) offset() int64 { return p.base + p.dec.InputOffset() }

// jsonErr turns a decoder error into a *FileError.
func (p *parser) jsonErr(err error, where string) error {
	off := p.offset()
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, errTooLarge):
		return &FileError{Offset: off, Message: fmt.Sprintf("%s larger than %d bytes", where, maxRecordSize)}
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return &FileError{Offset: off, Message: "unexpected end of input in " + where + " (truncated file?)", Err: err}
	case errors.As(err, &syn):
		return &FileError{Offset: off, Message: "invalid JSON in " + where + ": " + err.Error(), Err: err}
	}
	return &FileError{Offset: off, Message: "read error in " + where + ": " + err.Error(), Err: err}
}

func (p *parser) fileErr(format string, args ...any) error {
	return &FileError{Offset: p.offset(), Message: fmt.Sprintf(format, quoted(args)...)}
}

// token reads the next token.
func (p *parser) token(where string) (json.Token, error) {
	p.arm()
	t, err := p.dec.Token()
	if err != nil {
		return nil, p.jsonErr(err, where)
	}
	return t, nil
}

// walkObject walks a top-level JSON object: the elements of the array under
// arrKey are passed one by one to each; scalar values of other keys go to
// Summary.Meta (by the name meta gives them, when it gives one) after check
// (when not nil) approves them; other values are skipped token by token.
func (p *parser) walkObject(what, arrKey string, meta func(key string) string, check func(key, val string) error, each func() error) error {
	p.arm()
	start := p.offset()
	t, err := p.dec.Token()
	if err == io.EOF {
		return &FileError{Offset: p.offset(), Message: "empty input"}
	}
	if err != nil {
		return p.jsonErr(err, what)
	}
	if t != json.Delim('{') {
		return &FileError{Offset: start, Message: fmt.Sprintf("%s: expected a JSON object, found %s", what, describe(t))}
	}
	seen := false
	for {
		t, err := p.token(what)
		if err != nil {
			return err
		}
		if t == json.Delim('}') {
			break
		}
		key, _ := t.(string)
		if key == arrKey {
			seen = true
			if err := p.walkArray(what+" "+arrKey, each); err != nil {
				return err
			}
			continue
		}
		val, scalar, err := p.scalar(what)
		if err != nil {
			return err
		}
		if !scalar {
			continue
		}
		if check != nil {
			if err := check(key, val); err != nil {
				return err
			}
		}
		if name := meta(key); name != "" {
			p.meta(name, val)
		}
	}
	if err := p.end(what); err != nil {
		return err
	}
	if !seen {
		return p.fileErr("%s: no %q array", what, arrKey)
	}
	return nil
}

// end checks that nothing but white space follows the top-level value.
func (p *parser) end(what string) error {
	p.arm()
	t, err := p.dec.Token()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return p.jsonErr(err, "data after "+what)
	}
	return p.fileErr("unexpected %s after the end of %s", describe(t), what)
}

// scalar reads the next value: a string, number, bool or null comes back as
// a string (scalar true); an object or array is skipped.
func (p *parser) scalar(what string) (string, bool, error) {
	t, err := p.token(what)
	if err != nil {
		return "", false, err
	}
	switch v := t.(type) {
	case json.Delim:
		for depth := 1; depth > 0; {
			t, err := p.token(what)
			if err != nil {
				return "", false, err
			}
			if d, ok := t.(json.Delim); ok {
				if d == '{' || d == '[' {
					depth++
				} else {
					depth--
				}
			}
		}
		return "", false, nil
	case string:
		return v, true, nil
	case json.Number:
		return string(v), true, nil
	case bool:
		return fmt.Sprint(v), true, nil
	}
	return "", true, nil // null
}

// walkArray expects an array and calls each for every element; each must
// consume exactly one value (decodeRecord does).
func (p *parser) walkArray(what string, each func() error) error {
	start := p.offset()
	t, err := p.token(what)
	if err != nil {
		return err
	}
	if t != json.Delim('[') {
		return &FileError{Offset: start, Message: fmt.Sprintf("%s: expected an array, found %s", what, describe(t))}
	}
	for {
		p.arm()
		if !p.dec.More() {
			break
		}
		if err := each(); err != nil {
			return err
		}
	}
	t, err = p.token(what)
	if err != nil {
		return err
	}
	if t != json.Delim(']') {
		return p.fileErr("%s: expected ], found %s", what, describe(t))
	}
	return nil
}

// decodeRecord decodes the next value into v. It returns the record's
// offset and, for a record that is valid JSON but does not fit v, the
// decoding error (a Problem: the decoder has consumed the record and goes
// on); err is a *FileError.
func (p *parser) decodeRecord(what string, v any) (off int64, recErr, err error) {
	p.arm()
	// The decoder stands before the separating comma and white space, if
	// any (More has buffered at least the next byte): step over them so
	// that off is where the record itself starts. (Should the white space
	// run past what the decoder has buffered, off points into it.)
	start := p.dec.InputOffset()
	if br, ok := p.dec.Buffered().(io.ByteReader); ok {
		for comma := false; ; {
			c, err := br.ReadByte()
			if err != nil || !(isSpace(c) || c == ',' && !comma) {
				break
			}
			comma = comma || c == ','
			start++
		}
	}
	off = p.base + start
	if err := p.dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		if !errors.As(err, &ute) {
			return off, nil, p.jsonErr(err, what)
		}
		recErr = err
	}
	if p.dec.InputOffset()-start > maxRecordSize {
		return off, nil, &FileError{Offset: off, Message: fmt.Sprintf("%s larger than %d bytes", what, maxRecordSize)}
	}
	return off, recErr, nil
}

// describe names a token for an error message.
func describe(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", string(v))
	case string:
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return fmt.Sprintf("string %q", v)
	case json.Number:
		return "number " + string(v)
	case bool:
		return fmt.Sprint(v)
	case nil:
		return "null"
	}
	return fmt.Sprint(t)
}

// recordErr words a record decoding error for a Problem.
func recordErr(err error) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		if ute.Field != "" {
			return fmt.Sprintf("cannot decode record: %s is a JSON %s, want %s", ute.Field, ute.Value, ute.Type)
		}
		return fmt.Sprintf("cannot decode record: JSON %s, want %s", ute.Value, ute.Type)
	}
	return "cannot decode record: " + err.Error()
}
