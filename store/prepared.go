package store

import (
	"context"
	"database/sql"
	"sync"
)

// querier is a pool or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// statements holds the read queries prepared so far, by their text:
// parsing a query costs more than running most of the hot ones. The
// texts are the store's own (filters vary only in placeholders), so the
// cache stays small; past maxStatements a query is simply not kept.
type statements struct {
	mu     sync.Mutex
	byText map[string]*sql.Stmt
}

const maxStatements = 512

// cached returns the prepared statement of a read query, if there is one.
func (s *Store) cached(query string) (*sql.Stmt, bool) {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	st, ok := s.stmts.byText[query]
	return st, ok
}

// prepare prepares a read query and keeps it. It takes a connection from
// the pool, so it must not run while holding one (inside a read
// transaction) or any lock: with every connection held by callers waiting
// for it, that would never return.
func (s *Store) prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	st, err := s.reader.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	if kept, ok := s.stmts.byText[query]; ok {
		st.Close() // prepared meanwhile by another caller
		return kept, nil
	}
	if len(s.stmts.byText) < maxStatements {
		if s.stmts.byText == nil {
			s.stmts.byText = map[string]*sql.Stmt{}
		}
		s.stmts.byText[query] = st
	}
	return st, nil
}

func (s *Store) closeStatements() {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	for _, st := range s.stmts.byText {
		st.Close()
	}
	s.stmts.byText = nil
}

// readPool reads outside a transaction, through the prepared statements.
type readPool struct{ s *Store }

func (p readPool) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := p.s.cached(query); ok {
		return st, nil
	}
	return p.s.prepare(ctx, query)
}

func (p readPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (p readPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return p.s.reader.QueryRowContext(ctx, query, args...) // reports the same error
	}
	return st.QueryRowContext(ctx, args...)
}

// readTx is a read transaction whose queries use the prepared statements.
// A query not prepared yet runs as it is, and is prepared once the
// transaction has given its connection back (see read).
type readTx struct {
	tx     *sql.Tx
	s      *Store
	missed []string
}

func (r *readTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st, ok := r.s.cached(query); ok {
		return r.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	r.missed = append(r.missed, query)
	return r.tx.QueryContext(ctx, query, args...)
}

func (r *readTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := r.s.cached(query); ok {
		return r.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	r.missed = append(r.missed, query)
	return r.tx.QueryRowContext(ctx, query, args...)
}
