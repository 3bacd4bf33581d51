package handlers

import "net/http"

// Request body caps: 1 MiB for everything but ingest, whose 10,000-event
// batches need more (a batch of small events is over 1 MiB).
const (
	MaxBodyBytes       = 1 << 20
	MaxIngestBodyBytes = 16 << 20
)

// Route is one method and path of the API: who may call it, what answers
// it, and what else applies to it.
type Route struct {
	Method string
	Path   string
	Access Access
	handle func(http.ResponseWriter, *http.Request) error
	// Audit is the audit log's action for an answer that succeeded ("":
	// not audited). A refused login is recorded as audit.LoginFailed.
	Audit string
	// BodyCap is the largest body the route reads (MaxBodyBytes unless set).
	BodyCap int64
	// Buckets are the rate-limit buckets the route draws on per client IP
	// before its credential is known (the /auth/ routes'); ByCredential:
	// the credential's own bucket.
	Buckets Buckets
	// Query names the query parameters the route takes; any other is
	// refused, so that a filter the route does not know is never taken
	// for one it applied.
	Query []string
}

// Buckets names the per-IP rate-limit buckets of the sign-in routes.
type Buckets uint8

const (
	ByCredential    Buckets = iota // per IP for sessions and public routes, per organization for keys
	AuthBucket                     // the auth bucket
	LoginBuckets                   // the auth and login buckets
	RegisterBuckets                // the auth and register buckets
	ResetBuckets                   // the auth and reset buckets
)

// rowOption sets one of a route's optional fields.
type rowOption func(*Route)

// row is one line of the route table.
func row(method, path string, access Access, handle func(http.ResponseWriter, *http.Request) error, opts ...rowOption) Route {
	rt := Route{Method: method, Path: path, Access: access, handle: handle, BodyCap: MaxBodyBytes}
	for _, o := range opts {
		o(&rt)
	}
	return rt
}

func audited(action string) rowOption { return func(rt *Route) { rt.Audit = action } }

func bodyCap(n int64) rowOption { return func(rt *Route) { rt.BodyCap = n } }

func throttled(b Buckets) rowOption { return func(rt *Route) { rt.Buckets = b } }

func params(names ...string) rowOption { return func(rt *Route) { rt.Query = names } }
