package agents

import (
	"context"
	"errors"
	"fmt"
	"time"

	"garrison/store"
)

// errLeaseLost stops a run whose lease this node no longer holds: another
// node took it over, or the run was cancelled, or the database was out of
// reach past the lease. Its result would be refused: it is not recorded.
var errLeaseLost = errors.New("the run's lease was lost")

// renewEvery is how often a running run's lease is renewed: three tries
// before it lapses.
const renewEvery = store.RunLease / 3

// keepLease renews run's lease until ctx ends, and stops the run (cancel)
// once the lease is lost or lapses unrenewed.
func (r *Runner) keepLease(ctx context.Context, run store.AgentRun, cancel context.CancelCauseFunc) {
	t := time.NewTicker(renewEvery)
	defer t.Stop()
	held := time.Now().Add(store.RunLease)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		asked := time.Now() // the lease runs from no earlier than this
		rctx, stop := context.WithTimeout(context.WithoutCancel(ctx), renewEvery)
		ok, err := r.cfg.Store.RenewRun(rctx, run.ID, run.Claim)
		stop()
		switch {
		case err == nil && ok:
			held = asked.Add(store.RunLease)
		case err == nil:
			cancel(errLeaseLost)
			return
		case time.Now().After(held):
			r.cfg.Log.Error("agent run's lease lapsed unrenewed; stopping it", "run", run.ID, "err", err)
			cancel(errLeaseLost)
			return
		default:
			r.cfg.Log.Warn("renew agent run's lease", "run", run.ID, "err", err)
		}
	}
}

// stillHeld renews run's lease once more, right before its effects are
// applied: a run another node took over meanwhile applies nothing.
func (r *Runner) stillHeld(ctx context.Context, run store.AgentRun) error {
	if run.Claim == "" {
		return nil
	}
	rctx, stop := context.WithTimeout(context.WithoutCancel(ctx), renewEvery)
	defer stop()
	ok, err := r.cfg.Store.RenewRun(rctx, run.ID, run.Claim)
	switch {
	case err != nil:
		return fmt.Errorf("renew the run's lease before applying it: %w", err)
	case !ok:
		return errLeaseLost
	}
	return nil
}

// recoverLapsed queues again, every renewEvery, the runs whose lease
// lapsed: their node died, and this one takes them over.
func (r *Runner) recoverLapsed(ctx context.Context) {
	t := time.NewTicker(renewEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		requeued, failed, err := r.cfg.Store.RecoverLapsedRuns(ctx, interruptedTwice)
		switch {
		case err != nil && ctx.Err() == nil:
			r.cfg.Log.Error("recover agent runs whose lease lapsed", "err", err)
		case requeued+failed > 0:
			r.cfg.Log.Warn("took over agent runs whose node stopped", "requeued", requeued, "failed", failed)
			r.wakeUp()
		}
	}
}
