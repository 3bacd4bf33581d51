package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// rowsPerInsert bounds one multi-row INSERT: PostgreSQL takes at most
// 65,535 parameters a statement, and an event row has 22.
const rowsPerInsert = 1000

// insertEventRows is insertEvents on PostgreSQL: the events, their words
// and their originals, each in statements of up to rowsPerInsert rows,
// with the seqs after hw. It returns the last seq.
func insertEventRows(ctx context.Context, tx *sql.Tx, org, hw int64, events []NewEvent, alertOf []*alertDelta, now time.Time,
	withFields bool) (int64, error) {
	columns := `seq, org, ts, type, severity, source, asset, message, indicator, details, alert_id, received_at`
	if withFields {
		columns += `, src_ip, dst_ip, src_port, dst_port, user_name, process, command_line, host, rule, action`
	}
	received := ms(now)
	var rows, text, originals multiRow
	var words []byte
	for i, e := range events {
		seq := hw + int64(i) + 1
		var alertID sql.NullString
		if d := alertOf[i]; d != nil {
			alertID = sql.NullString{String: d.id, Valid: true}
		}
		var details sql.NullString
		if e.Details != nil {
			details = sql.NullString{String: string(e.Details), Valid: true}
		}
		row := []any{seq, org, ms(e.Timestamp), e.Type, e.Severity, e.Source, e.Asset, e.Message, e.Indicator, details, alertID, received}
		if withFields {
			f := e.Fields
			row = append(row, addrColumn(f.SrcIP), addrColumn(f.DstIP), portColumn(f.SrcPort), portColumn(f.DstPort),
				textColumn(f.User), textColumn(f.Process), textColumn(f.CommandLine), textColumn(f.Host), textColumn(f.Rule),
				textColumn(f.Action))
		}
		rows.add(row)
		if words = textOf(words[:0], org, e.Message, e.Fields.Rule, e.Indicator); len(words) > 0 {
			text.add([]any{seq, string(words)})
		}
		if e.Original != "" {
			originals.add([]any{seq, e.Original})
		}
	}
	for _, t := range []struct {
		what, into string
		rows       multiRow
	}{
		{"events", `events (` + columns + `)`, rows},
		{"the events' words", `event_text (rowid, words)`, text},
		{"the events' originals", `event_originals (seq, original)`, originals},
	} {
		if err := t.rows.insert(ctx, tx, t.into); err != nil {
			return 0, fmt.Errorf("insert %s: %w", t.what, err)
		}
	}
	return hw + int64(len(events)), nil
}

// multiRow gathers rows of one width for multi-row INSERTs.
type multiRow struct {
	args  []any
	width int
	n     int
}

func (m *multiRow) add(row []any) {
	m.args, m.width = append(m.args, row...), len(row)
	m.n++
}

// insert writes the rows into into ("table (columns)") in statements of
// up to rowsPerInsert rows.
func (m *multiRow) insert(ctx context.Context, tx *sql.Tx, into string) error {
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", m.width), ", ") + ")"
	for start := 0; start < m.n; start += rowsPerInsert {
		n := min(rowsPerInsert, m.n-start)
		var b strings.Builder
		b.WriteString("INSERT INTO " + into + " VALUES ")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(one)
		}
		if _, err := tx.ExecContext(ctx, b.String(), m.args[start*m.width:(start+n)*m.width]...); err != nil {
			return err
		}
	}
	return nil
}
