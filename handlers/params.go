package handlers

import (
	"net/http"
	"strconv"

	"garrison/store"
	"garrison/valid"
)

// List sizes: decisions.md.
const (
	defaultLimit = 50
	maxLimit     = 200
)

// parsePage reads limit and offset. Non-numeric or negative values are a
// validation_error; limit is clamped to maxLimit.
func parsePage(r *http.Request) (store.Page, error) {
	q := r.URL.Query()
	var p valid.Problems
	page := store.Page{Limit: defaultLimit}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		p.Check(err == nil && n >= 0, "limit", "must be a non-negative integer")
		page.Limit = min(n, maxLimit)
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		p.Check(err == nil && n >= 0, "offset", "must be a non-negative integer")
		page.Offset = n
	}
	return page, p.Err()
}
