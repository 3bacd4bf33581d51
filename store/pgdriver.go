package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"

	"github.com/jackc/pgx/v5/stdlib"
)

// PostgresDriver is pgx's database/sql driver with the store's queries
// renumbered on the way (rebind.go): the store's SQL is written once.
const PostgresDriver = "garrison-pgx"

func init() {
	sql.Register(PostgresDriver, pgDriver{stdlib.GetDefaultDriver()})
}

type pgDriver struct{ d driver.Driver }

func (d pgDriver) Open(name string) (driver.Conn, error) {
	c, err := d.d.Open(name)
	if err != nil {
		return nil, err
	}
	return pgConn{c}, nil
}

// pgConn is one of pgx's connections, its queries renumbered. It passes on
// every optional interface pgx's connection has, so database/sql uses them.
type pgConn struct{ c driver.Conn }

var errNoContextSupport = errors.New("store: the PostgreSQL connection lacks a context method")

func (c pgConn) Prepare(query string) (driver.Stmt, error) { return c.c.Prepare(rebind(query)) }
func (c pgConn) Close() error                              { return c.c.Close() }
func (c pgConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if p, ok := c.c.(driver.ConnPrepareContext); ok {
		return p.PrepareContext(ctx, rebind(query))
	}
	return nil, errNoContextSupport
}

func (c pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if b, ok := c.c.(driver.ConnBeginTx); ok {
		return b.BeginTx(ctx, opts)
	}
	return nil, errNoContextSupport
}

func (c pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if e, ok := c.c.(driver.ExecerContext); ok {
		return e.ExecContext(ctx, rebind(query), args)
	}
	return nil, driver.ErrSkip
}

func (c pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if q, ok := c.c.(driver.QueryerContext); ok {
		return q.QueryContext(ctx, rebind(query), args)
	}
	return nil, driver.ErrSkip
}

func (c pgConn) Ping(ctx context.Context) error {
	if p, ok := c.c.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// CheckNamedValue passes a bool as 0 or 1: the schema keeps booleans as
// integers on both engines (SQLite has no other), and pgx will not write
// a bool into an integer column.
func (c pgConn) CheckNamedValue(v *driver.NamedValue) error {
	if b, ok := v.Value.(bool); ok {
		v.Value = int64(0)
		if b {
			v.Value = int64(1)
		}
		return nil
	}
	if n, ok := c.c.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

func (c pgConn) ResetSession(ctx context.Context) error {
	if r, ok := c.c.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c pgConn) IsValid() bool {
	if v, ok := c.c.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}
