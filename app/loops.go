package app

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"garrison/intel"
	"garrison/memory"
	"garrison/store"
)

// Loop is one kind of the app's background work.
type Loop uint8

const (
	// Maintenance: the store's fold, WAL checkpoints and health probe.
	Maintenance Loop = iota + 1
	// Mail: reset requests into mail, and the outbox's delivery.
	Mail
	// KeyUses: API keys' last use written down.
	KeyUses
	// Agents: the worker pool taking queued runs.
	Agents
	// Retention: old events, DNS telemetry and audit entries deleted.
	Retention
	// IntelSync: the intelligence mirror fetched (only with sync URLs).
	IntelSync
	// Trim: an idle process's memory given back.
	Trim
	// Buckets: refilled rate-limit buckets dropped.
	Buckets
	// Purge: expired tokens and denylist entries, and interrupted
	// intelligence imports closed.
	Purge
	// Fleet: clients' scores the fleet view found old, refreshed.
	Fleet
	// Notify: alert notifications routed, escalated and delivered.
	Notify
	// Watch: silent sources and expiring keys noticed.
	Watch
	// Findings: assets and CVEs changed matched again, expired risk
	// acceptances reopened.
	Findings
)

// allLoops is what a server runs.
var allLoops = []Loop{Maintenance, Mail, KeyUses, Agents, Retention, IntelSync, Trim, Buckets, Purge, Fleet, Notify, Watch, Findings}

// matchInterval is how often the matcher looks at its queue without being
// woken (what a crash left, risk acceptances expiring).
const matchInterval = time.Minute

// maintenanceInterval is how often expired denylist entries and tokens go,
// and an intelligence import whose process ended is closed.
const maintenanceInterval = 10 * time.Minute

// trimInterval is how often the heap is looked at for memory an idle
// process can give back.
const trimInterval = 5 * time.Second

// limiterSweepInterval is how often fully refilled rate-limit buckets are dropped.
const limiterSweepInterval = time.Minute

// Start runs the loops (every one when none is named) until ctx is done;
// the returned wait blocks until they have all stopped. Tests run the few
// they need.
func (a *App) Start(ctx context.Context, loops ...Loop) (wait func()) {
	if len(loops) == 0 {
		loops = allLoops
	}
	var wg sync.WaitGroup
	run := func(l Loop, f func()) {
		if slices.Contains(loops, l) {
			wg.Go(f)
		}
	}
	// Work done for the whole database runs on one node of a cluster at a
	// time (store.Lead); on SQLite, here.
	lead := func(l Loop, task string, f func(ctx context.Context)) {
		run(l, func() { a.Store.Lead(ctx, task, a.log, f) })
	}
	run(Maintenance, func() { a.Store.Maintain(ctx, a.log) })
	lead(Mail, "mail", a.Mailer.Run)
	run(KeyUses, func() { a.KeyUse.Run(ctx) })
	run(Agents, func() { a.Runner.Run(ctx) })
	run(Fleet, func() { a.Fleet.Run(ctx) }) // each node refreshes the scores its own reads found old
	lead(Notify, "notify", a.Dispatch.Run)
	lead(Watch, "watch", a.Watchdog.Run)
	lead(Findings, "findings", func(ctx context.Context) { a.Intel.RunMatcher(ctx, matchInterval, a.log) })
	lead(Retention, "retention", func(ctx context.Context) {
		a.Store.Retain(ctx, store.Retention{Events: a.settings.Retention, Audit: a.settings.AuditRetention}, a.log)
	})
	if len(a.settings.IntelSyncURLs) > 0 {
		sync := &intel.Syncer{Service: a.Intel, URLs: a.settings.IntelSyncURLs, Interval: a.settings.IntelSyncEvery, Log: a.log,
			Client: &http.Client{Timeout: 30 * time.Minute}}
		lead(IntelSync, "intel-sync", sync.Run)
	}
	run(Trim, func() { memory.NewTrimmer(a.Store.ReleaseMemory).Run(ctx, trimInterval) })
	for _, l := range a.Limits.Limiters() {
		run(Buckets, func() { l.Run(ctx, limiterSweepInterval) })
	}
	lead(Purge, "purge", a.purge)
	return wg.Wait
}

// purge drops expired tokens and denylist entries and closes intelligence
// imports whose process ended, every maintenanceInterval.
func (a *App) purge(ctx context.Context) {
	t := time.NewTicker(maintenanceInterval)
	defer t.Stop()
	for {
		if err := a.Store.PurgeExpired(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("purge expired tokens", "err", err)
		}
		if err := a.Intel.RecoverStale(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("recover an interrupted intelligence import", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
