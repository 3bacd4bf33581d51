package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Moving an appliance to a cluster: every table of the SQLite store is
// copied into an empty PostgreSQL database in one transaction, read from
// one snapshot, then each table's rows are counted and summed (a hash of
// each row, added up, so that the two engines' orders need not agree) on
// both sides. The text index, which SQLite keeps contentless, is built
// anew from the copied events.

// TableCopy is one table's copy: its rows and the sum of their hashes,
// equal on both sides.
type TableCopy struct {
	Table string
	Rows  int64
	Sum   uint64
}

// ErrTargetNotEmpty is a copy's target that holds data already.
var ErrTargetNotEmpty = errors.New("the target database holds data already")

// notCopied are PostgreSQL's tables that are not SQLite's: its migration
// version, and the text index (built from the events).
var notCopied = []string{"garrison_schema", "event_text"}

// CopyToPostgres copies this store (SQLite) into the PostgreSQL database
// at url, migrating it first, and checks the copy; the database must hold
// no organization. progress hears of each table copied.
func (s *Store) CopyToPostgres(ctx context.Context, url, schema string, progress func(TableCopy)) ([]TableCopy, error) {
	if s.pg {
		return nil, errors.New("copy: the source must be an SQLite store")
	}
	if _, err := MigratePostgres(ctx, url, schema); err != nil {
		return nil, err
	}
	m, err := parseMigrations(schema)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("copy: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var orgs int64
	if err := conn.QueryRow(ctx, `SELECT COUNT(*) FROM orgs`).Scan(&orgs); err != nil {
		return nil, fmt.Errorf("copy: %w", err)
	}
	if orgs > 0 {
		return nil, fmt.Errorf("%w (%d organizations): copy into a new, empty database", ErrTargetNotEmpty, orgs)
	}
	tables, err := copiedTables(ctx, conn, m)
	if err != nil {
		return nil, err
	}
	var copied []TableCopy
	var words int64 // events with words, indexed
	err = s.read(ctx, func(q querier) error {
		tx, err := conn.Begin(ctx)
		if err != nil {
			return fmt.Errorf("copy: begin: %w", err)
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
		names := make([]string, len(tables))
		for i, t := range tables {
			names[i] = t.name
		}
		// The migration's own rows (the event id key, the fold's state)
		// are replaced by the appliance's.
		if _, err := tx.Exec(ctx, `TRUNCATE `+strings.Join(names, ", ")+` RESTART IDENTITY CASCADE`); err != nil {
			return fmt.Errorf("copy: empty the target: %w", err)
		}
		// What the triggers keep (organizations' numbers, alert counts) is
		// copied as it is: they stay off while the rows go in.
		for _, t := range tables {
			if _, err := tx.Exec(ctx, `ALTER TABLE `+t.name+` DISABLE TRIGGER USER`); err != nil {
				return fmt.Errorf("copy: %s's triggers: %w", t.name, err)
			}
		}
		for _, t := range tables {
			c, err := copyTable(ctx, q, tx, t)
			if err != nil {
				return err
			}
			copied = append(copied, c)
			if progress != nil {
				progress(c)
			}
		}
		if words, err = copyText(ctx, q, tx); err != nil {
			return err
		}
		for _, t := range tables {
			if err := t.restartIdentities(ctx, tx); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `ALTER TABLE `+t.name+` ENABLE TRIGGER USER`); err != nil {
				return fmt.Errorf("copy: %s's triggers: %w", t.name, err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("copy: commit: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := verifyCopy(ctx, conn, tables, copied); err != nil {
		return nil, err
	}
	var indexed int64
	if err := conn.QueryRow(ctx, `SELECT COUNT(*) FROM event_text`).Scan(&indexed); err != nil || indexed != words {
		return nil, fmt.Errorf("verify the copy's text index: %d events indexed of %d with words (%v)", indexed, words, err)
	}
	return copied, nil
}

// pgTable is a table of the target and the columns a copy writes.
type pgTable struct {
	name       string
	columns    []string
	types      []string // PostgreSQL's data_type of each
	ordered    bool     // it has a rowid column: rows go in SQLite's rowid order
	identities []string // identity columns the copy fills, whose sequences then move on
}

var createTable = regexp.MustCompile(`(?m)^CREATE TABLE (\w+)`)

// copiedTables are the target's tables in the order their foreign keys
// need: the order the PostgreSQL migrations create them in.
func copiedTables(ctx context.Context, conn *pgx.Conn, m migrations) ([]pgTable, error) {
	text := m.baseline
	for _, st := range m.steps {
		text += st.postgres
	}
	var tables []pgTable
	for _, match := range createTable.FindAllStringSubmatch(text, -1) {
		name := match[1]
		if slices.Contains(notCopied, name) || slices.ContainsFunc(tables, func(t pgTable) bool { return t.name == name }) {
			continue
		}
		t := pgTable{name: name}
		rows, err := conn.Query(ctx, `SELECT column_name, data_type, is_identity, COALESCE(identity_generation, '')
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, name)
		if err != nil {
			return nil, fmt.Errorf("copy: columns of %s: %w", name, err)
		}
		for rows.Next() {
			var col, typ, identity, generation string
			if err := rows.Scan(&col, &typ, &identity, &generation); err != nil {
				rows.Close()
				return nil, fmt.Errorf("copy: columns of %s: %w", name, err)
			}
			switch {
			case col == "rowid" && generation == "ALWAYS":
				t.ordered = true // made by the target in the order the rows come
				continue
			case identity == "YES":
				t.identities = append(t.identities, col)
			}
			t.columns, t.types = append(t.columns, col), append(t.types, typ)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("copy: columns of %s: %w", name, err)
		}
		if len(t.columns) == 0 {
			return nil, fmt.Errorf("copy: the target has no table %s (is it another application's database?)", name)
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// copyTable streams one table from q into tx, hashing each row.
func copyTable(ctx context.Context, q querier, tx pgx.Tx, t pgTable) (TableCopy, error) {
	query := `SELECT ` + strings.Join(t.columns, ", ") + ` FROM ` + t.name
	if t.ordered {
		query += ` ORDER BY rowid`
	}
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return TableCopy{}, fmt.Errorf("copy: read %s: %w", t.name, err)
	}
	defer rows.Close()
	src := &rowSource{rows: rows, table: t, values: make([]any, len(t.columns))}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{t.name}, t.columns, src); err != nil {
		return TableCopy{}, fmt.Errorf("copy: write %s: %w", t.name, err)
	}
	if src.err != nil {
		return TableCopy{}, src.err
	}
	return TableCopy{Table: t.name, Rows: src.sum.rows, Sum: src.sum.value}, nil
}

// rowSource is pgx's CopyFromSource over SQLite's rows, hashing them.
type rowSource struct {
	rows   *sql.Rows
	table  pgTable
	values []any
	sum    rowSum
	err    error
}

func (r *rowSource) Next() bool {
	if !r.rows.Next() {
		r.err = r.rows.Err()
		return false
	}
	ptrs := make([]any, len(r.values))
	for i := range r.values {
		ptrs[i] = &r.values[i]
	}
	if err := r.rows.Scan(ptrs...); err != nil {
		r.err = fmt.Errorf("copy: read %s: %w", r.table.name, err)
		return false
	}
	for i, v := range r.values {
		c, err := asColumn(r.table.types[i], v)
		if err != nil {
			r.err = fmt.Errorf("copy: %s.%s: %w", r.table.name, r.table.columns[i], err)
			return false
		}
		r.values[i] = c
	}
	r.sum.add(r.values)
	return true
}

func (r *rowSource) Values() ([]any, error) { return r.values, nil }
func (r *rowSource) Err() error             { return r.err }

// asColumn is a value as the column of PostgreSQL type typ takes it, read
// from either engine.
func asColumn(typ string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch typ {
	case "bigint", "integer", "smallint":
		switch n := v.(type) {
		case int64:
			return n, nil
		case int32:
			return int64(n), nil
		case float64:
			if n == math.Trunc(n) {
				return int64(n), nil
			}
		}
	case "double precision", "real":
		switch n := v.(type) {
		case float64:
			return n, nil
		case int64:
			return float64(n), nil
		case float32:
			return float64(n), nil
		}
	case "bytea":
		switch b := v.(type) {
		case []byte:
			return b, nil
		case string:
			return []byte(b), nil
		}
	default: // text
		switch s := v.(type) {
		case string:
			return s, nil
		case []byte:
			return string(s), nil
		}
	}
	return nil, fmt.Errorf("a %T is not a %s", v, typ)
}

// rowSum adds up rows' hashes: equal sums, equal rows, in any order.
type rowSum struct {
	rows  int64
	value uint64
	buf   []byte
}

func (s *rowSum) add(values []any) {
	b := s.buf[:0]
	for _, v := range values {
		switch v := v.(type) {
		case nil:
			b = append(b, 'n')
		case int64:
			b = binary.BigEndian.AppendUint64(append(b, 'i'), uint64(v))
		case float64:
			b = binary.BigEndian.AppendUint64(append(b, 'f'), math.Float64bits(v))
		case string:
			b = append(binary.BigEndian.AppendUint64(append(b, 's'), uint64(len(v))), v...)
		case []byte:
			b = append(binary.BigEndian.AppendUint64(append(b, 'b'), uint64(len(v))), v...)
		}
	}
	h := sha256.Sum256(b)
	s.rows++
	s.value += binary.BigEndian.Uint64(h[:8])
	s.buf = b
}

// copyText builds the target's text index from the events copied, and
// says how many events it indexed.
func copyText(ctx context.Context, q querier, tx pgx.Tx) (int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT seq, org, COALESCE(message, ''), COALESCE(rule, ''), COALESCE(indicator, '') FROM events`)
	if err != nil {
		return 0, fmt.Errorf("copy: read the events' words: %w", err)
	}
	defer rows.Close()
	src := &textSource{rows: rows}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"event_text"}, []string{"rowid", "words"}, src)
	if err != nil {
		return 0, fmt.Errorf("copy: index the events' words: %w", err)
	}
	return n, src.err
}

type textSource struct {
	rows  *sql.Rows
	words []byte
	seq   int64
	err   error
}

func (t *textSource) Next() bool {
	for t.rows.Next() {
		var org int64
		var message, rule, indicator string
		if err := t.rows.Scan(&t.seq, &org, &message, &rule, &indicator); err != nil {
			t.err = fmt.Errorf("copy: read the events' words: %w", err)
			return false
		}
		if t.words = textOf(t.words[:0], org, message, rule, indicator); len(t.words) > 0 {
			return true
		}
	}
	t.err = t.rows.Err()
	return false
}

func (t *textSource) Values() ([]any, error) { return []any{t.seq, string(t.words)}, nil }
func (t *textSource) Err() error             { return t.err }

// restartIdentities moves the table's identity sequences past the rows
// copied, so the cluster's next row does not take a copied one's number.
func (t pgTable) restartIdentities(ctx context.Context, tx pgx.Tx) error {
	for _, col := range t.identities {
		if _, err := tx.Exec(ctx, `SELECT setval(pg_get_serial_sequence($1, $2), GREATEST(COALESCE(MAX(`+col+`), 0), 1), MAX(`+col+`) IS NOT NULL)
			FROM `+t.name, t.name, col); err != nil {
			return fmt.Errorf("copy: %s.%s's sequence: %w", t.name, col, err)
		}
	}
	return nil
}

// verifyCopy reads every copied table back from the target and compares
// its count and sum with the source's.
func verifyCopy(ctx context.Context, conn *pgx.Conn, tables []pgTable, copied []TableCopy) error {
	for i, t := range tables {
		rows, err := conn.Query(ctx, `SELECT `+strings.Join(t.columns, ", ")+` FROM `+t.name)
		if err != nil {
			return fmt.Errorf("verify the copy of %s: %w", t.name, err)
		}
		var sum rowSum
		values := make([]any, len(t.columns))
		for rows.Next() {
			raw, err := rows.Values()
			if err != nil {
				rows.Close()
				return fmt.Errorf("verify the copy of %s: %w", t.name, err)
			}
			for j, v := range raw {
				if values[j], err = asColumn(t.types[j], v); err != nil {
					rows.Close()
					return fmt.Errorf("verify the copy of %s.%s: %w", t.name, t.columns[j], err)
				}
			}
			sum.add(values)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("verify the copy of %s: %w", t.name, err)
		}
		if want := copied[i]; sum.rows != want.Rows || sum.value != want.Sum {
			return fmt.Errorf("the copy of %s differs: %d rows (sum %016x) copied, %d (sum %016x) read back", t.name, want.Rows, want.Sum,
				sum.rows, sum.value)
		}
	}
	return nil
}
