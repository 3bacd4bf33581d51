package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"garrison/event"
)

// Text search reads an index instead of the events: event_text (FTS5,
// without content, rowid = seq) holds each event's words (event.IndexWords)
// as tokens of its organization, so a word's events are one doclist and
// its count is exact without reading a row. The newest (or oldest) page
// walks the candidates by seq and stops once no candidate left can come
// before the page's last: event_blocks bounds the times of each block of
// 4,096 seqs.

// The index keeps no copy of the words nor their count (13 bytes an
// event), so a row leaves it by naming its words again (FTS5's 'delete'),
// made from the event's row by textOf: whatever deletes events calls
// unindexText first. A change to textOf or event.IndexWords is a change
// of the index's format: it needs a migration that rebuilds event_text.

// textBlockBits makes a block of 4,096 seqs.
const textBlockBits = 12

// textToken appends word as event_text holds it for organization org:
// "o", the number, "_", then the word with every byte outside a-z and 0-9
// written as _ and two hex digits. The tokenizer takes letters, digits
// and _, so a token is read whole, and no organization's word is
// another's.
func textToken(b []byte, org int64, word string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, 'o')
	b = strconv.AppendInt(b, org, 10)
	b = append(b, '_')
	for i := range len(word) {
		c := word[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b = append(b, c)
			continue
		}
		b = append(b, '_', hex[c>>4], hex[c&15])
	}
	return b
}

// textOf is an event's row of event_text: its indexed words' tokens.
func textOf(b []byte, org int64, message, rule, indicator string) []byte {
	event.IndexWords(func(w string) {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = textToken(b, org, w)
	}, message, rule, indicator)
	return b
}

// textMatch is the FTS5 query of events holding every word, with # for
// the organization's number (the statement puts it in: replace).
func textMatch(words []string) string {
	var b []byte
	for i, w := range words {
		if i > 0 {
			b = append(b, ' ')
		}
		n := len(b)
		b = textToken(append(b, '"'), 0, w)
		b[n+2] = '#' // "o0_…: the number's one digit
		b = append(b, '"')
	}
	return string(b)
}

// timeBlocks holds event_blocks in memory for the pages' stopping rule.
// A block below the last one held is final (seqs are handed out in
// order); the last and any newer are read from the table in the page's
// own snapshot, so a bound is never narrower than what the snapshot holds.
type timeBlocks struct {
	mu       sync.RWMutex
	min, max []int64 // by block; min > max for a block without events
	// shared: other processes store events too (PostgreSQL's nodes), so
	// only blocks below the last one read from the table are final, and
	// view keeps them as it reads them.
	shared bool
}

