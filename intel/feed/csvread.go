package feed

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// csvReader reads CSV rows of at most maxLineSize bytes.
type csvReader struct {
	r    *csv.Reader
	lim  *limitReader
	base int64 // stream offset where r starts
}

func (p *parser) newCSV(base int64, comment rune) *csvReader {
	lim := &limitReader{r: p.in, err: errLineTooBig}
	r := csv.NewReader(lim)
	r.FieldsPerRecord = -1 // counts are checked against the header, row by row
	r.ReuseRecord = true
	r.Comment = comment
	return &csvReader{r: r, lim: lim, base: base}
}

// read returns the next row and its offset: io.EOF at the end, a
// *csv.ParseError for a bad row (the reader goes on with the next line), a
// *FileError for a broken file.
func (c *csvReader) read() ([]string, int64, error) {
	start := c.r.InputOffset()
	c.lim.limit = start + maxLineSize + slack
	rec, err := c.r.Read()
	off := c.base + start
	var pe *csv.ParseError
	switch {
	case err == nil:
		if c.r.InputOffset()-start > maxLineSize {
			return nil, off, &FileError{Offset: off, Message: fmt.Sprintf("CSV row longer than %d bytes", maxLineSize)}
		}
		return rec, off, nil
	case err == io.EOF:
		return nil, off, io.EOF
	case errors.Is(err, errLineTooBig):
		return nil, off, &FileError{Offset: off, Message: fmt.Sprintf("CSV row longer than %d bytes", maxLineSize)}
	case errors.As(err, &pe):
		return rec, off, pe
	}
	return nil, off, readErr(c.base+c.r.InputOffset(), err)
}

// header reads the header row and maps lower-cased column names to their
// index; it is a *FileError when the first row lacks one of the required
// columns.
func (p *parser) header(c *csvReader, what string, required ...string) (map[string]int, int, error) {
	rec, off, err := c.read()
	if err == io.EOF {
		return nil, 0, &FileError{Offset: off, Message: what + ": empty input, no header row"}
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, 0, &FileError{Offset: off, Message: what + ": bad header row: " + err.Error(), Err: err}
		}
		return nil, 0, err
	}
	cols := make(map[string]int, len(rec))
	for i, name := range rec {
		name = strings.ToLower(strings.TrimSpace(name))
		if _, dup := cols[name]; !dup {
			cols[name] = i
		}
	}
	for _, r := range required {
		if _, ok := cols[r]; !ok {
			row := strings.Join(rec, ",")
			if len(row) > 60 {
				row = row[:60] + "…"
			}
			return nil, 0, &FileError{Offset: off, Message: fmt.Sprintf("%s: missing header row (want a %q column), first row is %q", what, r, row)}
		}
	}
	return cols, len(rec), nil
}

// rows passes the data rows to row, reporting bad rows (CSV syntax, field
// count) as Problems. An unterminated quoted field at the end of input is a
// truncated file.
func (p *parser) rows(c *csvReader, width int, row func(idx int, off int64, rec []string) error) error {
	var pending *Problem // an unterminated quote: a Problem unless input ends there
	for {
		rec, off, err := c.read()
		if pending != nil {
			if err == io.EOF {
				return &FileError{Offset: pending.Offset, Message: "unterminated quoted field at end of input (truncated file?)"}
			}
			p.problem(pending.Index, pending.Offset, "", "%s", pending.Message)
			pending = nil
		}
		if err == io.EOF {
			return nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			idx := p.index
			p.index++
			if errors.Is(pe.Err, csv.ErrQuote) {
				pending = &Problem{Index: idx, Offset: off, Message: "bad CSV row: " + pe.Error()}
				continue
			}
			p.problem(idx, off, "", "bad CSV row: %v", pe)
			continue
		}
		if err != nil {
			return err
		}
		idx := p.index
		p.index++
		if len(rec) != width {
			id := ""
			if len(rec) > 0 {
				id = normID(rec[0])
			}
			p.problem(idx, off, id, "row has %d fields, header has %d", len(rec), width)
			continue
		}
		if err := row(idx, off, rec); err != nil {
			return err
		}
	}
}

// field returns the trimmed value of a column, "" when the header lacks it.
func field(rec []string, cols map[string]int, name string) string {
	if i, ok := cols[name]; ok && i < len(rec) {
		return strings.TrimSpace(rec[i])
	}
	return ""
}
