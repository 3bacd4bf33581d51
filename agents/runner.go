package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"sync"
	"time"

	"garrison/compliance"
	"garrison/llm"
	"garrison/mail"
	"garrison/store"
)

// Config configures the runtime.
type Config struct {
	Store   *store.Store
	Log     *slog.Logger
	Now     func() time.Time
	Workers int           // goroutines running agents; at least 1
	Timeout time.Duration // longest one run may take
	LLM     *llm.Client   // nil: deterministic summaries only
	CVEs    CVEIntel      // nil: the researcher has no CVE data
	// Compliance is the compliance engine the compliance agent audits with.
	Compliance *compliance.Engine
	// Mailer writes the mails agents send (the intelligence digests).
	Mailer *mail.Mailer
	// Observe, when set, hears how each run ended (agent, status).
	Observe func(agent, status string)
	// Poll is how often idle workers look for runs a missed wake-up left
	// queued; Notify makes them look at once.
	Poll time.Duration
}

// Runner takes queued runs from the store and runs them.
type Runner struct {
	cfg     Config
	env     *Env
	wake    chan struct{}
	mu      sync.Mutex
	cancels map[string]context.CancelCauseFunc
}

var (
	errCancelled = errors.New("cancelled on request")
	errTimedOut  = errors.New("run timed out")
)

// Failure is an error an analyzer reports to the caller as is: the run's
// input cannot be acted on (a ticket that no longer exists, ...).
type Failure struct{ Message string }

func (f *Failure) Error() string { return f.Message }

// defaultDuration is the estimate for an agent that has never completed.
const defaultDuration = 2 * time.Second

// recentRuns is how many completed runs the estimate averages.
const recentRuns = 20

// interruptedTwice is the error of a run a crash interrupted twice.
const interruptedTwice = "The server stopped twice while this run was running; it was not retried again."

// NewRunner makes a runtime; Run starts it.
func NewRunner(cfg Config) *Runner {
	cfg.Workers = max(1, cfg.Workers)
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Minute
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &Runner{cfg: cfg, env: &Env{Store: cfg.Store, Now: cfg.Now, CVEs: cfg.CVEs, Compliance: cfg.Compliance, Mailer: cfg.Mailer,
		LLM: cfg.LLM},
		wake: make(chan struct{}, 1), cancels: map[string]context.CancelCauseFunc{}}
	cfg.Store.OnChange(store.TopicAgentRuns, r.wakeUp)
	return r
}

// Run recovers the runs a crash left running, then runs queued runs until
// ctx is done. Runs interrupted by the shutdown go back to the queue.
func (r *Runner) Run(ctx context.Context) {
	// Workers only take queued runs: until recovery succeeds, runs a crash
	// left running would stay so, so it is retried before anything starts.
	for {
		requeued, failed, err := r.cfg.Store.RecoverRuns(ctx, interruptedTwice)
		if err == nil {
			if requeued+failed > 0 {
				r.cfg.Log.Warn("recovered agent runs left running by a crash", "requeued", requeued, "failed", failed)
			}
			break
		}
		if ctx.Err() != nil {
			return // shutting down before recovery ran: the next start does it
		}
		r.cfg.Log.Error("recover agent runs; retrying", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.cfg.Poll):
		}
	}
	var wg sync.WaitGroup
	for range r.cfg.Workers {
		wg.Go(func() { r.work(ctx) })
	}
	wg.Go(func() { r.recoverLapsed(ctx) })
	wg.Wait()
}

// Notify tells the workers of every node a run was queued.
func (r *Runner) Notify() { r.cfg.Store.Announce(store.TopicAgentRuns) }

func (r *Runner) wakeUp() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Cancel stops a run this runtime is running; the store already says
// cancelled, so its result will be dropped.
func (r *Runner) Cancel(runID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cancel, ok := r.cancels[runID]; ok {
		cancel(errCancelled)
	}
}

// Estimate is how many seconds a queued run will take to finish: the mean
// of its agent's recent durations, times the rounds of the worker pool the
// runs ahead of it need, plus its own.
func (r *Runner) Estimate(ctx context.Context, run store.AgentRun) (int, error) {
	ahead, err := r.cfg.Store.RunsAhead(ctx, run.ID)
	if err != nil {
		return 0, err
	}
	recent, err := r.cfg.Store.RecentDurations(ctx, run.Agent, recentRuns)
	if err != nil {
		return 0, err
	}
	mean := defaultDuration
	if len(recent) > 0 {
		var sum time.Duration
		for _, d := range recent {
			sum += d
		}
		mean = sum / time.Duration(len(recent))
	}
	rounds := 1 + float64(ahead)/float64(r.cfg.Workers)
	return max(1, int(math.Ceil(rounds*mean.Seconds()))), nil
}

func (r *Runner) work(ctx context.Context) {
	poll := time.NewTicker(r.cfg.Poll)
	defer poll.Stop()
	for {
		run, err := r.cfg.Store.ClaimRun(ctx)
		if err == nil {
			r.wakeUp() // another run may wait for another worker
			r.execute(ctx, run)
			continue
		}
		if !errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
			r.cfg.Log.Error("claim agent run", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		case <-poll.C:
		}
	}
}

// RunNow carries out one queued run in the calling goroutine, for a command
// (the demo) that needs it done before it returns. A run a server's worker
// (on any node) took first is waited for instead.
func (r *Runner) RunNow(ctx context.Context, runID string) error {
	run, err := r.cfg.Store.ClaimRunByID(ctx, runID)
	if errors.Is(err, store.ErrNotFound) {
		return r.waitEnded(ctx, runID)
	}
	if err != nil {
		return err
	}
	r.execute(ctx, run)
	return nil
}