func (t *timeBlocks) load(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT block, min_ts, max_ts FROM event_blocks ORDER BY block`)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil // a test's schema of a few tables
		}
		return fmt.Errorf("read event blocks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var b, lo, hi int64
		if err := rows.Scan(&b, &lo, &hi); err != nil {
			return fmt.Errorf("read event blocks: %w", err)
		}
		t.add(b, lo, hi)
	}
	return rows.Err()
}

// add widens block b's range.
func (t *timeBlocks) add(b, lo, hi int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for int64(len(t.min)) <= b {
		t.min, t.max = append(t.min, 1<<62), append(t.max, -1<<62)
	}
	t.min[b], t.max[b] = min(t.min[b], lo), max(t.max[b], hi)
}

// blockRange is one block's times.
type blockRange struct{ block, lo, hi int64 }

// blockView is the blocks as a page's snapshot sees them: those held
// below the last held one (final), and the rest as read in the snapshot.
type blockView struct {
	t     *timeBlocks
	final int64 // blocks below it are read from t
	tail  []blockRange
}

// view reads the blocks that may still change in the snapshot q.
func (t *timeBlocks) view(ctx context.Context, q querier) (blockView, error) {
	t.mu.RLock()
	final := int64(max(len(t.min)-1, 0))
	t.mu.RUnlock()
	tail, err := queryAll(ctx, q, "event blocks", `SELECT block, min_ts, max_ts FROM event_blocks WHERE block >= ?`, []any{final},
		func(rows *sql.Rows) (blockRange, error) {
			var r blockRange
			return r, rows.Scan(&r.block, &r.lo, &r.hi)
		})
	if err == nil && t.shared {
		t.keepFinal(tail)
	}
	return blockView{t: t, final: final, tail: tail}, err
}

// keepFinal holds the blocks read below the last one read: seqs are handed
// out in commit order, so no event will join them.
func (t *timeBlocks) keepFinal(read []blockRange) {
	last := int64(-1)
	for _, r := range read {
		last = max(last, r.block)
	}
	for _, r := range read {
		if r.block < last {
			t.add(r.block, r.lo, r.hi)
		}
	}
	if last > 0 {
		t.add(last-1, 1<<62, -1<<62) // held: blocks without events between
	}
}

// newestThrough is the newest time of an event in blocks 0 … b.
func (v blockView) newestThrough(b int64) int64 {
	best := int64(-1 << 62)
	v.t.mu.RLock()
	for i := range min(b+1, v.final) {
		best = max(best, v.t.max[i])
	}
	v.t.mu.RUnlock()
	for _, r := range v.tail {
		if r.block <= b {
			best = max(best, r.hi)
		}
	}
	return best
}

// oldestFrom is the oldest time of an event in blocks b and after.
func (v blockView) oldestFrom(b int64) int64 {
	best := int64(1 << 62)
	v.t.mu.RLock()
	for i := max(b, 0); i < v.final; i++ {
		best = min(best, v.t.min[i])
	}
	v.t.mu.RUnlock()
	for _, r := range v.tail {
		if r.block >= b {
			best = min(best, r.lo)
		}
	}
	return best
}

// writeBlocks widens the blocks of a batch's events, seqs first … on.
func writeBlocks(ctx context.Context, tx *sql.Tx, first int64, events []NewEvent) ([]blockRange, error) {
	var out []blockRange
	for i, e := range events {
		b, ts := (first+int64(i))>>textBlockBits, ms(e.Timestamp)
		if n := len(out); n > 0 && out[n-1].block == b {
			out[n-1].lo, out[n-1].hi = min(out[n-1].lo, ts), max(out[n-1].hi, ts)
			continue
		}
		out = append(out, blockRange{b, ts, ts})
	}
	for _, r := range out {
		if _, err := tx.ExecContext(ctx, `INSERT INTO event_blocks (block, min_ts, max_ts) VALUES (?, ?, ?)
			ON CONFLICT (block) DO UPDATE SET min_ts = MIN(event_blocks.min_ts, excluded.min_ts), max_ts = MAX(event_blocks.max_ts, excluded.max_ts)`,
			r.block, r.lo, r.hi); err != nil {
			return nil, fmt.Errorf("event blocks: %w", err)
		}
	}
	return out, nil
}

// textChunk is the most candidates a page reads at a time: it starts at a
// page's worth, most often all it needs, and doubles.
const textChunk = 1024

// textPage is a page of the events holding the search's words and passing
// the rest of the filter, with its exact total, in the snapshot q.
func (s *Store) textPage(ctx context.Context, q querier, orgID string, f EventFilter) ([]event.Event, int, error) {
	// The organization's number, and the snapshot's newest seq and
	// deletes count for the total's reuse and the newest page's reads.
	var org, newest, deletes int64
	if err := q.QueryRowContext(ctx, `SELECT num, (SELECT COALESCE(MAX(seq), 0) FROM events),
		(SELECT n FROM event_text_deletes) FROM org_numbers WHERE org_id = ?`, orgID).Scan(&org, &newest, &deletes); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, 0, nil
		}
		return nil, 0, fmt.Errorf("organization's number: %w", err)
	}
	match := strings.ReplaceAll(textMatch(event.QueryWords(f.Search.Text)), "#", strconv.FormatInt(org, 10))
	// The rest of the filter, checked on each candidate's row.
	others := f
	others.Search.Text = ""
	where, args := others.where(orgID, f.bounds())
	var total int
	var err error
	wordsAlone := len(f.Severities) == 0 && len(f.Types) == 0 && f.From == nil && f.To == nil && others.Search == (event.Search{})
	if wordsAlone {
		// The words alone: the doclist's length is the total.
		if total, err = s.textTotal(ctx, q, match, newest, deletes); err != nil {
			return nil, 0, err
		}
	} else if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE seq IN
		(SELECT rowid FROM event_text(?)) AND `+where, append([]any{match}, args...)...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count found events: %w", err)
	}
	if total <= f.Page.Offset || f.Page.Limit <= 0 { // a count alone reads no page
		return nil, total, nil
	}
	if f.SortBySeverity {
		dir := map[bool]string{true: "ASC", false: "DESC"}[f.Ascending]
		rows, err := q.QueryContext(ctx, `SELECT `+s.eventColumns()+` FROM events WHERE seq IN
			(SELECT rowid FROM event_text(?)) AND `+where+`
			ORDER BY severity `+dir+`, ts `+dir+`, seq `+dir+` LIMIT ? OFFSET ?`,
			append(append([]any{match}, args...), f.Page.Limit, f.Page.Offset)...)
		if err != nil {
			return nil, 0, fmt.Errorf("search events: %w", err)
		}
		events, err := s.eventIDs.scan(rows, orgID)
		return events, total, err
	}
	start := textStart{cursor: newest + 1}
	var inHand map[int64]event.Event
	if wordsAlone && !f.Ascending && f.Page.Offset == 0 {
		// The newest candidates' rows are read whole at once: they are
		// most often the first page.
		var err error
		if inHand, start, err = s.textNewestRows(ctx, q, orgID, match, textFirstChunk(f.Page), newest); err != nil {
			return nil, 0, err
		}
	}
	seqs, err := s.textTop(ctx, q, match, where, args, f, start)
	if err != nil {
		return nil, 0, err
	}
	events, err := s.eventsBySeq(ctx, q, orgID, seqs, inHand)
	return events, total, err
}

