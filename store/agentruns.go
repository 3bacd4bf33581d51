package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"garrison/actor"
)

// Agent run statuses: queued → running → completed | failed | cancelled.
const (
	RunQueued    = "queued"
	RunRunning   = "running"
	RunCompleted = "completed"
	RunFailed    = "failed"
	RunCancelled = "cancelled"
)

// MaxRecoveries is how often a run that a crash left running is queued
// again before it is failed.
const MaxRecoveries = 1

// AgentRun is one execution of an agent.
type AgentRun struct {
	ID            string
	OrgID         string
	Agent         string
	Status        string
	Params        json.RawMessage
	RequestedBy   string
	Recoveries    int
	QueuedAt      time.Time
	StartedAt     *time.Time
	FinishedAt    *time.Time
	DurationMS    *int64
	Output        json.RawMessage // nil until the run ends well
	OutputSummary string
	Error         string
	// Claim is the token of the claim that moved the run to running: its
	// worker renews the lease, finishes or requeues the run with it, and
	// is refused once another node took the run over (leases.go).
	Claim string
}

const runColumns = `id, org_id, agent, status, params, requested_by, recoveries, queued_at, started_at, finished_at,
	duration_ms, output, output_summary, error`

func scanRun(row interface{ Scan(...any) error }) (AgentRun, error) {
	var r AgentRun
	var params string
	var output sql.NullString
	var queued int64
	var started, finished, duration sql.NullInt64
	err := row.Scan(&r.ID, &r.OrgID, &r.Agent, &r.Status, &params, &r.RequestedBy, &r.Recoveries, &queued, &started,
		&finished, &duration, &output, &r.OutputSummary, &r.Error)
	if errors.Is(err, sql.ErrNoRows) {
		return AgentRun{}, ErrNotFound
	}
	if err != nil {
		return AgentRun{}, err
	}
	r.Params, r.QueuedAt, r.StartedAt, r.FinishedAt = json.RawMessage(params), fromMS(queued), optMS(started), optMS(finished)
	if duration.Valid {
		r.DurationMS = &duration.Int64
	}
	if output.Valid {
		r.Output = json.RawMessage(output.String)
	}
	return r, nil
}

// NewRun is a run to queue.
type NewRun struct {
	OrgID       string
	Agent       string
	Params      json.RawMessage // a JSON object
	RequestedBy string
	Audit       *NewAudit // a compliance audit the run carries out
}

// QueueRun stores a queued run and returns it; it is durable when this returns.
func (s *Store) QueueRun(ctx context.Context, n NewRun) (AgentRun, error) {
	var run AgentRun
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		run, err = queueRun(ctx, tx, n, s.now())
		return err
	})
	return run, err
}

// queueRun inserts a run in tx, so other writes can commit with it.
func queueRun(ctx context.Context, tx *sql.Tx, n NewRun, now time.Time) (AgentRun, error) {
	r := AgentRun{ID: NewID("run", now), OrgID: n.OrgID, Agent: n.Agent, Status: RunQueued, Params: n.Params,
		RequestedBy: n.RequestedBy, QueuedAt: now.Truncate(time.Millisecond)}
	if _, err := tx.ExecContext(ctx, `INSERT INTO agent_runs (id, org_id, agent, status, params, requested_by, queued_at)
		VALUES (?, ?, ?, 'queued', ?, ?, ?)`, r.ID, r.OrgID, r.Agent, string(r.Params), r.RequestedBy, ms(now)); err != nil {
		return AgentRun{}, fmt.Errorf("queue run: %w", err)
	}
	if n.Audit != nil {
		if err := insertAudit(ctx, tx, r, *n.Audit, now); err != nil {
			return AgentRun{}, err
		}
	}
	return r, nil
}

// QueueDepth counts the runs waiting, across all organizations: they share
// the workers.
func (s *Store) QueueDepth(ctx context.Context) (int, error) {
	var n int
	err := s.reads().QueryRowContext(ctx, `SELECT COUNT(*) FROM agent_runs WHERE status = 'queued'`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("queue depth: %w", err)
	}
	return n, nil
}

