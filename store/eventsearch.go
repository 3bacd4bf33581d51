package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"garrison/event"
)

// likeEscape quotes % _ and \ for LIKE … ESCAPE '\'.
var likeEscape = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

func likePattern(text string) string { return "%" + likeEscape.Replace(text) + "%" }

// searchClause adds a search's conditions on events (their columns as
// named, with prefix: "" or "e."); addresses and users have their own
// indexes, the other fields narrow a scan. Text is sought in the message,
// rule and indicator, ignoring ASCII case.
func searchClause(q event.Search, prefix string, clause []string, args []any) ([]string, []any) {
	addr := func(column string, p netip.Prefix) {
		if !p.IsValid() {
			return
		}
		lo, hi := PrefixRange(p)
		if string(lo) == string(hi) {
			clause, args = append(clause, prefix+column+" = ?"), append(args, lo)
			return
		}
		clause, args = append(clause, prefix+column+" BETWEEN ? AND ?"), append(args, lo, hi)
	}
	addr("src_ip", q.SrcIP)
	addr("dst_ip", q.DstIP)
	for _, c := range []struct{ column, value string }{{"asset", q.Asset}, {"user_name", q.User}, {"rule", q.Rule}, {"source", q.Source}} {
		if c.value != "" {
			clause, args = append(clause, prefix+c.column+" = ?"), append(args, c.value)
		}
	}
	if q.Text != "" {
		pattern := likePattern(q.Text)
		clause = append(clause, `(`+prefix+`message LIKE ? ESCAPE '\' OR `+prefix+`rule LIKE ? ESCAPE '\' OR `+prefix+`indicator LIKE ? ESCAPE '\')`)
		args = append(args, pattern, pattern, pattern)
	}
	return clause, args
}

// searchEvents is a page of events passing a search, with its exact total,
// in one snapshot: the rollups know nothing of the fields, so both read
// the events themselves through the fields' indexes.
func (s *Store) searchEvents(ctx context.Context, orgID string, f EventFilter) ([]event.Event, int, error) {
	where, args := f.where(orgID, f.bounds())
	dir := "DESC"
	if f.Ascending {
		dir = "ASC"
	}
	order := "ts " + dir + ", seq " + dir
	if f.SortBySeverity {
		order = "severity " + dir + ", " + order
	}
	var events []event.Event
	var total int
	err := s.read(ctx, func(tx querier) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+eventColumns+` FROM events WHERE `+where+` ORDER BY `+order+` LIMIT ? OFFSET ?`,
			append(args, f.Page.Limit, f.Page.Offset)...)
		if err != nil {
			return fmt.Errorf("search events: %w", err)
		}
		if events, err = scanEvents(rows, orgID); err != nil {
			return fmt.Errorf("search events: %w", err)
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE `+where, args...).Scan(&total); err != nil {
			return fmt.Errorf("count found events: %w", err)
		}
		return nil
	})
	return events, total, err
}

// Event is one of the organization's events, with the record as it was
// received.
func (s *Store) Event(ctx context.Context, orgID, id string) (event.Event, error) {
	var out event.Event
	err := s.read(ctx, func(tx querier) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+eventColumns+` FROM events WHERE id = ? AND org_id = ?`, id, orgID)
		if err != nil {
			return fmt.Errorf("event: %w", err)
		}
		found, err := scanEvents(rows, orgID)
		if err != nil {
			return fmt.Errorf("event: %w", err)
		}
		if len(found) == 0 {
			return ErrNotFound
		}
		out = found[0]
		var original sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT original FROM event_originals
			WHERE seq = (SELECT seq FROM events WHERE id = ?)`, id).Scan(&original); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("event's original: %w", err)
		}
		out.Original = original.String
		return nil
	})
	return out, err
}

// exportBatch is how many events EachEvent reads per query: a bounded
// page, so that an export of millions holds no more than this in memory
// and no read open for long.
const exportBatch = 1000

// EachEvent hands every event passing the filter to fn, oldest first,
// reading a batch at a time from where the last one ended (by time and
// arrival), so memory stays constant however many match. The filter's
// page is ignored.
func (s *Store) EachEvent(ctx context.Context, orgID string, f EventFilter, fn func(event.Event) error) error {
	f.Ascending, f.SortBySeverity = true, false
	lastTS, lastSeq := int64(openLow), int64(-1)
	for {
		where, args := f.where(orgID, f.bounds())
		var batch []event.Event
		var seqs []int64
		err := s.read(ctx, func(tx querier) error {
			rows, err := tx.QueryContext(ctx, `SELECT `+eventColumns+`, seq FROM events WHERE `+where+
				` AND (ts > ? OR (ts = ? AND seq > ?)) ORDER BY ts, seq LIMIT ?`,
				append(args, lastTS, lastTS, lastSeq, exportBatch)...)
			if err != nil {
				return fmt.Errorf("export events: %w", err)
			}
			batch, seqs, err = scanEventsSeq(rows, orgID)
			return err
		})
		if err != nil {
			return err
		}
		for _, e := range batch {
			if err := fn(e); err != nil {
				return err
			}
		}
		if len(batch) < exportBatch {
			return nil
		}
		lastTS, lastSeq = ms(batch[len(batch)-1].Timestamp), seqs[len(seqs)-1]
	}
}