// textFirstChunk is how many candidates a page reads first: a page's
// worth and a quarter, for the candidates that do not make it.
func textFirstChunk(p Page) int {
	k := p.Offset + p.Limit
	return max(k+k/4, 16)
}

// textStart is where a page's reading of candidates starts: below seq
// cursor, with the candidates read before (done when they were all).
type textStart struct {
	cursor int64
	seed   []ranked
	done   bool
}

// textNewestRows reads the rows of the chunk newest candidates below
// seq newest+1, for a search of words alone (every candidate is a row of
// the page's filter).
func (s *Store) textNewestRows(ctx context.Context, q querier, orgID, match string, chunk int, newest int64) (map[int64]event.Event, textStart, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+s.eventColumns()+` FROM (SELECT rowid AS r FROM event_text(?)
		WHERE rowid <= ? ORDER BY rowid DESC LIMIT ?) AS c
		JOIN events ON events.seq = c.r AND events.org = `+orgNum+` ORDER BY c.r DESC`, match, newest, chunk, orgID)
	if err != nil {
		return nil, textStart{}, fmt.Errorf("search events: %w", err)
	}
	events, seqs, err := s.eventIDs.scanExtra(rows, orgID, nil)
	if err != nil {
		return nil, textStart{}, fmt.Errorf("search events: %w", err)
	}
	start := textStart{cursor: newest + 1, done: len(seqs) < chunk}
	inHand := make(map[int64]event.Event, len(seqs))
	for i, seq := range seqs {
		inHand[seq] = events[i]
		start.seed = append(start.seed, ranked{seq, ms(events[i].Timestamp)})
		start.cursor = seq
	}
	return inHand, start, nil
}

// ranked is a candidate's place in a page's order.
type ranked struct{ seq, ts int64 }