// RecentDurations returns the durations of the agent's last n completed
// runs, newest first.
func (s *Store) RecentDurations(ctx context.Context, agent string, n int) ([]time.Duration, error) {
	rows, err := s.reads().QueryContext(ctx, `SELECT duration_ms FROM agent_runs INDEXED BY agent_runs_durations
		WHERE agent = ? AND status = 'completed' ORDER BY finished_at DESC LIMIT ?`, agent, n)
	if err != nil {
		return nil, fmt.Errorf("recent durations: %w", err)
	}
	defer rows.Close()
	var out []time.Duration
	for rows.Next() {
		var d int64
		if err := rows.Scan(&d); err != nil {
			return nil, fmt.Errorf("recent durations: %w", err)
		}
		out = append(out, time.Duration(d)*time.Millisecond)
	}
	return out, rows.Err()
}

// Organizations take turns at the workers: a free worker takes the oldest
// queued run of the organization served longest ago (one never served
// first), and serving one makes it the last in line. agent_turns holds
// each organization's last turn, from a counter that only grows.
//
// nextRun is the claim's pick: among each organization's oldest queued
// run, the one whose organization has the lowest turn, then the oldest.
// It reads one index entry per queued run and one turn per organization.
const nextRun = `SELECT q.seq FROM (
		SELECT org_id, MIN(seq) AS seq FROM agent_runs INDEXED BY agent_runs_queued_org
		WHERE status = 'queued' GROUP BY org_id) AS q
	LEFT JOIN agent_turns AS t ON t.org_id = q.org_id
	ORDER BY COALESCE(t.turn, 0), q.seq LIMIT 1`

// queueOrder ranks every queued run in the order the claims take them, if
// none is queued meanwhile: an organization's k-th queued run is in round
// k, and within a round organizations go by turn, then by their oldest
// queued run (head), as the claims compare them.
// Taking a run moves its organization to the end of the next round, which
// is where its next run already ranks.
const queueOrder = `WITH queued AS (
		SELECT seq, org_id, ROW_NUMBER() OVER (PARTITION BY org_id ORDER BY seq) AS round,
			MIN(seq) OVER (PARTITION BY org_id) AS head
		FROM agent_runs INDEXED BY agent_runs_queued_org WHERE status = 'queued'),
	turns AS (
		SELECT q.seq, q.round, COALESCE(t.turn, 0) AS turn, q.head FROM queued AS q
		LEFT JOIN agent_turns AS t ON t.org_id = q.org_id)`

// RunsAhead counts the queued runs the workers will take before run id, if
// no other is queued meanwhile; 0 when it is no longer queued.
func (s *Store) RunsAhead(ctx context.Context, id string) (int, error) {
	var n int
	err := s.reads().QueryRowContext(ctx, queueOrder+` SELECT COUNT(*) FROM turns, turns AS mine
		WHERE mine.seq = (SELECT seq FROM agent_runs WHERE id = ?)
		AND (turns.round, turns.turn, turns.head) < (mine.round, mine.turn, mine.head)`, id).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("runs ahead: %w", err)
	}
	return n, nil
}

// ClaimRun moves the next queued run to running and returns it;
// ErrNotFound when none waits. Organizations take turns (see nextRun):
// the workers are shared, and an organization with a long queue must not
// make the others wait behind all of it.
func (s *Store) ClaimRun(ctx context.Context) (AgentRun, error) {
	// Idle workers look through a reader first: no write lock for nothing.
	var waiting bool
	if err := s.reads().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM agent_runs WHERE status = 'queued')`).Scan(&waiting); err != nil {
		return AgentRun{}, fmt.Errorf("look for queued runs: %w", err)
	}
	if !waiting {
		return AgentRun{}, ErrNotFound
	}
	var run AgentRun
	claim := newClaim()
	next := nextRun
	if s.pg {
		// Writes hold the cluster's write lock, so claims never meet; the
		// row lock keeps a claim exclusive all the same.
		next = `SELECT r.seq FROM agent_runs AS r WHERE r.seq = (` + nextRun + `) FOR UPDATE SKIP LOCKED`
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.now() // the lease runs from the claim, not from before the write lock's wait
		var err error
		run, err = scanRun(tx.QueryRowContext(ctx, `UPDATE agent_runs SET status = 'running', started_at = ?, claim = ?, lease_until = ?
			WHERE seq = (`+next+`) RETURNING `+runColumns,
			ms(now), claim, ms(now.Add(RunLease))))
		if err != nil {
			if !errors.Is(err, ErrNotFound) {
				err = fmt.Errorf("claim run: %w", err)
			}
			return err
		}
		return takeTurn(ctx, tx, run.OrgID)
	})
	run.Claim = claim
	return run, err
}

// takeTurn makes the organization the most recently served.
func takeTurn(ctx context.Context, tx *sql.Tx, orgID string) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO agent_turns (org_id, turn)
		VALUES (?, (SELECT COALESCE(MAX(turn), 0) + 1 FROM agent_turns))
		ON CONFLICT (org_id) DO UPDATE SET turn = excluded.turn`, orgID); err != nil {
		return fmt.Errorf("the organization's turn: %w", err)
	}
	return nil
}

