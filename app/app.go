// Package app is Garrison's composition root: it builds the store, the
// rules, the API and the background loops from the settings, once, for
// the server (the root package's serve) and the test harness
// (handlers/apitest). A new dependency is wired here and nowhere else.
package app

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"garrison/account"
	"garrison/agents"
	"garrison/blocklist"
	"garrison/compliance"
	"garrison/console"
	"garrison/contact"
	"garrison/credential"
	"garrison/dashboard"
	"garrison/demo"
	"garrison/detection"
	"garrison/dispatch"
	"garrison/fleet"
	"garrison/handlers"
	"garrison/ingest"
	"garrison/intel"
	"garrison/llm"
	"garrison/mail"
	"garrison/metrics"
	"garrison/ratelimit"
	"garrison/store"
	"garrison/watchdog"
)

// Settings are what an operator tells the server (garrison serve's flags
// and GARRISON_* variables) that the app itself uses; listeners, TLS and
// logging are the root package's.
type Settings struct {
	DataDir string
	// Database is a PostgreSQL URL (postgres://…) to keep the data in;
	// empty: the SQLite file in DataDir.
	Database string
	// Node names this process among a cluster's nodes (health, /metrics).
	Node string
	// BaseURL is the public URL links in mail are built on.
	BaseURL string
	// SessionTTL is a session token's lifetime (shown to the compliance
	// checks; the codec itself is Options.Sessions).
	SessionTTL   time.Duration
	DefaultPlan  string
	Registration string
	SMTPAddr     string
	SMTPFrom     string
	SMTPUsername string
	SMTPPassword string
	// SelfSignedCert is the server's own certificate file when it made
	// one ("": a certificate clients trust); mail written to the log names
	// it in its curl commands.
	SelfSignedCert  string
	Limits          map[string]ratelimit.Limit
	TrustedProxies  []netip.Prefix
	AgentWorkers    int
	AgentTimeout    time.Duration
	LLMURL          string
	LLMModel        string
	LLMAPIKey       string
	LLMTimeout      time.Duration
	IngestInflight  int64
	IntelImportOrgs []string
	Retention       time.Duration // events and DNS telemetry; 0 keeps them
	AuditRetention  time.Duration
	IntelSyncURLs   []string
	IntelSyncEvery  time.Duration
	// StorageShare is the share of the disk an organization's events may
	// take when it has no quota of its own: of what it stores plus the
	// data directory's free space (0: no default quota).
	StorageShare float64
	// NotifyCAFile names extra CAs trusted for notification receivers;
	// NotifyAllowLoopback lets receivers be on loopback addresses.
	NotifyCAFile        string
	NotifyAllowLoopback bool
	// SilenceAfter is the shortest silence of an event source noticed
	// (watchdog.DefaultSilence when 0).
	SilenceAfter time.Duration
}

// Options are what the process hands the app beside the settings: what
// the binary embeds, the session codec, and the knobs only tests turn.
type Options struct {
	// Schema is schema.sql, the store's migrations.
	Schema string
	// OpenAPI is the document served at GET /api/openapi.json.
	OpenAPI []byte
	// Version is the build's, shown by the health check.
	Version string
	// Sessions signs and verifies session tokens.
	Sessions account.SessionCodec
	Log      *slog.Logger
	// Now is the clock (nil: the system's); a test's clock also drives the
	// rate-limit buckets.
	Now func() time.Time
	// PasswordIterations is PBKDF2's cost (0: credential.DefaultIterations).
	PasswordIterations int
	// NotifyRootCAs replaces the roots notification receivers are checked
	// against (tests: their local receivers' certificates).
	NotifyRootCAs *x509.CertPool
}

// App is Garrison without its listeners.
type App struct {
	Store      *store.Store
	Accounts   *account.Accounts
	KeyUse     *account.KeyUse
	Mailer     *mail.Mailer
	Runner     *agents.Runner
	Intel      *intel.Service
	Compliance *compliance.Engine
	Fleet      *fleet.Service
	Dispatch   *dispatch.Dispatcher
	Watchdog   *watchdog.Watchdog
	Limits     *handlers.RateLimits
	Metrics    *metrics.Registry
	API        *handlers.API
	Handler    http.Handler

	settings Settings
	version  string
	log      *slog.Logger
	now      func() time.Time
}

