// Package handlers is Garrison's HTTP API: routing, the JSON envelope,
// strict decoding, authorization per route, and one file per resource.
package handlers

import (
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"garrison/account"
	"garrison/blocklist"
	"garrison/compliance"
	"garrison/dashboard"
	"garrison/detection"
	"garrison/dispatch"
	"garrison/fault"
	"garrison/fleet"
	"garrison/ingest"
	"garrison/intel"
	"garrison/metrics"
	"garrison/store"
)

// Deps is everything the API needs from outside.
type Deps struct {
	Store *store.Store
	Log   *slog.Logger
	Now   func() time.Time
	// Accounts holds the rules of identity.
	Accounts *account.Accounts
	Limits   *RateLimits
	// Blocklist classifies DNS queries (nil: no lists; the app passes the
	// embedded lists and the data directory's, blocklist.Load).
	Blocklist *blocklist.List
	// OpenAPI is the OpenAPI 3.1 document served at GET /api/openapi.json.
	OpenAPI []byte
	// Agents runs queued agent runs.
	Agents AgentRuntime
	// Compliance is the compliance engine: frameworks, audits, templates,
	// attestations and remediation.
	Compliance *compliance.Engine
	// Metrics counts requests and what they did (nil: none).
	Metrics *metrics.Registry
	// Version is the build's version, shown by the health check.
	Version string
	// Node names this process among a cluster's nodes, shown by the
	// health check ("" omits it).
	Node string
	// Intel is the vulnerability intelligence: store, assets, watchlist.
	Intel *intel.Service
	// Dashboard composes the dashboard's panels.
	Dashboard *dashboard.Board
	// Fleet is a provider's view over its clients.
	Fleet *fleet.Service
	// Dispatch is notification routing and delivery: contact points,
	// rules, the delivery log.
	Dispatch *dispatch.Dispatcher
	// Ingest parses and stores sensor data.
	Ingest *ingest.Ingester
	// Detection is each organization's detection rules.
	Detection *detection.Service
	// Console serves the web console's pages outside /api/ (nil: a JSON
	// 404 there too).
	Console http.Handler
	// IngestInflight bounds the bytes of ingest bodies held at once
	// (default DefaultIngestInflight).
	IngestInflight int64
}

// DefaultIngestInflight is the default of Deps.IngestInflight: four bodies
// of the largest size.
const DefaultIngestInflight = 4 * MaxIngestBodyBytes

// API serves every route of Garrison.
type API struct {
	Deps
	healthyBody  []byte // the healthy answer, encoded once
	routes       []Route
	ingestBudget inflight
}

// New builds the API handler.
func New(d Deps) *API {
	if d.Version == "" {
		d.Version = "devel"
	}
	if d.Limits == nil {
		d.Limits = NewRateLimits(LimitsConfig{})
	}
	if d.Blocklist == nil {
		d.Blocklist = blocklist.New()
	}
	if d.Dashboard == nil {
		d.Dashboard = dashboard.New(dashboard.Config{Store: d.Store, Now: d.Now, Blocklist: d.Blocklist, Log: d.Log})
	}
	if d.Detection == nil {
		d.Detection = detection.NewService(d.Store, d.Now)
	}
	if d.Ingest == nil {
		d.Ingest = ingest.New(ingest.Config{Store: d.Store, Now: d.Now, Blocklist: d.Blocklist, Detection: d.Detection})
	}
	if d.IngestInflight <= 0 {
		d.IngestInflight = DefaultIngestInflight
	}
	if d.Accounts == nil { // API keys only: no session codec
		d.Accounts = account.New(account.Config{Store: d.Store, Now: d.Now, Log: d.Log})
	}
	if d.Fleet == nil {
		d.Fleet = fleet.New(fleet.Config{Store: d.Store, Accounts: d.Accounts, Board: d.Dashboard, Now: d.Now, Log: d.Log})
	}
	a := &API{Deps: d, ingestBudget: newInflight(d.IngestInflight)}
	a.routes = a.table()
	a.healthyBody = a.healthBody("ok", "")
	a.declareMetrics()
	return a
}

// Routes lists the API surface, for tests that check every route.
func (a *API) Routes() []Route { return a.routes }

