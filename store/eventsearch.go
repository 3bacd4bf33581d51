package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"garrison/event"
)

// likeEscape quotes % _ and \ for LIKE … ESCAPE '\'.
var likeEscape = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

func likePattern(text string) string { return "%" + likeEscape.Replace(text) + "%" }

// searchClause adds a search's conditions on events (their columns as
// named, with prefix: "" or "e."); addresses and users have their own
// indexes, the other fields narrow a scan, and words are found through
// event_text (eventtext.go), the organization's (orgID) tokens.
func searchClause(q event.Search, orgID, prefix string, clause []string, args []any) ([]string, []any) {
	addr := func(column string, p netip.Prefix) {
		if !p.IsValid() {
			return
		}
		lo, hi := prefixRange(p)
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
		clause = append(clause, prefix+`seq IN (SELECT rowid FROM event_text(
			replace(?, '#', CAST((SELECT num FROM org_numbers WHERE org_id = ?) AS TEXT))))`)
		args = append(args, textMatch(event.QueryWords(q.Text)), orgID)
	}
	return clause, args
}

// searchTimeout bounds a search that reads every event of its period,
// its wait for its turn included.
const searchTimeout = 10 * time.Second

// scans reports whether a search reads every event of its period: names
// without an index of their own, when no words, address or user narrow it
// through theirs.
func scans(q event.Search) bool {
	return !(q.Text != "" || q.SrcIP.IsValid() || q.DstIP.IsValid() || q.User != "")
}

// scanTurn waits for the turn of a scanning search, bounded by
// searchTimeout; done gives it back. A search that reads through an
// index takes no turn.
func (s *Store) scanTurn(ctx context.Context, q event.Search) (context.Context, func(), error) {
	if !scans(q) {
		return ctx, func() {}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, searchTimeout)
	select {
	case s.scans <- struct{}{}:
		return ctx, func() { <-s.scans; cancel() }, nil
	case <-ctx.Done():
		cancel()
		return ctx, nil, searchError(ctx, ctx.Err())
	}
}

// searchError is ErrSearchTooLong for a search past its time, and err
// otherwise.
func searchError(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) && err != nil {
		return ErrSearchTooLong
	}
	return err
}

// searchEvents is a page of events passing a search, with its exact total,
// in one snapshot: the rollups know nothing of the fields, so both read
// the events themselves, through the fields' indexes when the search
// names an address or a user.
func (s *Store) searchEvents(ctx context.Context, orgID string, f EventFilter) ([]event.Event, int, error) {
	ctx, done, err := s.scanTurn(ctx, f.Search)
	if err != nil {
		return nil, 0, err
	}
	defer done()
	events, total, err := s.searchPage(ctx, orgID, f)
	return events, total, searchError(ctx, err)
}

func (s *Store) searchPage(ctx context.Context, orgID string, f EventFilter) ([]event.Event, int, error) {
	if f.Search.Text != "" {
		var events []event.Event
		var total int
		err := s.read(ctx, func(tx querier) error {
			if err := s.customPlans(ctx, tx); err != nil {
				return err
			}
			var err error
			events, total, err = s.textPage(ctx, tx, orgID, f)
			return err
		})
		return events, total, err
	}
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
		rows, err := tx.QueryContext(ctx, `SELECT `+s.eventColumns()+` FROM events WHERE `+where+` ORDER BY `+order+` LIMIT ? OFFSET ?`,
			append(args, f.Page.Limit, f.Page.Offset)...)
		if err != nil {
			return fmt.Errorf("search events: %w", err)
		}
		if events, err = s.eventIDs.scan(rows, orgID); err != nil {
			return fmt.Errorf("search events: %w", err)
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE `+where, args...).Scan(&total); err != nil {
			return fmt.Errorf("count found events: %w", err)
		}
		return nil
	})
	return events, total, err
}

// customPlans has PostgreSQL plan the rest of the read transaction's
// statements for their arguments: a text search's words are as rare or as
// common as they are, and the generic plan PostgreSQL settles on after a
// statement's fifth run walked the primary key backwards past every row
// for a rare word (7 × fewer searches a second in bench/cluster). Other
// statements keep their generic plans, whose planning is saved.
func (s *Store) customPlans(ctx context.Context, q querier) error {
	if !s.pg {
		return nil
	}
	var mode string
	if err := q.QueryRowContext(ctx, `SELECT set_config('plan_cache_mode', 'force_custom_plan', true)`).Scan(&mode); err != nil {
		return fmt.Errorf("search events: plan for the words: %w", err)
	}
	return nil
}

// Event is one of the organization's events, with the record as it was
// received.
func (s *Store) Event(ctx context.Context, orgID, id string) (event.Event, error) {
	// An id derived from a seq is looked up by it; any other by the id
	// stored with events from before ids were derived.
	key, arg := "legacy_id = ?", any(id)
	if seq, ok := s.eventIDs.seqOf(id); ok {
		key, arg = "seq = ?", seq
	}
	var out event.Event
	err := s.read(ctx, func(tx querier) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+s.eventColumns()+` FROM events WHERE `+key+` AND org = `+orgNum, arg, orgID)
		if err != nil {
			return fmt.Errorf("event: %w", err)
		}
		found, seqs, err := s.eventIDs.scanExtra(rows, orgID, nil)
		if err != nil {
			return fmt.Errorf("event: %w", err)
		}
		if len(found) == 0 {
			return ErrNotFound
		}
		out = found[0]
		// The seq is the organization's event found above, in this snapshot.
		var original sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT original FROM event_originals WHERE seq = ?`, seqs[0]).Scan(&original); err != nil && !errors.Is(err, sql.ErrNoRows) {
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
		release := func() {}
		if f.Search.Any() && scans(f.Search) {
			select { // a batch at a time, so an export shares the turn with pages
			case s.scans <- struct{}{}:
				release = func() { <-s.scans }
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		err := s.read(ctx, func(tx querier) error {
			rows, err := tx.QueryContext(ctx, `SELECT `+s.eventColumns()+` FROM events WHERE `+where+
				` AND (ts, seq) > (?, ?) ORDER BY ts, seq LIMIT ?`,
				append(args, lastTS, lastSeq, exportBatch)...)
			if err != nil {
				return fmt.Errorf("export events: %w", err)
			}
			batch, seqs, err = s.eventIDs.scanExtra(rows, orgID, nil)
			return err
		})
		release()
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