// New builds the app over the data directory's database, creating both
// when needed. It starts no goroutine: Start does.
func New(ctx context.Context, s Settings, o Options) (*App, error) {
	var limiterClock func() time.Time // nil: the limiter's own monotonic clock
	if o.Now == nil {
		o.Now = time.Now
	} else {
		limiterClock = o.Now
	}
	if o.PasswordIterations == 0 {
		o.PasswordIterations = credential.DefaultIterations
	}
	st, err := openServed(ctx, s, o)
	if err != nil {
		return nil, err
	}
	a, err := build(st, s, o, limiterClock)
	if err != nil {
		st.Close()
		return nil, err
	}
	return a, nil
}

func build(st *store.Store, s Settings, o Options, limiterClock func() time.Time) (*App, error) {
	blocked, err := blocklist.Load(s.DataDir)
	if err != nil {
		return nil, err
	}
	pages, err := console.New()
	if err != nil {
		return nil, err
	}
	a := &App{Store: st, settings: s, log: o.Log, now: o.Now, Metrics: metrics.New(), version: o.Version}
	if s.Node != "" {
		a.Metrics.ConstLabel("node", s.Node)
	}
	lc := handlers.LimitsConfig{Limits: s.Limits, Trusted: s.TrustedProxies, Now: limiterClock}
	if st.Engine() == "postgres" {
		lc.Shared = st // a cluster's nodes share the sign-in buckets
	}
	a.Limits = handlers.NewRateLimits(lc)
	a.KeyUse = account.NewKeyUse(account.KeyUseConfig{Store: st, Log: o.Log})
	a.Mailer = mail.New(mail.Config{Store: st, Log: o.Log, Now: o.Now, BaseURL: s.BaseURL, SMTPAddr: s.SMTPAddr, From: s.SMTPFrom,
		Username: s.SMTPUsername, Password: s.SMTPPassword, CACert: s.SelfSignedCert, Observe: func(outcome string) {
			a.Metrics.Add(mailDeliveriesName, mailDeliveriesHelp, 1, "outcome", outcome)
		}})
	model := llm.New(llm.Config{URL: s.LLMURL, Model: s.LLMModel, APIKey: s.LLMAPIKey, Timeout: s.LLMTimeout})
	a.Compliance = compliance.New(compliance.Config{Store: st, Now: o.Now,
		Settings: compliance.ServerSettings(s.SessionTTL, o.PasswordIterations, blocked, s.Retention)})
	a.Intel = intel.New(intel.Config{Store: st, Now: o.Now, TempDir: s.DataDir, NotifyAgent: agents.IntelNotifier,
		Queued: func() { a.Runner.Notify() }, ImportOrgs: s.IntelImportOrgs, NotOperator: demo.Addresses})
	a.Runner = agents.NewRunner(agents.Config{Store: st, Log: o.Log, Now: o.Now, Workers: s.AgentWorkers,
		Timeout: s.AgentTimeout, LLM: model, Compliance: a.Compliance, CVEs: agents.IntelCVEs(a.Intel), Mailer: a.Mailer,
		Observe: func(agent, status string) {
			a.Metrics.Add(agentRunsName, agentRunsHelp, 1, "agent", agent, "status", status)
		}})
	a.Accounts = account.New(account.Config{Store: st, Passwords: credential.NewHasher(o.PasswordIterations),
		Sessions: o.Sessions, KeyUse: a.KeyUse, Mailer: a.Mailer, Now: o.Now, Log: o.Log,
		DefaultPlan: s.DefaultPlan, Registration: s.Registration})
	board := dashboard.New(dashboard.Config{Store: st, Now: o.Now, Blocklist: blocked, Model: model, Log: o.Log})
	a.Fleet = fleet.New(fleet.Config{Store: st, Accounts: a.Accounts, Board: board, Now: o.Now, Log: o.Log})
	roots := o.NotifyRootCAs
	if roots == nil && s.NotifyCAFile != "" {
		if roots, err = notifyRoots(s.NotifyCAFile); err != nil {
			return nil, err
		}
	}
	a.Dispatch = dispatch.New(dispatch.Config{Store: st, Mailer: a.Mailer, Log: o.Log, Now: o.Now, BaseURL: s.BaseURL,
		Sender: contact.NewSender(contact.SenderOptions{RootCAs: roots, AllowLoopback: s.NotifyAllowLoopback}),
		Observe: func(kind, outcome string) {
			a.Metrics.Add(notifyDeliveriesName, notifyDeliveriesHelp, 1, "channel", kind, "outcome", outcome)
		}})
	st.OnAlertSignals(a.Dispatch.Notify)
	a.Watchdog = watchdog.New(watchdog.Config{Store: st, Mailer: a.Mailer, Log: o.Log, Now: o.Now, Silence: s.SilenceAfter,
		Queued: a.Mailer.Notify})
	a.registerGauges()
	rules := detection.NewService(st, o.Now)
	a.API = handlers.New(handlers.Deps{
		Console:    pages,
		Store:      st,
		Log:        o.Log,
		Now:        o.Now,
		Accounts:   a.Accounts,
		Limits:     a.Limits,
		Blocklist:  blocked,
		OpenAPI:    o.OpenAPI,
		Agents:     a.Runner,
		Compliance: a.Compliance,
		Intel:      a.Intel,
		Version:    o.Version,
		Node:       s.Node,
		Metrics:    a.Metrics,
		Dashboard:  board,
		Fleet:      a.Fleet,
		Dispatch:   a.Dispatch,
		Detection:  rules,
		Ingest: ingest.New(ingest.Config{Store: st, Now: o.Now, Blocklist: blocked, Mailer: a.Mailer, Log: o.Log,
			Retention: s.Retention, Detection: rules}),
		IngestInflight: s.IngestInflight,
	})
	a.Handler = a.API.Handler()
	return a, nil
}

