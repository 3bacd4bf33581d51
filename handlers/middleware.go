package handlers

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"

	"garrison/fault"
	"garrison/metrics"
	"garrison/ratelimit"
)

type ctxKey int

const requestStateKey ctxKey = 0

// requestState is what the middleware and the endpoint note about one
// request, made in one allocation since every request needs all of it: its
// id, its client, its principal, who made it (for the log), the tightest
// rate-limit decision, the status written, and the header values they
// answer with.
// It is also the request's context, the one it extends with a value: one
// allocation less per request than context.WithValue.
type requestState struct {
	context.Context
	id           string
	client       netip.Addr // as ratelimit.ClientIP reads it
	who          requestWho
	limit        limitState
	rec          statusRecorder
	idHeader     [1]string
	limitHeaders [3]string
	route        *metrics.Route // the matched route's counters, nil when no route matched
	principal    *Principal     // who made it, once admitted; nil on public routes
}

// Value makes the state findable under requestStateKey.
func (st *requestState) Value(key any) any {
	if key == requestStateKey {
		return st
	}
	return st.Context.Value(key)
}

// stateOf is the request's state, nil outside the middleware (unit tests
// calling a handler directly).
func stateOf(ctx context.Context) *requestState {
	if st, ok := ctx.(*requestState); ok {
		return st
	}
	st, _ := ctx.Value(requestStateKey).(*requestState)
	return st
}

// RequestID returns the id given to the request by the middleware.
func RequestID(ctx context.Context) string {
	if st := stateOf(ctx); st != nil {
		return st.id
	}
	return ""
}

// statusRecorder remembers the status for the access log and whether a
// header went out, so a late panic does not write a second one.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Header values every answer carries, made once.
var (
	nosniff  = []string{"nosniff"}
	noStore  = []string{"no-store"}
	jsonType = []string{"application/json; charset=utf-8"}
	hsts     = []string{"max-age=63072000; includeSubDomains"}
)

// sinceStart is the monotonic time since the process started: one clock
// reading, where time.Now takes two (the wall clock too).
func sinceStart() time.Duration { return time.Since(processStart) }

var processStart = time.Now()

// base wraps the whole API: request id, response headers every answer
// carries, access log and panic recovery. Body caps are per route.
func base(next http.Handler, log *slog.Logger, trusted func() []netip.Prefix) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Elapsed time, not the API's clock: one reading here, one at the end.
		start := sinceStart()
		hint := connHint(r.RemoteAddr)
		var id string
		if v := r.Header["X-Request-Id"]; len(v) > 0 { // read headers are in canonical form
			id = v[0]
		}
		if !validRequestID(id) {
			id = newRequestID(hint)
		}
		client, https := ratelimit.Origin(r, trusted())
		st := &requestState{Context: r.Context(), id: id, client: client, rec: statusRecorder{ResponseWriter: w}}
		st.idHeader[0] = id
		ctx := context.Context(st)
		r = r.WithContext(ctx)
		who := &st.who
		// The keys are written in canonical form: Set would canonicalize
		// (and allocate) on every request.
		h := w.Header()
		h["X-Request-Id"] = st.idHeader[:]
		h["X-Content-Type-Options"] = nosniff
		h["Cache-Control"] = noStore
		h["Content-Type"] = jsonType
		if https {
			h["Strict-Transport-Security"] = hsts
		}
		rec := &st.rec
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				log.ErrorContext(ctx, "panic", "request_id", id, "method", r.Method, "path", r.URL.Path,
					"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if rec.status == 0 {
					writeError(rec, r, log, internalError)
				}
			}
			took := sinceStart() - start
			if st.route != nil { // the whole request, limits and authentication included, and its final status
				status := rec.status
				if status == 0 {
					status = http.StatusOK
				}
				st.route.Observe(hint, status, took)
			}
			if log.Enabled(ctx, slog.LevelInfo) { // spares boxing the fields when access logs are off
				log.InfoContext(ctx, "request", "request_id", id, "method", r.Method, "path", r.URL.Path,
					"status", rec.status, "bytes", rec.bytes, "duration_ms", took.Milliseconds(),
					"actor", who.actor, "org", who.org, "client_ip", client.String())
			}
		}()
		if r.TLS != nil && !https {
			// A trusted proxy says the client spoke plain HTTP to it.
			redirectHTTPS(rec, r, "", log)
			return
		}
		next.ServeHTTP(rec, r)
	})
}

// redirectHTTPS answers with a 308 to the same path over HTTPS on the
// request's host; port, when given, replaces the host's port.
func redirectHTTPS(w http.ResponseWriter, r *http.Request, port string, log *slog.Logger) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil && port != "" {
		host = h
	}
	if host == "" || strings.ContainsAny(host, "/\\@ ") {
		host = "localhost"
	}
	if port != "" && port != "443" {
		if strings.Contains(host, ":") {
			host = "[" + strings.Trim(host, "[]") + "]"
		}
		host += ":" + port
	}
	target := "https://" + host + r.URL.RequestURI()
	w.Header().Set("Location", target)
	writeError(w, r, log, fault.New(fault.HTTPSRequired, "HTTPS is required; use "+target))
}

// RedirectToHTTPS is the whole plain-HTTP listener: every request gets a 308
// to the same path on the HTTPS port, through the middleware every answer
// goes through (request id, security headers, access log). Its client is
// the connection's peer: proxies speak HTTPS to the API.
func RedirectToHTTPS(httpsPort string, log *slog.Logger) http.Handler {
	return base(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		redirectHTTPS(w, r, httpsPort, log)
	}), log, func() []netip.Prefix { return nil })
}

// requestWho is who a request was from, once authenticated, for its log line.
type requestWho struct{ actor, org string }

// noteWho records the request's principal for the request log.
func noteWho(r *http.Request, p Principal) {
	if st := stateOf(r.Context()); st != nil {
		st.who.actor, st.who.org = p.ID, p.OrgID
	}
}
