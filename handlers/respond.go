package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"garrison/store"
)

type dataBody struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

type listBody struct {
	Success    bool       `json:"success"`
	Data       any        `json:"data"`
	Pagination pagination `json:"pagination"`
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
	setJSONType(w.Header())
	w.WriteHeader(status)
	w.Write(buf.Bytes())
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

// writeList answers a page of items with the list envelope of docs/api.md.
func writeList[T any](w http.ResponseWriter, items []T, total int, p store.Page) {
	if items == nil {
		items = []T{}
	}
	writeJSON(w, http.StatusOK, listBody{Success: true, Data: items, Pagination: newPagination(len(items), total, p)})
}

// newPagination describes a page of n items: next_offset while more follow.
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
