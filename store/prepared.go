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

// prepared returns the statement of a read query, preparing it once.
func (s *Store) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	if st, ok := s.stmts.byText[query]; ok {
		return st, nil
	}
	st, err := s.reader.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
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

func (p readPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := p.s.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (p readPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := p.s.prepared(ctx, query)
	if err != nil {
		return p.s.reader.QueryRowContext(ctx, query, args...) // reports the same error
	}
	return st.QueryRowContext(ctx, args...)
}

// readTx is a read transaction whose queries use the prepared statements.
type readTx struct {
	tx *sql.Tx
	s  *Store
}

func (r readTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := r.s.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return r.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
}

func (r readTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := r.s.prepared(ctx, query)
	if err != nil {
		return r.tx.QueryRowContext(ctx, query, args...) // reports the same error
	}
	return r.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
}
