package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"garrison/event"
	"garrison/store"
)

// A list answer ends its page once its items pass maxListBytes, and says
// where the rest begins, writing what encoding/json writes for the items
// it kept; an item larger than the budget is answered alone.
func TestListEndsAtItsByteBudget(t *testing.T) {
	mib := strings.Repeat("x", 1<<20)
	type body struct {
		Success    bool       `json:"success"`
		Data       []string   `json:"data"`
		Pagination pagination `json:"pagination"`
	}
	for _, tc := range []struct {
		name  string
		items []string
		page  store.Page
		total int
		kept  int
		next  *int
	}{
		{"small items all fit", []string{"a", "b"}, store.Page{Limit: 50}, 2, 2, nil},
		{"an empty page", nil, store.Page{Limit: 50, Offset: 10}, 3, 0, nil},
		{"four 1 MiB items pass 4 MiB: three are sent", []string{mib, mib, mib, mib, mib}, store.Page{Limit: 5, Offset: 20}, 100, 3, ptr(23)},
		{"the last page ends early too", []string{mib, mib, mib, mib, mib}, store.Page{Limit: 5, Offset: 20}, 25, 3, ptr(23)},
		{"an item over the budget comes alone", []string{strings.Repeat("y", 5<<20), "z"}, store.Page{Limit: 2}, 2, 1, ptr(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			writeList(w, tc.items, tc.total, tc.page)
			pg := pagination{Total: tc.total, Limit: tc.page.Limit, Offset: tc.page.Offset, NextOffset: tc.next}
			want, _ := json.Marshal(body{Success: true, Data: append([]string{}, tc.items[:tc.kept]...), Pagination: pg})
			want = append(want, '\n')
			if got := w.Body.Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("answer of %d bytes, want %d bytes: %.200s…", len(got), len(want), got)
			}
			if tc.kept > 1 && w.Body.Len() > maxListBytes+200 {
				t.Fatalf("answer of %d bytes", w.Body.Len())
			}
		})
	}
}

func ptr(n int) *int { return &n }

// The events' fast path ends its page where writeList does, byte for byte.
func TestEventListEndsWhereWriteListDoes(t *testing.T) {
	details := fmt.Sprintf(`{"payload":%q}`, strings.Repeat("d", 16<<10-20))
	var views []eventView
	for i := range 300 {
		views = append(views, newEventView(event.Event{ID: fmt.Sprint("evt_", i), Type: "threat_detected", Severity: 3,
			Timestamp: time.Unix(int64(i), 0), Source: "sensor", Asset: "web-1", Message: strings.Repeat("m", 4000), Details: []byte(details)}))
	}
	fast, std := encodeBoth(views, 1000, store.Page{Limit: 300})
	if !bytes.Equal(fast, std) {
		t.Fatalf("the pages differ: %d and %d bytes", len(fast), len(std))
	}
	var page struct {
		Data       []json.RawMessage
		Pagination pagination
	}
	if err := json.Unmarshal(fast, &page); err != nil {
		t.Fatal(err)
	}
	n := len(page.Data)
	if n == 0 || n >= 300 || len(fast) > maxListBytes+1024 || page.Pagination.NextOffset == nil || *page.Pagination.NextOffset != n {
		t.Fatalf("%d events in %d bytes, next_offset %v", n, len(fast), page.Pagination.NextOffset)
	}
}