// textTop returns the seqs of the page, in its order: the candidates are
// read by seq, newest first for a newest-first page, keeping the best
// offset+limit, until the blocks say no candidate left can beat the last
// kept one. A newest-first page starts from start.
func (s *Store) textTop(ctx context.Context, q querier, match, where string, args []any, f EventFilter, start textStart) ([]int64, error) {
	blocks, err := s.blocks.view(ctx, q)
	if err != nil {
		return nil, err
	}
	k := f.Page.Offset + f.Page.Limit
	before := func(a, b ranked) bool { // a comes before b in the page's order
		if a.ts != b.ts {
			return (a.ts > b.ts) != f.Ascending
		}
		return (a.seq > b.seq) != f.Ascending
	}
	// beyond is the best time any candidate past seq can have.
	beyond := func(seq int64) int64 {
		if f.Ascending {
			return blocks.oldestFrom(seq >> textBlockBits)
		}
		return blocks.newestThrough(seq >> textBlockBits)
	}
	var top []ranked
	// keep sorts top in the page's order and keeps the best k.
	keep := func() {
		slices.SortFunc(top, func(a, b ranked) int {
			if before(a, b) {
				return -1
			}
			return 1
		})
		top = top[:min(len(top), k)]
	}
	// read adds the candidates a query returns, the rest of the filter
	// applied (ts is NULL for one it refuses), and keeps the best k; it
	// returns how many candidates it read and the last one's seq.
	read := func(query string, qargs ...any) (int, int64, error) {
		rows, err := q.QueryContext(ctx, query, append(qargs, args...)...)
		if err != nil {
			return 0, 0, fmt.Errorf("search events: %w", err)
		}
		n, last := 0, int64(0)
		for rows.Next() {
			var ts sql.NullInt64
			if err := rows.Scan(&last, &ts); err != nil {
				rows.Close()
				return 0, 0, fmt.Errorf("search events: %w", err)
			}
			if n++; ts.Valid {
				top = append(top, ranked{last, ts.Int64})
			}
		}
		if err := rows.Close(); err != nil {
			return 0, 0, fmt.Errorf("search events: %w", err)
		}
		keep()
		return n, last, nil
	}
	// full says the page holds k candidates, none of which a candidate
	// past seq can beat (one with the last kept one's time comes after it:
	// seq breaks the tie the same way).
	full := func(seq int64) bool {
		if len(top) < k {
			return false
		}
		if f.Ascending {
			return top[k-1].ts <= beyond(seq)
		}
		return top[k-1].ts >= beyond(seq)
	}
	if f.Ascending {
		query := `SELECT c.r, e.ts FROM (SELECT rowid AS r FROM event_text(?) WHERE rowid > ?
			ORDER BY rowid ASC LIMIT ?) AS c LEFT JOIN events e ON e.seq = c.r AND ` + where + ` ORDER BY c.r ASC`
		cursor := int64(0)
		for chunk := textFirstChunk(f.Page); ; chunk = min(2*chunk, textChunk) {
			n, last, err := read(query, match, cursor, chunk)
			if err != nil {
				return nil, err
			}
			if cursor = last; n < chunk || full(cursor) {
				break
			}
		}
	} else {
		// Newest first: the candidates backwards from the newest seq, in
		// chunks, each below the last one read.
		query := `SELECT c.r, e.ts FROM (SELECT rowid AS r FROM event_text(?) WHERE rowid < ?
			ORDER BY rowid DESC LIMIT ?) AS c LEFT JOIN events e ON e.seq = c.r AND ` + where + ` ORDER BY c.r DESC`
		cursor, chunk := start.cursor, textFirstChunk(f.Page)
		if start.seed != nil || start.done { // the first chunk was read whole
			top = append(top, start.seed...)
			keep()
			if chunk = min(2*chunk, textChunk); start.done || full(cursor-1) {
				chunk = 0
			}
		}
		for ; chunk > 0; chunk = min(2*chunk, textChunk) {
			n, last, err := read(query, match, cursor, chunk)
			if err != nil {
				return nil, err
			}
			if cursor = last; n < chunk || full(cursor-1) {
				break
			}
		}
	}
	out := make([]int64, 0, len(top))
	for _, r := range top[min(f.Page.Offset, len(top)):] {
		out = append(out, r.seq)
	}
	return out, nil
}

// eventsBySeq reads the events at seqs, in that order, but for those in
// hand already.
func (s *Store) eventsBySeq(ctx context.Context, q querier, orgID string, seqs []int64, inHand map[int64]event.Event) ([]event.Event, error) {
	list := make([]byte, 0, 12*len(seqs))
	list = append(list, '[')
	for _, seq := range seqs {
		if _, ok := inHand[seq]; ok {
			continue
		}
		if len(list) > 1 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, seq, 10)
	}
	list = append(list, ']')
	if len(list) == 2 {
		return inOrder(seqs, inHand), nil
	}
	rows, err := q.QueryContext(ctx, `SELECT `+s.eventColumns()+` FROM events WHERE seq IN (`+s.jsonValues("?", true)+`)
		AND org = `+orgNum, string(list), orgID)
	if err != nil {
		return nil, fmt.Errorf("search events: %w", err)
	}
	events, got, err := s.eventIDs.scanExtra(rows, orgID, nil)
	if err != nil {
		return nil, fmt.Errorf("search events: %w", err)
	}
	bySeq := make(map[int64]event.Event, len(seqs))
	maps.Copy(bySeq, inHand)
	for i, e := range events {
		bySeq[got[i]] = e
	}
	return inOrder(seqs, bySeq), nil
}

// inOrder is the events of seqs found in bySeq, in the order of seqs.
func inOrder(seqs []int64, bySeq map[int64]event.Event) []event.Event {
	out := make([]event.Event, 0, len(seqs))
	for _, seq := range seqs {
		if e, ok := bySeq[seq]; ok {
			out = append(out, e)
		}
	}
	return out
}

// textBackfillBatch is how many earlier events a backfill transaction
// indexes.
const textBackfillBatch = 10_000

