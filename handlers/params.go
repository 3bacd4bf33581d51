package handlers

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"garrison/store"
	"garrison/valid"
)

// List sizes (docs/api.md).
const (
	defaultLimit = 50
	maxLimit     = 200
	// maxOffset bounds how deep a page may start: deeper pages are a scan.
	maxOffset = 1_000_000
)

// queryValue returns a query parameter and whether it was given at all: a
// parameter given empty (?limit=) is given, and judged like any value.
func queryValue(r *http.Request, name string) (string, bool) {
	q := r.URL.Query()
	return q.Get(name), q.Has(name)
}

// checkQuery refuses a query string net/url would misread, since a filter
// it drops answers unfiltered data: it drops without a word a pair holding
// ';' (?severity=critical;x) or a broken %-escape (?severity=low%zz), and
// reads only the first of a parameter given twice (?limit=1&limit=-5), so
// the second would never be judged.
func checkQuery(r *http.Request, rt Route) error {
	raw := r.URL.RawQuery
	if raw == "" {
		return nil
	}
	if strings.Contains(raw, ";") {
		return valid.Field("query", "must not contain ';'; separate parameters with '&' and list values with ','")
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return valid.Field("query", "has a malformed %-escape; write '%' as %25")
	}
	// The first such name in order, so the answer does not depend on the
	// map's; nothing sorted when none is given twice, as on every request.
	var twice, unknown string
	for name, values := range q {
		if len(values) > 1 && (twice == "" || name < twice) {
			twice = name
		}
		if !slices.Contains(rt.Query, name) && (unknown == "" || name < unknown) {
			unknown = name
		}
	}
	if unknown != "" {
		if len(rt.Query) == 0 {
			return valid.Field(unknown, "is not a query parameter of "+rt.Method+" "+rt.Path+", which takes none")
		}
		return valid.Field(unknown, "is not a query parameter of "+rt.Method+" "+rt.Path+"; it takes "+strings.Join(rt.Query, ", "))
	}
	if twice != "" {
		return valid.Field(twice, "is given more than once; give it once, with its values separated by ','")
	}
	return nil
}

// parsePage reads limit and offset: non-negative integers, limit clamped
// to maxLimit, offset at most maxOffset.
func parsePage(r *http.Request) (store.Page, error) {
	var p valid.Problems
	page := store.Page{Limit: defaultLimit}
	if v, ok := queryValue(r, "limit"); ok {
		n, err := strconv.Atoi(v)
		p.Check(err == nil && n >= 0, "limit", "must be a non-negative integer")
		page.Limit = min(n, maxLimit)
	}
	if v, ok := queryValue(r, "offset"); ok {
		n, err := strconv.Atoi(v)
		p.Check(err == nil && n >= 0 && n <= maxOffset, "offset", "must be an integer from 0 to 1000000")
		page.Offset = n
	}
	return page, p.Err()
}

// boolParam reads a true/false query parameter; absent is false.
func boolParam(r *http.Request, name string) (bool, error) {
	v, _ := queryValue(r, name)
	switch v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, valid.Field(name, "must be true or false")
}