// ClaimRunByID moves one queued run to running (a command that carries out
// a run itself); ErrNotFound when it is not queued.
func (s *Store) ClaimRunByID(ctx context.Context, id string) (AgentRun, error) {
	var run AgentRun
	claim := newClaim()
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.now()
		var err error
		run, err = scanRun(tx.QueryRowContext(ctx, `UPDATE agent_runs SET status = 'running', started_at = ?, claim = ?, lease_until = ?
			WHERE id = ? AND status = 'queued' RETURNING `+runColumns, ms(now), claim, ms(now.Add(RunLease)), id))
		if err != nil {
			return err
		}
		return takeTurn(ctx, tx, run.OrgID)
	})
	run.Claim = claim
	return run, err
}

// RunResult is how a run ended.
type RunResult struct {
	Status   string // completed or failed
	Output   json.RawMessage
	Summary  string
	Error    string
	Duration time.Duration
}

// FinishRun records the end of a running run under its claim. It reports
// false when the run was no longer running under that claim (cancelled
// meanwhile, or taken over by another node once its lease lapsed): the
// result is dropped. A failed triage run sends its ticket to the human
// queue.
func (s *Store) FinishRun(ctx context.Context, id, claim string, res RunResult) (bool, error) {
	var output any
	if res.Output != nil {
		output = string(res.Output)
	}
	var n int64
	now := ms(s.now())
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE agent_runs SET status = ?, finished_at = ?, duration_ms = ?, output = ?,
			output_summary = ?, error = ?, lease_until = NULL WHERE id = ? AND status = 'running' AND claim = ?`,
			res.Status, now, res.Duration.Milliseconds(), output, res.Summary, res.Error, id, claim)
		if err != nil {
			return fmt.Errorf("finish run: %w", err)
		}
		if n, err = r.RowsAffected(); err != nil || n == 0 || res.Status != RunFailed {
			return err
		}
		return escalateUntriaged(ctx, tx, []string{id}, now)
	})
	return n == 1, err
}

// RequeueRun puts a running run back in the queue, after a shutdown
// interrupted it: the run was accepted, so it must still happen, and it
// goes first (see giveBackTurns). A run no longer held under claim is left
// to whoever holds it.
func (s *Store) RequeueRun(ctx context.Context, id, claim string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE agent_runs SET status = 'queued', started_at = NULL, claim = NULL, lease_until = NULL
			WHERE id = ? AND status = 'running' AND claim = ? RETURNING org_id`, id, claim)
		if err != nil {
			return fmt.Errorf("requeue run: %w", err)
		}
		_, err = giveBackTurns(ctx, tx, rows)
		return err
	})
}

// giveBackTurns forgets the turns of the organizations whose runs rows
// (org_id) put back in the queue, and counts those runs: an interrupted run
// was at the head of the line, and an organization without a turn goes
// first, its oldest run (the interrupted one) before any other of its own.
func giveBackTurns(ctx context.Context, tx *sql.Tx, rows *sql.Rows) (int, error) {
	var orgs []string
	for rows.Next() {
		var org string
		if err := rows.Scan(&org); err != nil {
			rows.Close()
			return 0, fmt.Errorf("requeue runs: %w", err)
		}
		orgs = append(orgs, org)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, fmt.Errorf("requeue runs: %w", err)
	}
	for _, org := range orgs {
		if _, err := tx.ExecContext(ctx, `DELETE FROM agent_turns WHERE org_id = ?`, org); err != nil {
			return 0, fmt.Errorf("requeue runs: the organization's turn: %w", err)
		}
	}
	return len(orgs), nil
}

