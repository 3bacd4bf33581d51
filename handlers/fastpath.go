package handlers

import (
	"net/http"
	"strings"
)

// staticRoutes find the handler of a path without a wildcard by one map
// lookup and an array index, before the mux: the most frequent requests
// (health, stats, events) then skip the mux's pattern walk. A path the map
// lacks, a method it lacks there (HEAD), or a path written with escapes
// (which the mux matches as written) goes to the mux.
type staticRoutes map[string]*[len(staticMethods)]http.Handler

// staticMethods are the methods routes use, in the order of a static
// path's handlers.
var staticMethods = [...]string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// staticMethod is m's index in staticMethods, -1 for any other method.
func staticMethod(m string) int {
	for i, sm := range staticMethods {
		if m == sm {
			return i
		}
	}
	return -1
}

// add remembers a route's handler when its path has no wildcard.
func (s staticRoutes) add(method, path string, h http.Handler) {
	i := staticMethod(method)
	if i < 0 || strings.Contains(path, "{") {
		return
	}
	if s[path] == nil {
		s[path] = new([len(staticMethods)]http.Handler)
	}
	s[path][i] = h
}

// find is the request's handler, nil when the mux must decide.
func (s staticRoutes) find(r *http.Request) http.Handler {
	hs, i := s[r.URL.Path], staticMethod(r.Method)
	if hs == nil || i < 0 || r.URL.RawPath != "" {
		return nil
	}
	return hs[i]
}