// Now is the app's clock.
func (a *App) Now() time.Time { return a.now() }

// Close closes the store; the loops must have stopped.
func (a *App) Close() error { return a.Store.Close() }

// MigrationWait is how often a node started before garrison migrate ran
// looks at the database's schema again.
const MigrationWait = 5 * time.Second

// openServed opens the server's store. A cluster's database is migrated by
// garrison migrate, once, not by its nodes: a node refuses a schema newer
// than its release's (an older release must not write to it) and waits
// for one older (a rolling upgrade starts the new nodes, then migrates).
func openServed(ctx context.Context, s Settings, o Options) (*store.Store, error) {
	c := store.Config{Database: s.Database, Node: s.Node, Now: o.Now, DefaultQuota: diskShare(s.DataDir, s.StorageShare),
		DiskReserve: true, NoMigrate: store.IsPostgres(s.Database)}
	for {
		st, err := OpenStore(ctx, s.DataDir, o.Schema, c)
		if !errors.Is(err, store.ErrSchemaOlder) {
			return st, err
		}
		o.Log.Warn("waiting for the database to be migrated: run garrison migrate --database … once for the cluster", "err", err)
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(MigrationWait):
		}
	}
}

// OpenStore opens the data directory's database, creating both when
// needed, readable by the owner only.
// c's Now, DefaultQuota and DiskReserve apply; its Path and Schema are
// these.
func OpenStore(ctx context.Context, dataDir, schema string, c store.Config) (*store.Store, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	dbPath := filepath.Join(dataDir, "garrison.db")
	c.Path, c.Schema = dbPath, schema
	s, err := store.Open(ctx, c)
	if store.IsPostgres(c.Database) {
		if err != nil {
			return nil, fmt.Errorf("open the PostgreSQL database: %w", err)
		}
		return s, nil
	}
	if store.IsUnavailable(err) {
		return nil, fmt.Errorf("cannot open the database in %s: its disk is full or another process holds it locked; "+
			"free space (or stop the other process) and start again: %w", dataDir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	// SQLite creates its files as the umask allows: the database, its WAL
	// and shared memory hold every tenant's data, for the owner only.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Chmod(dbPath+suffix, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.Close()
			return nil, fmt.Errorf("restrict %s: %w", dbPath+suffix, err)
		}
	}
	return s, nil
}

// notifyRoots are the system's roots with the CAs of the PEM file added.
func notifyRoots(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--notify-ca-file: %w", err)
	}
	roots, err := x509.SystemCertPool()
	if err != nil {
		roots = x509.NewCertPool()
	}
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--notify-ca-file: %s holds no PEM certificate", file)
	}
	return roots, nil
}