// RecoverRuns handles the runs a crash left running, as a server starts:
// on SQLite every running run (its one process is starting), on
// PostgreSQL those whose lease lapsed (another node may be running the
// rest). Each is queued again once, and failed with reason if it was
// already recovered before. It returns how many were requeued and failed.
func (s *Store) RecoverRuns(ctx context.Context, reason string) (requeued, failed int, err error) {
	if s.pg {
		return s.RecoverLapsedRuns(ctx, reason)
	}
	return s.recoverRuns(ctx, reason, "")
}

// RecoverLapsedRuns is RecoverRuns for the runs whose lease lapsed: their
// node died or lost the database, and another takes them over.
func (s *Store) RecoverLapsedRuns(ctx context.Context, reason string) (requeued, failed int, err error) {
	var lapsed bool
	if err := s.reads().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM agent_runs WHERE status = 'running' AND COALESCE(lease_until, 0) < ?)`,
		ms(s.now())).Scan(&lapsed); err != nil || !lapsed {
		return 0, 0, err
	}
	return s.recoverRuns(ctx, reason, fmt.Sprintf(" AND COALESCE(lease_until, 0) < %d", ms(s.now())))
}

// recoverRuns recovers the running runs that also match and (SQL).
func (s *Store) recoverRuns(ctx context.Context, reason, and string) (requeued, failed int, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		now := ms(s.now())
		rows, err := tx.QueryContext(ctx, `UPDATE agent_runs SET status = 'failed', finished_at = ?, error = ?, lease_until = NULL
			WHERE status = 'running'`+and+` AND recoveries >= ? RETURNING id`, now, reason, MaxRecoveries)
		if err != nil {
			return fmt.Errorf("fail interrupted runs: %w", err)
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("fail interrupted runs: %w", err)
			}
			ids = append(ids, id)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return fmt.Errorf("fail interrupted runs: %w", err)
		}
		failed = len(ids)
		if err := escalateUntriaged(ctx, tx, ids, now); err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, `UPDATE agent_runs SET status = 'queued', started_at = NULL, recoveries = recoveries + 1,
			claim = NULL, lease_until = NULL WHERE status = 'running'`+and+` RETURNING org_id`)
		if err != nil {
			return fmt.Errorf("requeue interrupted runs: %w", err)
		}
		requeued, err = giveBackTurns(ctx, tx, rows)
		return err
	})
	return requeued, failed, err
}

// RunStatus returns the status of a run, for the worker that claimed it.
func (s *Store) RunStatus(ctx context.Context, id string) (string, error) {
	var status string
	err := s.reads().QueryRowContext(ctx, `SELECT status FROM agent_runs WHERE id = ?`, id).Scan(&status)
	if err != nil {
		return "", fmt.Errorf("run status: %w", err)
	}
	return status, nil
}

// RunScope selects the runs of one agent that Who sees: the
// organization's, or the ones a member started (actor.Actor.Owner; a
// triage run names a ticket the member may not see).
type RunScope struct {
	Who   actor.Actor
	Agent string
}

func (sc RunScope) where() (string, []any) {
	where, args := "org_id = ? AND agent = ?", []any{sc.Who.OrgID, sc.Agent}
	if owner := sc.Who.Owner(); owner != "" {
		where += " AND requested_by = ?"
		args = append(args, owner)
	}
	return where, args
}

// CancelRun cancels a queued or running run in scope and returns it. A run
// that already ended is ErrRunEnded, with the run. A cancelled triage run
// sends its ticket to the human queue.
func (s *Store) CancelRun(ctx context.Context, sc RunScope, id string) (AgentRun, error) {
	now := ms(s.now())
	where, args := sc.where()
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE agent_runs SET status = 'cancelled', finished_at = ?,
			duration_ms = CASE WHEN started_at IS NULL THEN NULL ELSE MAX(0, ? - started_at) END,
			error = 'cancelled on request'
			WHERE id = ? AND status IN ('queued', 'running') AND `+where, append([]any{now, now, id}, args...)...)
		if err != nil {
			return fmt.Errorf("cancel run: %w", err)
		}
		if n, err := r.RowsAffected(); err != nil || n == 0 {
			return err
		}
		return escalateUntriaged(ctx, tx, []string{id}, now)
	})
	if err != nil {
		return AgentRun{}, err
	}
	run, err := s.Run(ctx, sc, id)
	if err == nil && run.Status != RunCancelled {
		return run, ErrRunEnded
	}
	return run, err
}

