// Package apitest starts Garrison's whole API over a real store in a
// test's temporary directory, with a clock the test moves, and speaks to
// it over HTTP as a client would: the harness of every black-box API test.
//
// Sessions are issued by an in-memory codec (tokens are opaque): the HS256
// token format itself is auth.go's and is tested there.
package apitest

import (
	"context"
	"crypto/x509"
	"database/sql"
	"errors"
	"log/slog"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"garrison/account"
	"garrison/agents"
	"garrison/app"
	"garrison/handlers"
	"garrison/ratelimit"
	"garrison/store"
	"garrison/store/storetest"
)

// Iterations keeps PBKDF2 cheap in tests; production uses 600,000.
const Iterations = 1000

// GenerousLimits keeps rate limits out of tests about other things; the
// rate-limit tests put the real defaults back (UseLimits).
const GenerousLimits = "auth=100000/1m,login=100000/1m,register=100000/1m,reset=100000/1m,jwt=100000/1m,apikey=100000/1m,agent-runs=100000/1m"

// BaseURL is the configured public URL mail links are built on.
const BaseURL = "https://garrison.test"

// Config is what a test may change about the server it starts.
type Config struct {
	DataDir        string // default: a fresh temporary directory
	DefaultPlan    string
	Workers        int
	AgentTimeout   time.Duration
	LLMURL         string // an OpenAI-compatible endpoint, with LLMModel
	LLMModel       string
	LLMTimeout     time.Duration
	SessionTTL     time.Duration
	SessionMax     time.Duration
	TrustedProxies []netip.Prefix
	IngestInflight int64
	SMTPAddr       string
	SMTPFrom       string
	LogLevel       slog.Level // of what the server logs into Env.Logs (default info)
	Registration   string     // who may sign up (default open)
	// NotifyRootCAs are the roots notification receivers are checked
	// against: the tests' local receivers (loopback is allowed in tests).
	NotifyRootCAs *x509.CertPool
	// Retention is the appliance's event retention (0: kept for good).
	Retention time.Duration
}

// Option changes the Config.
type Option func(*Config)

// Env is a running API and what a test needs to look behind it.
type Env struct {
	*Client
	// App is the whole app, as the server wires it.
	App     *app.App
	API     *handlers.API
	Server  *httptest.Server
	Clock   *Clock
	Logs    *LockedBuffer
	Runner  *agents.Runner
	DataDir string
	// Database is the PostgreSQL database the app keeps its data in
	// (GARRISON_TEST_ENGINE=postgres); "": SQLite in DataDir.
	Database string
	// StopRunner stops the agent runtime, as a shutdown does.
	StopRunner func()
	limits     *handlers.RateLimits
	trusted    []netip.Prefix
}

