package apitest

// The OpenAPI response check: every answer an Env's client receives is
// recorded and, when the test ends, checked against docs/openapi.json:
// the operation (by method and path template), the response for the
// status, its application/json schema, and its documented headers.
// Requests are not checked: tests send bad input on purpose.

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"garrison/handlers/apitest/schema"
)

// exchange is one request and its answer, as the check needs them.
type exchange struct {
	method  string
	path    string // the request path without the query, decoded
	rawPath string // the same, escaped as sent
	status  int
	header  http.Header
	raw     []byte
	reason  string // why the test exempted it (Unchecked), if it did
}

// recorder collects an Env's exchanges and the mismatches found in them.
type recorder struct {
	mu       sync.Mutex
	next     string // the Unchecked reason for the next request
	pending  []exchange
	findings map[findingKey]*finding
	order    []findingKey
	exempted []string
}

// findingKey is what makes two mismatches the same one.
type findingKey struct {
	operation string
	status    int
	keyword   string // the schema location of the violated keyword
}

type finding struct {
	first string // the first answer's request and violation
	paths []string
	count int
}

// flushEvery bounds the answers kept unchecked, for tests that send many.
const flushEvery = 256

// Unchecked exempts the answer to the next request from the OpenAPI check:
// only for a test that deliberately makes the server answer outside its
// documented contract (a 500 provoked on purpose). The reason is required
// and is logged with the request when the test ends.
func (e *Client) Unchecked(reason string) *Client {
	e.T.Helper()
	if strings.TrimSpace(reason) == "" {
		e.T.Fatal("apitest: Unchecked needs a reason")
	}
	if e.rec != nil {
		e.rec.mu.Lock()
		e.rec.next = reason
		e.rec.mu.Unlock()
	}
	return e
}

// CheckOpenAPI turns the OpenAPI response check on for this client: every
// answer it receives from now on is checked when the test ends, and each
// distinct mismatch is reported with t.Errorf. New turns it on for every
// Env; a test building its own Client may call it too.
func (e *Client) CheckOpenAPI() {
	t := e.T
	t.Helper()
	if e.rec != nil {
		return
	}
	c, err := loadContract()
	if err != nil {
		t.Errorf("apitest: the OpenAPI response check is off: %v", err)
		return
	}
	rec := &recorder{findings: map[findingKey]*finding{}}
	e.rec = rec
	t.Cleanup(func() { rec.report(t, c) })
}

// take returns the Unchecked reason for a request about to go out.
func (r *recorder) take() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	reason := r.next
	r.next = ""
	return reason
}

func (r *recorder) record(x exchange) {
	r.mu.Lock()
	r.pending = append(r.pending, x)
	var batch []exchange
	if len(r.pending) >= flushEvery {
		batch, r.pending = r.pending, nil
	}
	r.mu.Unlock()
	if batch != nil {
		if c, err := loadContract(); err == nil {
			r.check(c, batch)
		}
	}
}