// waitEnded waits until the run is no longer queued or running.
func (r *Runner) waitEnded(ctx context.Context, runID string) error {
	for {
		status, err := r.cfg.Store.RunStatus(ctx, runID)
		if err != nil {
			return err
		}
		if status != store.RunQueued && status != store.RunRunning {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (r *Runner) execute(ctx context.Context, run store.AgentRun) {
	runCtx, cancel := context.WithCancelCause(ctx)
	runCtx, stop := context.WithTimeoutCause(runCtx, r.cfg.Timeout, errTimedOut)
	r.mu.Lock()
	r.cancels[run.ID] = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.cancels, run.ID)
		r.mu.Unlock()
		stop()
		cancel(nil)
	}()
	// The run's store reads and writes outlive a shutdown: its outcome must
	// be recorded, and a run claimed just before the stop goes back to the
	// queue below rather than staying running for the next start to count
	// as a crash.
	bg := context.WithoutCancel(ctx)
	// A cancel between the claim and the registration above found nothing
	// to stop; the store knows of it.
	if status, err := r.cfg.Store.RunStatus(bg, run.ID); err != nil || status != store.RunRunning {
		return
	}
	leaseCtx, stopLease := context.WithCancel(bg)
	defer stopLease()
	go r.keepLease(leaseCtx, run, cancel)

	start := time.Now()
	report, err := r.analyze(runCtx, run)
	res := store.RunResult{Status: store.RunCompleted, Duration: time.Since(start)}
	var failure *Failure
	switch {
	case err == nil:
		res.Output, err = json.Marshal(report.Output)
		if err != nil {
			res.Status, res.Error, res.Output = store.RunFailed, "The agent's output could not be stored.", nil
			r.cfg.Log.Error("encode agent output", "run", run.ID, "err", err)
		}
		res.Summary = report.Summary
	case ctx.Err() != nil:
		// Shutdown: the run was accepted, so it goes back to the queue.
		if err := r.cfg.Store.RequeueRun(bg, run.ID, run.Claim); err != nil {
			r.cfg.Log.Error("requeue agent run", "run", run.ID, "err", err)
		}
		return
	case errors.Is(err, store.ErrUnavailable):
		// Its effects could not be written (a full disk): the run was
		// accepted, so it waits in the queue, not failed.
		r.retryWrite(ctx, "requeue agent run", run.ID, func() error { return r.cfg.Store.RequeueRun(bg, run.ID, run.Claim) })
		return
	case errors.Is(context.Cause(runCtx), errCancelled), errors.Is(context.Cause(runCtx), errLeaseLost), errors.Is(err, errLeaseLost):
		return
	case errors.Is(context.Cause(runCtx), errTimedOut):
		res.Status, res.Error = store.RunFailed, fmt.Sprintf("The run did not finish within %s and was stopped.", r.cfg.Timeout)
	case errors.As(err, &failure):
		res.Status, res.Error = store.RunFailed, failure.Message
	default:
		res.Status, res.Error = store.RunFailed, "The agent failed with an internal error; the server log has the details."
		r.cfg.Log.Error("agent run failed", "run", run.ID, "agent", run.Agent, "err", err)
	}
	var recorded bool
	r.retryWrite(ctx, "finish agent run", run.ID, func() error {
		var err error
		recorded, err = r.cfg.Store.FinishRun(bg, run.ID, run.Claim, res)
		return err
	})
	if recorded {
		r.cfg.Log.Info("agent run finished", "run", run.ID, "agent", run.Agent, "status", res.Status)
	} else {
		r.cfg.Log.Info("agent run's result dropped: it was cancelled, or another node took the run over", "run", run.ID)
	}
	if r.cfg.Observe != nil {
		r.cfg.Observe(run.Agent, res.Status)
	}
}

// analyze runs the agent's analyzer, then lets the language model phrase
// its summary when one is configured. A panic fails the run, not the server.
func (r *Runner) analyze(ctx context.Context, run store.AgentRun) (report Report, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("agent %s panicked: %v\n%s", run.Agent, p, debug.Stack())
		}
	}()
	agent, ok := Lookup(run.Agent)
	if !ok {
		return Report{}, &Failure{"Unknown agent " + run.Agent + "."}
	}
	params := agent.NewParams()
	if err := json.Unmarshal(run.Params, params); err != nil {
		return Report{}, fmt.Errorf("decode stored params: %w", err)
	}
	report, err = agent.analyze(ctx, r.env, run, params)
	if err != nil {
		return Report{}, err
	}
	r.narrate(ctx, &report)
	// A run stopped meanwhile (shutdown, cancel, timeout) did not complete,
	// whatever the model's fallback made of it.
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	if report.Apply != nil {
		if err := r.stillHeld(ctx, run); err != nil {
			return Report{}, err
		}
		if err := report.Apply(ctx); err != nil {
			return Report{}, err
		}
	}
	return report, nil
}

// retryWrite runs write until it succeeds, retrying while the database
// cannot take writes (a full disk) with a doubling pause up to 30 s; on
// shutdown it gives up, and a run left running is queued again at start.
func (r *Runner) retryWrite(ctx context.Context, what, runID string, write func() error) {
	for delay := time.Second; ; delay = min(2*delay, 30*time.Second) {
		err := write()
		if err == nil {
			return
		}
		r.cfg.Log.Error(what, "run", runID, "err", err)
		if !errors.Is(err, store.ErrUnavailable) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
	}
}
