package intel

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"
)

// Source records and match targets are kept compressed: they are most of
// the store (NVD's references and CPE configurations) and are read only to
// rebuild a view or match assets. Go's flate output is the same for the
// same input, so packed records still compare equal when unchanged.

var packers = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

func pack(data []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(data) / 3)
	w := packers.Get().(*flate.Writer)
	w.Reset(&buf)
	w.Write(data)
	w.Close()
	packers.Put(w)
	return buf.Bytes()
}

// unpackers keep inflaters for reuse: a new one allocates its tables,
// most of the cost of inflating a small record (matching inflates
// thousands).
var unpackers sync.Pool

func unpack(data []byte) ([]byte, error) {
	src := bytes.NewReader(data)
	r, _ := unpackers.Get().(io.ReadCloser)
	if r == nil {
		r = flate.NewReader(src)
	} else if err := r.(flate.Resetter).Reset(src, nil); err != nil {
		return nil, fmt.Errorf("unpack stored record: %w", err)
	}
	out := bytes.NewBuffer(make([]byte, 0, 4*len(data)))
	_, err := out.ReadFrom(r)
	unpackers.Put(r)
	if err != nil {
		return nil, fmt.Errorf("unpack stored record: %w", err)
	}
	return out.Bytes(), nil
}