func (r *recorder) check(c *contract, batch []exchange) {
	type answer struct {
		x          exchange
		operation  string
		mismatches []mismatch
	}
	var answers []answer
	var exempted []string
	for _, x := range batch {
		if x.reason != "" {
			exempted = append(exempted, fmt.Sprintf("%s %s answered %d, not checked: %s", x.method, x.path, x.status, x.reason))
			continue
		}
		if op, ms := c.check(x); len(ms) > 0 {
			answers = append(answers, answer{x, op, ms})
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exempted = append(r.exempted, exempted...)
	for _, a := range answers {
		counted := map[findingKey]bool{}
		for _, m := range a.mismatches {
			key := findingKey{a.operation, a.x.status, m.keyword}
			f := r.findings[key]
			if f == nil {
				f = &finding{first: fmt.Sprintf("%s %s: %s", a.x.method, a.x.path, m.message)}
				r.findings[key] = f
				r.order = append(r.order, key)
			}
			if !counted[key] {
				f.count++ // answers, not violations
				counted[key] = true
			}
			if len(f.paths) < 4 && !slices.Contains(f.paths, m.at) {
				f.paths = append(f.paths, m.at)
			}
		}
	}
}

// report checks what is left and reports each distinct mismatch once.
func (r *recorder) report(t testing.TB, c *contract) {
	r.mu.Lock()
	batch := r.pending
	r.pending = nil
	r.mu.Unlock()
	r.check(c, batch)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.exempted {
		t.Logf("OpenAPI check: %s", x)
	}
	for _, k := range r.order {
		f := r.findings[k]
		more := ""
		if f.count > 1 {
			more = fmt.Sprintf(" [%d answers; at %s]", f.count, strings.Join(f.paths, ", "))
		}
		t.Errorf("OpenAPI mismatch: %s, status %d, schema %s\n\t%s%s", k.operation, k.status, k.keyword, f.first, more)
	}
}

// mismatch is one way an answer departs from the document.
type mismatch struct {
	keyword string // the schema location (or document place) it violates
	at      string // JSON path in the body, or "header X"
	message string
}

// contract is docs/openapi.json, compiled for the check.
type contract struct {
	doc        *schema.Doc
	paths      []*pathItem
	notAllowed *response            // x-garrison-method-not-allowed's response
	allow      map[string]string    // x-garrison-method-not-allowed's Allow per path
	unrouted   map[int]*response    // what a path not in the document may answer
	responses  map[string]*response // by location
}

type pathItem struct {
	template string
	segs     []string // "" stands for a path parameter
	ops      map[string]*operation
}

type operation struct {
	label     string
	responses map[string]*response
}

type response struct {
	loc     string
	media   []string // the content's media types
	schema  *schema.Schema
	headers []header
}

type header struct {
	name     string
	loc      string
	required string // why the header must be present; "" if it need not
	schema   *schema.Schema
}

// presentByText are the headers the document's text says an answer
// carries wherever its response lists them, though it marks no header
// object required. (X-RateLimit-* are left out: the text promises them
// only "of the tightest rate limit applied", and some answers apply none.)
var presentByText = map[string]string{
	"X-Request-Id":     `info.description: "Every answer carries X-Request-Id"`,
	"WWW-Authenticate": `info.description: "401 (with WWW-Authenticate: Bearer realm=\"garrison\")"`,
	"Retry-After":      `info.description: "429 rate_limited (with Retry-After)"; IngestBusy: "Retry after Retry-After seconds"`,
	"Allow":            `x-garrison-method-not-allowed: "405 method_not_allowed and an Allow header"`,
}

var (
	contractOnce sync.Once
	theContract  *contract
	contractErr  error
)

// loadContract parses and compiles the document once per process.
func loadContract() (*contract, error) {
	contractOnce.Do(func() {
		raw, err := readOpenAPIDocument()
		if err == nil {
			theContract, err = compileContract(raw)
		}
		contractErr = err
	})
	return theContract, contractErr
}

// OpenAPIValidatorNotes loads the document as the response check does and
// returns what the validator leaves out: keywords it does not support
// (ignored) and patterns Go cannot compile (left unchecked).
func OpenAPIValidatorNotes() (unsupported, notes []string, err error) {
	c, err := loadContract()
	if err != nil {
		return nil, nil, err
	}
	return c.doc.Unsupported, c.doc.Notes, nil
}

var standardMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE"}

func compileContract(raw []byte) (*contract, error) {
	doc, err := schema.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("docs/openapi.json: %v", err)
	}
	root, _ := doc.Resolve("#")
	top, ok := root.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("docs/openapi.json is not an object")
	}
	c := &contract{doc: doc, allow: map[string]string{}, unrouted: map[int]*response{}, responses: map[string]*response{}}
	paths, _ := top["paths"].(map[string]any)
	for _, tmpl := range sortedKeys(paths) {
		item, _ := paths[tmpl].(map[string]any)
		p := &pathItem{template: tmpl, ops: map[string]*operation{}}
		for _, seg := range strings.Split(strings.TrimPrefix(tmpl, "/"), "/") {
			if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
				seg = ""
			}
			p.segs = append(p.segs, seg)
		}
		for _, method := range sortedKeys(item) {
			op, ok := item[method].(map[string]any)
			if !ok || !slices.Contains(standardMethods, strings.ToUpper(method)) {
				continue // parameters, summary, servers, ...
			}
			M := strings.ToUpper(method)
			o := &operation{label: M + " " + tmpl, responses: map[string]*response{}}
			if id, ok := op["operationId"].(string); ok {
				o.label += " (" + id + ")"
			}
			loc := "#/paths/" + schema.Pointer(tmpl) + "/" + method + "/responses"
			rs, _ := op["responses"].(map[string]any)
			for _, status := range sortedKeys(rs) {
				if o.responses[status], err = c.response(loc + "/" + schema.Pointer(status)); err != nil {
					return nil, err
				}
			}
			p.ops[M] = o
		}
		c.paths = append(c.paths, p)
	}
	// 405: x-garrison-method-not-allowed names the response and each
	// path's Allow.
	if mna, ok := top["x-garrison-method-not-allowed"].(map[string]any); ok {
		if c.notAllowed, err = c.response("#/x-garrison-method-not-allowed/response"); err != nil {
			return nil, err
		}
		allow, _ := mna["allow"].(map[string]any)
		for p, v := range allow {
			c.allow[p], _ = v.(string)
		}
	}
	// A path not in the document: info.description and
	// x-garrison-method-not-allowed say it is "404 not_found", which is the
	// NotFound response's code; and "every route can answer 429
	// rate_limited and 500", which the unrouted answers (charged like any
	// public request) share, as does a 405.
	for status, name := range map[int]string{404: "NotFound", 429: "RateLimited", 500: "InternalError"} {
		if c.unrouted[status], err = c.response("#/components/responses/" + name); err != nil {
			return nil, err
		}
	}
	// Compile every schema of the document, so that Unsupported and Notes
	// speak for all of it, not only for the answers tests happen to get.
	comps, _ := top["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	for _, name := range sortedKeys(schemas) {
		if _, err := doc.Compile("#/components/schemas/" + schema.Pointer(name)); err != nil {
			return nil, err
		}
	}
	for _, tmpl := range sortedKeys(paths) {
		item, _ := paths[tmpl].(map[string]any)
		for _, method := range sortedKeys(item) {
			op, _ := item[method].(map[string]any)
			body, _ := op["requestBody"].(map[string]any)
			content, _ := body["content"].(map[string]any)
			for _, media := range sortedKeys(content) {
				loc := "#/paths/" + schema.Pointer(tmpl) + "/" + method + "/requestBody/content/" + schema.Pointer(media) + "/schema"
				if _, err := doc.Resolve(loc); err == nil {
					if _, err := doc.Compile(loc); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return c, nil
}

// response compiles the response at a location, following $refs.
func (c *contract) response(loc string) (*response, error) {
	v, err := c.doc.Resolve(loc)
	if err != nil {
		return nil, err
	}
	for range 10 {
		m, _ := v.(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		loc = ref
		if v, err = c.doc.Resolve(ref); err != nil {
			return nil, err
		}
	}
	if r := c.responses[loc]; r != nil {
		return r, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a response must be an object", loc)
	}
	r := &response{loc: loc}
	content, _ := m["content"].(map[string]any)
	r.media = sortedKeys(content)
	if mt, ok := content["application/json"].(map[string]any); ok && mt["schema"] != nil {
		if r.schema, err = c.doc.Compile(loc + "/content/application~1json/schema"); err != nil {
			return nil, err
		}
	}
	headers, _ := m["headers"].(map[string]any)
	for _, name := range sortedKeys(headers) {
		hloc := loc + "/headers/" + schema.Pointer(name)
		hv := headers[name]
		if hm, ok := hv.(map[string]any); ok {
			if ref, ok := hm["$ref"].(string); ok {
				hloc = ref
				if hv, err = c.doc.Resolve(ref); err != nil {
					return nil, err
				}
			}
		}
		hm, _ := hv.(map[string]any)
		h := header{name: name, loc: hloc}
		if required, _ := hm["required"].(bool); required {
			h.required = "the header is marked required"
		} else if why, ok := presentByText[name]; ok {
			h.required = why
		}
		if hm["schema"] != nil {
			if h.schema, err = c.doc.Compile(hloc + "/schema"); err != nil {
				return nil, err
			}
		}
		r.headers = append(r.headers, h)
	}
	c.responses[loc] = r
	return r, nil
}

// find matches a request path (under /api) to the document's most specific
// path template, as the server's mux does: a literal segment beats a
// parameter, and a parameter matches one whole, non-empty segment.
func (c *contract) find(rawPath string) *pathItem {
	segs := strings.Split(strings.TrimPrefix(rawPath, "/"), "/")
	var best *pathItem
	for _, p := range c.paths {
		if len(p.segs) != len(segs) {
			continue
		}
		ok := true
		for i, s := range p.segs {
			seg, err := url.PathUnescape(segs[i])
			if err != nil {
				seg = segs[i]
			}
			if s == "" && seg == "" || s != "" && s != seg {
				ok = false
				break
			}
		}
		if ok && (best == nil || moreSpecific(p, best)) {
			best = p
		}
	}
	return best
}

func moreSpecific(a, b *pathItem) bool {
	for i := range a.segs {
		if (a.segs[i] == "") != (b.segs[i] == "") {
			return a.segs[i] != ""
		}
	}
	return false
}

// check returns the operation an answer belongs to and its mismatches.
func (c *contract) check(x exchange) (string, []mismatch) {
	var (
		label     string
		responses func(status int) (*response, string)
		item      *pathItem
		head      = x.method == http.MethodHead
	)
	if x.path != "/api" && !strings.HasPrefix(x.path, "/api/") {
		return "", nil // the console's pages, not the API (console_test.go checks them)
	}
	if strings.HasPrefix(x.path, "/api/") && path.Clean(x.path) == x.path {
		item = c.find(strings.TrimPrefix(x.rawPath, "/api"))
	}
	switch {
	case item == nil:
		label = "a path not in the document"
		responses = c.unroutedResponse
	case item.ops[x.method] != nil || head && item.ops[http.MethodGet] != nil:
		op := item.ops[x.method]
		if op == nil {
			op = item.ops[http.MethodGet] // HEAD is served wherever GET is
		}
		label = op.label
		if head {
			label = "HEAD (as " + label + ")"
		}
		responses = func(status int) (*response, string) {
			s := strconv.Itoa(status)
			for _, k := range []string{s, s[:1] + "XX", "default"} {
				if r := op.responses[k]; r != nil {
					return r, ""
				}
			}
			return nil, "documented: " + strings.Join(sortedKeys(op.responses), ", ")
		}
	case slices.Contains(standardMethods, x.method):
		label = x.method + " " + item.template + " (x-garrison-method-not-allowed)"
		responses = func(status int) (*response, string) {
			if status == http.StatusMethodNotAllowed && c.notAllowed != nil {
				return c.notAllowed, ""
			}
			return c.unroutedResponse(status)
		}
	default:
		return "", nil // a non-standard method: the document says nothing of it
	}
	r, documented := responses(x.status)
	if r == nil {
		return label, []mismatch{{"status", "status", fmt.Sprintf("answered %d, which is not documented (%s); body %s", x.status, documented, short(x.raw))}}
	}
	var ms []mismatch
	if item != nil && x.status == http.StatusMethodNotAllowed && r == c.notAllowed {
		if want, ok := c.allow[item.template]; ok && len(x.header.Values("Allow")) > 0 && x.header.Get("Allow") != want {
			ms = append(ms, mismatch{"#/x-garrison-method-not-allowed/allow/" + schema.Pointer(item.template), "header Allow",
				fmt.Sprintf("Allow is %q, document says %q", x.header.Get("Allow"), want)})
		}
	}
	ms = append(ms, r.checkHeaders(x.header)...)
	if head {
		return label, ms // no body to check
	}
	return label, append(ms, r.checkBody(x)...)
}

func (c *contract) unroutedResponse(status int) (*response, string) {
	if r := c.unrouted[status]; r != nil {
		return r, ""
	}
	return nil, "documented: 404, 429, 500"
}

func (r *response) checkHeaders(h http.Header) []mismatch {
	var ms []mismatch
	for _, hd := range r.headers {
		values := h.Values(hd.name)
		if len(values) == 0 {
			if hd.required != "" {
				ms = append(ms, mismatch{hd.loc + " (present)", "header " + hd.name, "header " + hd.name + " is missing; " + hd.required})
			}
			continue
		}
		if hd.schema == nil {
			continue
		}
		for _, v := range values {
			for _, e := range hd.schema.Validate(headerValue(v, hd.schema)) {
				ms = append(ms, mismatch{e.Keyword, "header " + hd.name, fmt.Sprintf("header %s: %q: %s", hd.name, v, e.Message)})
			}
		}
	}
	return ms
}

// headerValue reads a header as the JSON value its schema wants: a number
// where it wants one and the text is one, else the text.
func headerValue(v string, s *schema.Schema) any {
	types := s.Types()
	if slices.Contains(types, "integer") || slices.Contains(types, "number") {
		if n := json.Number(strings.TrimSpace(v)); json.Valid([]byte(n)) {
			if _, err := n.Float64(); err == nil {
				return n
			}
		}
	}
	return v
}

func (r *response) checkBody(x exchange) []mismatch {
	// An answer in another documented media type (a CSV or HTML download)
	// is checked for its type only: this check reads JSON schemas alone.
	if mt, _, err := mime.ParseMediaType(x.header.Get("Content-Type")); err == nil && mt != "application/json" && len(x.raw) > 0 {
		if !slices.Contains(r.media, mt) {
			return []mismatch{{r.loc + "/content", "header Content-Type", fmt.Sprintf("Content-Type %q, the document gives %v", mt, r.media)}}
		}
		return nil
	}
	if r.schema == nil {
		if len(r.media) == 0 && len(x.raw) > 0 {
			return []mismatch{{r.loc + "/content", "$", "the document gives this answer no body, the server sent " + short(x.raw)}}
		}
		return nil // documented in another media type, which this check does not read
	}
	if len(x.raw) == 0 {
		return []mismatch{{r.loc + "/content", "$", "empty body; the document says application/json"}}
	}
	var ms []mismatch
	if mt, _, err := mime.ParseMediaType(x.header.Get("Content-Type")); err != nil || mt != "application/json" {
		ms = append(ms, mismatch{r.loc + "/content", "header Content-Type", fmt.Sprintf("Content-Type %q, the document says application/json", x.header.Get("Content-Type"))})
	}
	v, err := schema.Decode(x.raw)
	if err != nil {
		return append(ms, mismatch{r.loc + "/content", "$", fmt.Sprintf("body is not JSON (%v): %s", err, short(x.raw))})
	}
	for _, e := range r.schema.Validate(v) {
		ms = append(ms, mismatch{e.Keyword, e.Path, e.Path + ": " + e.Message})
	}
	return ms
}

func short(raw []byte) string {
	if len(raw) > 200 {
		return strconv.Quote(string(raw[:200])) + "..."
	}
	return strconv.Quote(string(raw))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
