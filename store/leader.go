package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Singleton work (the fold, retention, delivering mail and notifications,
// noticing silent sensors, matching findings, syncing intelligence) is done
// by one node at a time: the node holding the task's advisory lock, a
// session lock on the node's leader connection. When the node dies its
// session ends (PostgreSQL notices a dead peer within leaderKeepalive's
// probes), the lock goes with it, and the first node to try next
// (every leaderRetry) leads: within 15 s. A node that loses its session
// (a network split) stops the work it led at its next check, within
// leaderCheck.

const (
	// leaderRetry is how often a node tries to take a task it does not lead.
	leaderRetry = 2 * time.Second
	// leaderCheck is how often a leading node checks its session.
	leaderCheck = 2 * time.Second
	// leaderLocks is the advisory lock class of tasks ("GLDR"): a task's
	// key is the class and its name's hash.
	leaderLocks = 0x474c4452
)

// leaderKeepalive has PostgreSQL probe the leader session's peer: idle
// 5 s, then every 2 s, dead after 3 unanswered, 11 s in all.
const leaderKeepalive = `SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3`

// leaders is a node's leader session and the tasks it leads.
type leaders struct {
	mu      sync.Mutex // one statement on the session at a time
	conn    *pgx.Conn
	lost    context.Context // done when the session is dropped
	drop    context.CancelFunc
	leading int // tasks held
}

// taskKey is a task's advisory lock key.
func taskKey(task string) int64 {
	h := fnv.New32a()
	h.Write([]byte(task))
	return leaderLocks<<32 | int64(h.Sum32())
}

// Lead runs work whenever this node leads task, until ctx ends: at once
// and for good on SQLite (one process); on PostgreSQL while it holds the
// task's lock, work's context ending when the lock is lost, and taken
// again when the lock comes back.
func (s *Store) Lead(ctx context.Context, task string, log *slog.Logger, work func(ctx context.Context)) {
	if !s.pg {
		work(ctx)
		return
	}
	key := taskKey(task)
	for ctx.Err() == nil {
		lctx, release, err := s.leaders.take(ctx, s.pgURL, key)
		if err != nil {
			return // ctx ended
		}
		log.Info("this node leads a task", "task", task, "node", s.node)
		work(lctx)
		release()
		if ctx.Err() == nil {
			log.Warn("this node no longer leads a task", "task", task, "node", s.node)
		}
	}
}

// take waits until this node holds key, returning a context that ends
// when the session holding it is lost (or ctx ends) and the release of
// the lock.
func (l *leaders) take(ctx context.Context, url string, key int64) (context.Context, func(), error) {
	for {
		held, lost, err := l.try(ctx, url, key)
		if err == nil && held {
			lctx, cancel := context.WithCancel(ctx)
			stop := context.AfterFunc(lost, cancel)
			return lctx, func() {
				stop()
				cancel()
				l.release(lost, key)
			}, nil
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(leaderRetry):
		}
	}
}

// try takes key if it is free, opening the session first when needed.
func (l *leaders) try(ctx context.Context, url string, key int64) (held bool, lost context.Context, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return false, nil, fmt.Errorf("open the leader session: %w", err)
		}
		if _, err := conn.Exec(ctx, leaderKeepalive); err != nil {
			conn.Close(context.WithoutCancel(ctx))
			return false, nil, fmt.Errorf("open the leader session: %w", err)
		}
		l.conn = conn
		l.lost, l.drop = context.WithCancel(context.Background())
	}
	qctx, cancel := context.WithTimeout(ctx, leaderCheck)
	defer cancel()
	if err := l.conn.QueryRow(qctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&held); err != nil {
		l.dropLocked()
		return false, nil, fmt.Errorf("take a task's lock: %w", err)
	}
	if held {
		l.leading++
	}
	return held, l.lost, nil
}

// release gives key back, if the session that took it is still open.
func (l *leaders) release(takenOn context.Context, key int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil || l.lost != takenOn {
		return // the session, and the lock with it, are gone
	}
	l.leading--
	ctx, cancel := context.WithTimeout(context.Background(), leaderCheck)
	defer cancel()
	if _, err := l.conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, key); err != nil {
		l.dropLocked()
	}
}

// dropLocked ends the session: every task it held ends with it.
func (l *leaders) dropLocked() {
	if l.conn == nil {
		return
	}
	l.drop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.conn.Close(ctx)
	l.conn, l.leading = nil, 0
}

// watch checks the session every leaderCheck while tasks are held, and
// drops it when it does not answer, until ctx ends; then it closes it,
// giving every lock back.
func (l *leaders) watch(ctx context.Context, log *slog.Logger) {
	t := time.NewTicker(leaderCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			l.mu.Lock()
			l.dropLocked()
			l.mu.Unlock()
			return
		case <-t.C:
		}
		l.mu.Lock()
		if l.conn != nil {
			pctx, cancel := context.WithTimeout(ctx, leaderCheck)
			err := l.conn.Ping(pctx)
			cancel()
			if err != nil && !errors.Is(ctx.Err(), context.Canceled) {
				log.Error("the leader session to the database was lost: this node stops the tasks it led", "err", err, "tasks", l.leading)
				l.dropLocked()
			}
		}
		l.mu.Unlock()
	}
}
