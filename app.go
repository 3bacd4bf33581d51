package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"garrison/account"
	"garrison/agents"
	"garrison/blocklist"
	"garrison/compliance"
	"garrison/console"
	"garrison/credential"
	"garrison/dashboard"
	"garrison/demo"
	"garrison/handlers"
	"garrison/ingest"
	"garrison/intel"
	"garrison/llm"
	"garrison/mail"
	"garrison/memory"
	"garrison/metrics"
	"garrison/ratelimit"
	"garrison/store"
)

// appOptions are knobs only tests turn; production always uses the zero value.
type appOptions struct {
	now                func() time.Time
	passwordIterations int
}

// app is the server without its listeners: what tests drive through httptest.
type app struct {
	store   *store.Store
	api     *handlers.API
	limits  *handlers.RateLimits
	handler http.Handler
	jwt     *jwtCodec
	mailer  *mail.Mailer
	keyUse  *account.KeyUse
	runner  *agents.Runner
	intel   *intel.Service
	metrics *metrics.Registry
	cfg     config
	log     *slog.Logger
	now     func() time.Time
}

func openStore(ctx context.Context, dataDir string, now func() time.Time) (*store.Store, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	dbPath := filepath.Join(dataDir, "garrison.db")
	s, err := store.Open(ctx, dbPath, schemaSQL, store.WithClock(now))
	if store.IsUnavailable(err) {
		return nil, fmt.Errorf("cannot open the database in %s: its disk is full or another process holds it locked; "+
			"free space (or stop the other process) and start again: %w", dataDir, err)
	}
	if err == nil {
		// SQLite creates its files as the umask allows: the database, its
		// WAL and shared memory hold every tenant's data, for the owner only.
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Chmod(dbPath+suffix, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
				s.Close()
				return nil, fmt.Errorf("restrict %s: %w", dbPath+suffix, err)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	return s, nil
}

func newApp(ctx context.Context, cfg config, log *slog.Logger, opts appOptions) (*app, error) {
	var limiterOpts []ratelimit.Option
	if opts.now == nil {
		opts.now = time.Now // the limiter keeps its own monotonic clock
	} else {
		limiterOpts = append(limiterOpts, ratelimit.WithClock(opts.now))
	}
	if opts.passwordIterations == 0 {
		opts.passwordIterations = credential.DefaultIterations
	}
	st, err := openStore(ctx, cfg.dataDir, opts.now)
	if err != nil {
		return nil, err
	}
	secret, err := loadSecret(cfg.dataDir)
	var blocked *blocklist.List
	if err == nil {
		blocked, err = blocklist.Load(cfg.dataDir)
	}
	if err == nil {
		var codec *jwtCodec
		if codec, err = newJWTCodec(secret, cfg.jwtTTL, cfg.sessionMax, opts.now); err == nil {
			a := &app{store: st, jwt: codec, log: log, now: opts.now, cfg: cfg,
				limits: handlers.NewRateLimits(cfg.limits, cfg.trustedProxies, limiterOpts...)}
			a.keyUse = account.NewKeyUse(account.KeyUseConfig{Store: st, Log: log})
			a.metrics = metrics.New()
			a.mailer = mail.New(mail.Config{BaseURL: cfg.baseURL, SMTPAddr: cfg.smtpAddr, From: cfg.smtpFrom,
				Username: cfg.smtpUsername, Password: cfg.smtpPassword, Observe: func(outcome string) {
					a.metrics.Add("garrison_mail_deliveries_total", "Outbox delivery attempts, by outcome.", 1, "outcome", outcome)
				}}, st, log, opts.now)
			model := llm.New(llm.Config{URL: cfg.llmURL, Model: cfg.llmModel, APIKey: cfg.llmAPIKey, Timeout: cfg.llmTimeout}, nil)
			engine := compliance.New(compliance.Config{Store: st, Now: opts.now,
				Settings: compliance.ServerSettings(cfg.jwtTTL, opts.passwordIterations, blocked, cfg.retention)})
			var queued func()
			a.intel = intel.New(intel.Config{Store: st, Now: opts.now, TempDir: cfg.dataDir, NotifyAgent: agents.IntelNotifier,
				Queued: func() { queued() }, ImportOrgs: cfg.intelImportOrgs, NotOperator: demo.Addresses})
			a.runner = agents.NewRunner(agents.Config{Store: st, Log: log, Now: opts.now, Workers: cfg.agentWorkers,
				Timeout: cfg.agentTimeout, LLM: model, Compliance: engine, CVEs: agents.IntelCVEs(a.intel), Mailer: a.mailer,
				Observe: func(agent, status string) {
					a.metrics.Add("garrison_agent_runs_total", "Agent runs ended, by agent and status.", 1, "agent", agent, "status", status)
				}})
			a.registerGauges(a.metrics, cfg.dataDir)
			queued = a.runner.Notify
			pages, err := console.New()
			if err != nil {
				st.Close()
				return nil, err
			}
			a.api = handlers.New(handlers.Deps{
				Console: pages,
				Store:   st,
				Log:     log,
				Now:     opts.now,
				Accounts: account.New(account.Config{Store: st, Passwords: credential.NewHasher(opts.passwordIterations),
					Sessions: codec, KeyUse: a.keyUse, Mailer: a.mailer, Now: opts.now, Log: log,
					DefaultPlan: cfg.defaultPlan, Registration: cfg.registration}),
				Limits:         a.limits,
				Blocklist:      blocked,
				OpenAPI:        openAPIDocument,
				Agents:         a.runner,
				Compliance:     engine,
				Intel:          a.intel,
				Version:        buildVersion(),
				Metrics:        a.metrics,
				Dashboard:      dashboard.New(st, opts.now, blocked, model, log),
				Ingest:         ingest.New(st, opts.now, blocked),
				IngestInflight: cfg.ingestInflight,
			})
			a.handler = a.api.Handler()
			return a, nil
		}
	}
	st.Close()
	return nil, err
}

// maintenanceInterval is how often expired denylist entries and tokens go,
// and an intelligence import whose process ended is closed.
const maintenanceInterval = 10 * time.Minute

// trimInterval is how often the heap is looked at for memory an idle
// process can give back.
const trimInterval = 5 * time.Second

// limiterSweepInterval is how often fully refilled rate-limit buckets are dropped.
const limiterSweepInterval = time.Minute

// runBackground starts the app's workers; they stop when ctx is done, and
// the returned wait blocks until they have.
func (a *app) runBackground(ctx context.Context) (wait func()) {
	var wg sync.WaitGroup
	wg.Go(func() { a.store.Maintain(ctx, a.log) })
	wg.Go(func() { a.mailer.Run(ctx) })
	wg.Go(func() { a.keyUse.Run(ctx) })
	wg.Go(func() { a.runner.Run(ctx) })
	wg.Go(func() {
		a.store.Retain(ctx, store.Retention{Events: a.cfg.retention, Audit: a.cfg.auditRetention}, a.log)
	})
	if len(a.cfg.intelSyncURLs) > 0 {
		sync := &intel.Syncer{Service: a.intel, URLs: a.cfg.intelSyncURLs, Interval: a.cfg.intelSyncEvery, Log: a.log,
			Client: &http.Client{Timeout: 30 * time.Minute}}
		wg.Go(func() { sync.Run(ctx) })
	}
	wg.Go(func() { memory.NewTrimmer(a.store.ReleaseMemory).Run(ctx, trimInterval) })
	for _, l := range a.limits.Limiters() {
		wg.Go(func() { l.Run(ctx, limiterSweepInterval) })
	}
	wg.Go(func() {
		t := time.NewTicker(maintenanceInterval)
		defer t.Stop()
		for {
			if err := a.store.PurgeExpired(ctx); err != nil && ctx.Err() == nil {
				a.log.Warn("purge expired tokens", "err", err)
			}
			if err := a.intel.RecoverStale(ctx); err != nil && ctx.Err() == nil {
				a.log.Warn("recover an interrupted intelligence import", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	return wg.Wait
}

func newLogger(cfg config, w interface{ Write([]byte) (int, error) }) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(cfg.logLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.logFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
