package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"garrison/store"
)

type dataBody struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

type pagination struct {
	Total      int  `json:"total"`
	Limit      int  `json:"limit"`
	Offset     int  `json:"offset"`
	NextOffset *int `json:"next_offset"`
}

// writeJSON encodes v fully before writing the header, so an encoding
// failure can still become a clean 500.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := buffers.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.Write(internalErrorBody)
	}
	writeBuffer(w, status, buf)
}

// setJSONType makes the answer JSON. The middleware has usually said so
// already, and assigning again is not free: a header map holding eight keys
// is full, and Go grows a full map on any assignment, even of a key it has.
func setJSONType(h http.Header) {
	if v := h["Content-Type"]; len(v) != 1 || v[0] != jsonType[0] {
		h["Content-Type"] = jsonType
	}
}

// buffers are the answers' encoding buffers, reused.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putBuffer returns a buffer to the pool, unless an unusually large answer
// grew it: keeping that would hold its memory for good.
func putBuffer(b *bytes.Buffer) {
	if b.Cap() > 1<<20 {
		return
	}
	b.Reset()
	buffers.Put(b)
}

// writeData answers {"success":true,"data":v}.
func writeData(w http.ResponseWriter, status int, v any) {
	writeJSON(w, status, dataBody{Success: true, Data: v})
}

// maxListBytes bounds a list answer by its size as limit bounds it by its
// count: once the items written pass it, the page ends there and its
// next_offset says where the rest begins (docs/api.md), so 200 large items
// never make one answer of hundreds of MiB. A single item larger than it
// is still answered, alone on its page, or a client could never get past it.
const maxListBytes = 4 << 20

// pageFull is the one rule every list answer follows: a page holding kept
// items whose encoding takes size bytes has no room for the last one added
// when size passes maxListBytes (the first item always has room).
func pageFull(size, kept int) bool { return kept > 0 && size > maxListBytes }

// writeList answers a page of items with the list envelope of docs/api.md:
// {"success":true,"data":[…],"pagination":{…}} as encoding/json writes it,
// items encoded one by one so that the page ends at maxListBytes (pageFull).
func writeList[T any](w http.ResponseWriter, items []T, total int, p store.Page) {
	buf := buffers.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	buf.WriteString(`{"success":true,"data":[`)
	start, n := buf.Len(), 0
	for i := range items {
		end := buf.Len()
		if n > 0 {
			buf.WriteByte(',')
		}
		if err := enc.Encode(items[i]); err != nil {
			buf.Reset()
			buf.Write(internalErrorBody)
			writeBuffer(w, http.StatusInternalServerError, buf)
			return
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		if pageFull(buf.Len()-start, n) {
			buf.Truncate(end)
			break
		}
		n++
	}
	buf.WriteString(`],"pagination":`)
	enc.Encode(newPagination(n, total, p)) // cannot fail: four numbers
	buf.Truncate(buf.Len() - 1)
	buf.WriteString("}\n")
	writeBuffer(w, http.StatusOK, buf)
}

// writeBuffer sends an answer encoded whole.
func writeBuffer(w http.ResponseWriter, status int, buf *bytes.Buffer) {
	h := w.Header()
	setJSONType(h)
	// Its length known, net/http sends the body as it is: without one, a
	// body past its 4 KiB buffer went out in chunks, a write each.
	h["Content-Length"] = []string{strconv.Itoa(buf.Len())}
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// newPagination describes a page of n items: next_offset while more follow
// (past the page's end, or past where maxListBytes ended it).
func newPagination(n, total int, p store.Page) pagination {
	pg := pagination{Total: total, Limit: p.Limit, Offset: p.Offset}
	if next := p.Offset + n; n > 0 && next < total {
		pg.NextOffset = &next
	}
	return pg
}

// mapSlice turns each item into its view.
func mapSlice[T, V any](items []T, view func(T) V) []V {
	out := make([]V, len(items))
	for i, it := range items {
		out[i] = view(it)
	}
	return out
}