// Handler returns the http.Handler for the whole server.
func (a *API) Handler() http.Handler {
	mux := http.NewServeMux()
	methods := map[string][]string{}
	static := staticRoutes{}
	for _, rt := range a.routes {
		h := a.endpoint(rt)
		mux.Handle(rt.Method+" "+rt.Path, h)
		methods[rt.Path] = append(methods[rt.Path], rt.Method)
		static.add(rt.Method, rt.Path, h)
	}
	// Every other standard method of a routed path is a JSON 405. (A pattern
	// without a method would conflict with overlapping wildcard routes, such
	// as /api/tickets/submit beside GET /api/tickets/{id}.)
	for path, allowed := range methods {
		if slices.Contains(allowed, http.MethodGet) {
			allowed = append(allowed, http.MethodHead)
		}
		sort.Strings(allowed)
		allow := strings.Join(allowed, ", ")
		notAllowed := a.unrouted(func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("Allow", allow)
			return fault.New(fault.NotAllowed, "Method "+r.Method+" is not allowed here; allowed: "+allow)
		})
		for _, m := range standardMethods {
			if !slices.Contains(allowed, m) {
				mux.Handle(m+" "+path, notAllowed)
			}
		}
	}
	// Everything else under /api/, /api/v1/... included, is a JSON 404;
	// outside it, the console's pages (GET and HEAD only).
	notFoundHandler := a.unrouted(func(http.ResponseWriter, *http.Request) error { return notFound() })
	consoleNotAllowed := a.unrouted(func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Allow", "GET, HEAD")
		return fault.New(fault.NotAllowed, "Method "+r.Method+" is not allowed here; allowed: GET, HEAD")
	})
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case a.Console == nil || r.URL.Path == "/api" || strings.HasPrefix(r.URL.Path, "/api/"):
			notFoundHandler.ServeHTTP(w, r)
		case r.Method == http.MethodGet || r.Method == http.MethodHead:
			a.Console.ServeHTTP(w, r)
		default:
			consoleNotAllowed.ServeHTTP(w, r)
		}
	}))
	// The mux would answer unclean paths (/api//org, /api/v1/../org) with a
	// bodiless redirect; they name no resource, so they are a JSON 404.
	clean := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := static.find(r); h != nil {
			h.ServeHTTP(w, r)
			return
		}
		if p := r.URL.Path; p == "" || path.Clean(p) != p {
			notFoundHandler.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
	return base(clean, a.Log, func() []netip.Prefix { return a.Limits.trusted })
}

var standardMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace}

// unrouted answers requests no route takes, charged per client IP like any
// public request so probing for paths is throttled too.
func (a *API) unrouted(answer func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := a.charge(w, r, a.Limits.ip, a.clientKey(r))
		if err == nil {
			err = answer(w, r)
		}
		writeError(w, r, a.Log, err)
	})
}

// endpoint rate-limits, authenticates and authorizes as the route demands,
// then runs it.
func (a *API) endpoint(rt Route) http.Handler {
	var counted *metrics.Route
	if a.Metrics != nil {
		counted = a.Metrics.Route(rt.Method + " " + rt.Path)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if st := stateOf(r.Context()); st != nil {
			st.route = counted // base counts the answer, once it is written
		}
		if r.Body != http.NoBody { // a GET has none to cap
			r.Body = http.MaxBytesReader(w, r.Body, rt.BodyCap)
		}
		err := a.admit(w, r, rt)
		if err == nil {
			err = checkQuery(r, rt) // after the limits, so the answer carries their headers
		}
		var note *auditNote
		if rt.Audit != "" || rt.Access == Admin {
			r, note = withAudit(r) // an admin route's refusal is recorded too
		}
		if err == nil {
			noteWho(r, principalFrom(r.Context()))
			err = rt.handle(w, r)
		}
		if err != nil {
			writeError(w, r, a.Log, err)
		}
		a.recordAudit(w, r, rt, note)
	})
}

// admit applies the rate limits and the route's access rule, and notes the
// principal in the request's state (no context value, no request copy).
func (a *API) admit(w http.ResponseWriter, r *http.Request, rt Route) error {
	ip := a.clientKey(r)
	if err := a.limitBeforeAuth(w, r, rt, ip); err != nil {
		return err
	}
	if rt.Access == Public {
		return nil
	}
	p, err := a.authenticate(r)
	if err != nil {
		if p.ViaCookie && fault.Has(err, fault.Unauthorized) {
			clearSessionCookie(w) // the console then shows its sign-in page
		}
		// A refused credential, or an organization it may not act in (a
		// guess at another tenant's id), draws on the failed-credential
		// bucket.
		if fault.Has(err, fault.Unauthorized) || errors.Is(err, account.ErrOrgUnreachable) {
			if limitErr := a.limitFailedAuth(w, r, rt, ip); limitErr != nil {
				return limitErr
			}
		}
		return err
	}
	if err := a.limitAfterAuth(w, r, rt, p, ip); err != nil {
		return err
	}
	// Noted before the access check: a refusal is recorded with who tried.
	if st := stateOf(r.Context()); st != nil {
		st.principal = &p
	}
	return authorize(p, rt.Access)
}