// backfillText indexes the words of the events stored before the text
// index (migration 27), a batch a transaction, resuming where a stop left
// it. It runs once, when the store opens.
func (s *Store) backfillText(ctx context.Context, db *sql.DB) error {
	for {
		var next int64
		err := db.QueryRowContext(ctx, `SELECT next_seq FROM event_text_backfill WHERE id = 1`).Scan(&next)
		if errors.Is(err, sql.ErrNoRows) || err != nil && strings.Contains(err.Error(), "no such table") {
			return nil
		}
		if err != nil {
			return fmt.Errorf("text index backfill: %w", err)
		}
		if err := backfillTextBatch(ctx, db, next); err != nil {
			return fmt.Errorf("text index backfill from seq %d: %w", next, err)
		}
	}
}

func backfillTextBatch(ctx context.Context, db *sql.DB, next int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT seq, org, message, COALESCE(rule, ''), indicator FROM events
		WHERE seq >= ? ORDER BY seq LIMIT ?`, next, textBackfillBatch)
	if err != nil {
		return err
	}
	type row struct {
		seq  int64
		text []byte
	}
	var batch []row
	for rows.Next() {
		var r row
		var org int64
		var message, rule, indicator string
		if err := rows.Scan(&r.seq, &org, &message, &rule, &indicator); err != nil {
			rows.Close()
			return err
		}
		r.text = textOf(nil, org, message, rule, indicator)
		batch = append(batch, r)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	insert, err := tx.PrepareContext(ctx, `INSERT INTO event_text (rowid, words) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer insert.Close()
	for _, r := range batch {
		if len(r.text) == 0 {
			continue // indexed by no word, as ingest leaves it
		}
		if _, err := insert.ExecContext(ctx, r.seq, string(r.text)); err != nil {
			return err
		}
	}
	if len(batch) < textBackfillBatch {
		_, err = tx.ExecContext(ctx, `DELETE FROM event_text_backfill`)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE event_text_backfill SET next_seq = ?`, batch[len(batch)-1].seq+1)
	}
	if err != nil {
		return err
	}
	return tx.Commit()
}

// eventWords is what an event's row of event_text is made of.
type eventWords struct {
	seq, org, ts             int64
	message, rule, indicator string
}

// unindexText takes events out of the text index, before their rows go.
// On PostgreSQL (pg) an event's text row goes with the event: only the
// deletes are counted.
func unindexText(ctx context.Context, tx *sql.Tx, events []eventWords, pg bool) error {
	if len(events) == 0 {
		return nil
	}
	if err := countTextDeletes(ctx, tx); err != nil || pg {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO event_text (event_text, rowid, words) VALUES ('delete', ?, ?)`)
	if err != nil {
		return fmt.Errorf("unindex events' words: %w", err)
	}
	defer stmt.Close()
	var words []byte
	for _, e := range events {
		if words = textOf(words[:0], e.org, e.message, e.rule, e.indicator); len(words) == 0 {
			continue // indexed by no word, so not in the index
		}
		if _, err := stmt.ExecContext(ctx, e.seq, string(words)); err != nil {
			return fmt.Errorf("unindex event %d's words: %w", e.seq, err)
		}
	}
	return nil
}

// countTextDeletes notes that events left the text index: totals kept
// from before this transaction no longer hold (textCounts).
func countTextDeletes(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `UPDATE event_text_deletes SET n = n + 1`); err != nil {
		return fmt.Errorf("count the text index's deletes: %w", err)
	}
	return nil
}

// unindexOrgText takes every event of an organization being deleted out
// of the text index, a batch at a time (on PostgreSQL, pg, it counts one
// delete: the rows go with the events).
func unindexOrgText(ctx context.Context, tx *sql.Tx, orgID string, pg bool) error {
	if pg {
		return countTextDeletes(ctx, tx)
	}
	afterTS, after := int64(openLow), int64(-1)
	for {
		// Keyset on the time index's own order: each batch starts where the
		// last ended, so the organization is read once.
		batch, err := queryAll(ctx, tx, "events to unindex", `SELECT seq, org, message, COALESCE(rule, ''), indicator, ts FROM events
			INDEXED BY events_org_ts WHERE org = `+orgNum+` AND (ts, seq) > (?, ?) ORDER BY ts, seq LIMIT ?`,
			[]any{orgID, afterTS, after, textBackfillBatch},
			func(rows *sql.Rows) (eventWords, error) {
				var e eventWords
				return e, rows.Scan(&e.seq, &e.org, &e.message, &e.rule, &e.indicator, &e.ts)
			})
		if err != nil {
			return err
		}
		if err := unindexText(ctx, tx, batch, false); err != nil {
			return err
		}
		if len(batch) < textBackfillBatch {
			return nil
		}
		afterTS, after = batch[len(batch)-1].ts, batch[len(batch)-1].seq
	}
}