// New starts the API; it stops when the test ends.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	cfg := Config{DefaultPlan: account.PlanStarter, Workers: 2, AgentTimeout: 2 * time.Minute, LLMTimeout: 30 * time.Second,
		SessionTTL: 24 * time.Hour, SessionMax: 30 * 24 * time.Hour, SMTPFrom: "garrison@localhost"}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	clock := NewClock()
	logs := &LockedBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: cfg.LogLevel}))
	limits, err := ratelimit.ParseLimits(GenerousLimits)
	if err != nil {
		t.Fatal(err)
	}
	database := testDatabase(t)
	if database != "" {
		// As an operator runs garrison migrate before the nodes start.
		if _, err := store.MigratePostgres(context.Background(), database, storetest.Schema(t)); err != nil {
			t.Fatal(err)
		}
	}
	a, err := app.New(context.Background(), app.Settings{DataDir: cfg.DataDir, Database: database, BaseURL: BaseURL, SessionTTL: cfg.SessionTTL,
		DefaultPlan: cfg.DefaultPlan, Registration: cfg.Registration, SMTPAddr: cfg.SMTPAddr, SMTPFrom: cfg.SMTPFrom,
		Limits: limits, TrustedProxies: cfg.TrustedProxies, AgentWorkers: cfg.Workers, AgentTimeout: cfg.AgentTimeout,
		LLMURL: cfg.LLMURL, LLMModel: cfg.LLMModel, LLMTimeout: cfg.LLMTimeout, IngestInflight: cfg.IngestInflight,
		NotifyAllowLoopback: true, Retention: cfg.Retention},
		app.Options{Schema: storetest.Schema(t), OpenAPI: openAPIDocument(t), Sessions: newSessions(clock.Now, cfg.SessionTTL, cfg.SessionMax),
			Log: log, Now: clock.Now, PasswordIterations: Iterations, NotifyRootCAs: cfg.NotifyRootCAs})
	if err != nil {
		t.Fatal(err)
	}
	st := a.Store
	e := &Env{Client: &Client{T: t, Store: st, Mailer: a.Mailer}, App: a, API: a.API, Clock: clock, Logs: logs, Runner: a.Runner,
		DataDir: cfg.DataDir, Database: database, trusted: cfg.TrustedProxies, limits: a.Limits}
	// Every answer this Env gets is checked against docs/openapi.json when
	// the test ends (contract.go); Unchecked exempts one on purpose.
	e.CheckOpenAPI()
	// A failed test shows what the server logged as errors and warnings: a
	// 500's cause, a background loop's failure.
	t.Cleanup(func() {
		if t.Failed() {
			var lines []string
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, `"level":"ERROR"`) || strings.Contains(l, `"level":"WARN"`) {
					lines = append(lines, l)
				}
			}
			if len(lines) > 0 {
				t.Logf("the server logged:\n%s", strings.Join(lines[:min(len(lines), 20)], "\n"))
			}
		}
	})
	e.Server = httptest.NewServer(a.Handler)
	e.URL, e.HTTP = e.Server.URL, e.Server.Client()
	// The agents and the store's maintenance run as in a server; mail
	// delivery only for the tests that ask (Background).
	ctx, cancel := context.WithCancel(context.Background())
	waitRunner := a.Start(ctx, app.Agents)
	var once sync.Once
	e.StopRunner = func() { once.Do(func() { cancel(); waitRunner() }) }
	maintained, stopMaintaining := context.WithCancel(context.Background())
	waitMaintaining := a.Start(maintained, app.Maintenance)
	t.Cleanup(func() {
		e.Server.Close()
		e.StopRunner()
		stopMaintaining()
		waitMaintaining()
		if err := a.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// UseLimits replaces every rate-limit bucket with fresh ones at the
// default limits plus the overrides (ratelimit.ParseLimits), trusting the
// given proxies.
func (e *Env) UseLimits(overrides string, trusted []netip.Prefix) {
	e.T.Helper()
	limits, err := ratelimit.ParseLimits(overrides)
	if err != nil {
		e.T.Fatal(err)
	}
	c := handlers.LimitsConfig{Limits: limits, Trusted: trusted, Now: e.Clock.Now}
	if e.Database != "" {
		c.Shared = e.Store // as the app shares them on PostgreSQL
	}
	*e.limits = *handlers.NewRateLimits(c)
}

// Background runs mail delivery, as the app does beside the API, until the
// returned stop is called. (The store's fold and the agents always run;
// delivery is left to the tests that want it, as it blanks delivered mail.)
func (e *Env) Background() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	wait := e.App.Start(ctx, app.Mail)
	return func() { cancel(); wait() }
}

// Dispatching runs notification routing and delivery, as the app does
// beside the API, until the returned stop is called.
func (e *Env) Dispatching() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	wait := e.App.Start(ctx, app.Notify)
	return func() { cancel(); wait() }
}

var (
	docOnce sync.Once
	doc     []byte
	docErr  error
)

// readOpenAPIDocument reads docs/openapi.json once per process.
func readOpenAPIDocument() ([]byte, error) {
	docOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		doc, docErr = os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "docs", "openapi.json"))
		if docErr == nil && len(doc) == 0 {
			docErr = errors.New("docs/openapi.json is empty")
		}
	})
	return doc, docErr
}

// openAPIDocument is docs/openapi.json, as the binary embeds it.
func openAPIDocument(t testing.TB) []byte {
	doc, err := readOpenAPIDocument()
	if err != nil {
		t.Fatalf("docs/openapi.json not found: %v", err)
	}
	return doc
}

// Clock is the injected clock: tests move time instead of sleeping.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts at a fixed time.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// LockedBuffer is a log sink safe for the server's goroutines.
type LockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// EngineEnv chooses the database the harness's app keeps its data in:
// "postgres" runs the HTTP tests on a new database of the test cluster
// (storetest.Postgres); unset, on SQLite in the test's directory.
const EngineEnv = "GARRISON_TEST_ENGINE"

// SQLiteOnly skips a test of SQLite's own mechanisms (its file, its page
// limit for a full disk) when the harness runs on PostgreSQL, saying why.
func SQLiteOnly(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(EngineEnv) == "postgres" {
		t.Skip("on SQLite only: " + why)
	}
}

func testDatabase(t testing.TB) string {
	if os.Getenv(EngineEnv) == "postgres" {
		return storetest.Postgres(t)
	}
	return ""
}

// Stored is everything the app has stored, by where: on SQLite the data
// directory's files (database, WAL), on PostgreSQL every table's rows as
// text; for tests that no secret is kept in the clear.
func (e *Env) Stored(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	if e.Database == "" {
		files, _ := filepath.Glob(filepath.Join(e.DataDir, "*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(f)] = b
		}
		return out
	}
	db, err := sql.Open(store.PostgresDriver, e.Database)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	for _, table := range tables {
		var text sql.NullString
		if err := db.QueryRow(`SELECT string_agg(CAST(t AS TEXT), ' ') FROM ` + table + ` t`).Scan(&text); err != nil {
			t.Fatal(err)
		}
		out[table] = []byte(text.String)
	}
	return out
}