// Run returns one run in scope.
func (s *Store) Run(ctx context.Context, sc RunScope, id string) (AgentRun, error) {
	where, args := sc.where()
	r, err := scanRun(s.reads().QueryRowContext(ctx, `SELECT `+runColumns+` FROM agent_runs WHERE id = ? AND `+where,
		append([]any{id}, args...)...))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return AgentRun{}, fmt.Errorf("run: %w", err)
	}
	return r, err
}

// Runs lists the runs in scope, newest first.
func (s *Store) Runs(ctx context.Context, sc RunScope, p Page) ([]AgentRun, int, error) {
	where, args := sc.where()
	return readPage(ctx, s, pageQuery{what: "runs", args: args,
		count: `SELECT COUNT(*) FROM agent_runs WHERE ` + where,
		list:  `SELECT ` + runColumns + ` FROM agent_runs WHERE ` + where + ` ORDER BY seq DESC LIMIT ? OFFSET ?`},
		p, func(rows *sql.Rows) (AgentRun, error) { return scanRun(rows) })
}

// AgentActivity is what GET /agents shows of one agent for an organization.
type AgentActivity struct {
	Queued, Running int
	LastRunAt       *time.Time // when the newest run was queued
	LastStatus      string
}

// AgentActivities returns, per agent slug, the organization's activity.
// Every query is an index lookup: the work in progress through
// agent_runs_org_status, the newest run of each agent through
// agent_runs_org_agent.
func (s *Store) AgentActivities(ctx context.Context, orgID string, agents []string) (map[string]AgentActivity, error) {
	out := map[string]AgentActivity{}
	read := s.read
	if len(agents) == 0 { // one query: no snapshot to share
		read = func(ctx context.Context, fn func(q querier) error) error { return fn(s.reads()) }
	}
	err := read(ctx, func(tx querier) error {
		rows, err := tx.QueryContext(ctx, `SELECT agent, SUM(CASE WHEN status = 'queued' THEN 1 ELSE 0 END), SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END) FROM agent_runs
			WHERE org_id = ? AND status IN ('queued', 'running') GROUP BY agent`, orgID)
		if err != nil {
			return fmt.Errorf("agent activity: %w", err)
		}
		for rows.Next() {
			var agent string
			var a AgentActivity
			if err := rows.Scan(&agent, &a.Queued, &a.Running); err != nil {
				rows.Close()
				return fmt.Errorf("agent activity: %w", err)
			}
			out[agent] = a
		}
		rows.Close()
		for _, agent := range agents {
			var at int64
			a := out[agent]
			err := tx.QueryRowContext(ctx, `SELECT queued_at, status FROM agent_runs WHERE org_id = ? AND agent = ?
				ORDER BY seq DESC LIMIT 1`, orgID, agent).Scan(&at, &a.LastStatus)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return fmt.Errorf("agent last run: %w", err)
			}
			t := fromMS(at)
			a.LastRunAt = &t
			out[agent] = a
		}
		return nil
	})
	return out, err
}

// AgentsRun counts the distinct agents the organization has ever run,
// leaving one out.
func (s *Store) AgentsRun(ctx context.Context, orgID, except string) (int, error) {
	var n int
	if err := s.reads().QueryRowContext(ctx, `SELECT COUNT(DISTINCT agent) FROM agent_runs WHERE org_id = ? AND agent != ?`,
		orgID, except).Scan(&n); err != nil {
		return 0, fmt.Errorf("agents run: %w", err)
	}
	return n, nil
}
