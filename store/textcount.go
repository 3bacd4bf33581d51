package store

import (
	"context"
	"fmt"
	"sync"
)

// A text search's exact total walks every entry of its words' doclist:
// 2.5M entries of a common word took 130 ms in SQLite's own build, several
// times that here. The totals are kept, per match and organization, with
// the snapshot they held in: events join the index only with seqs above
// every committed one, and leave it only in a transaction that counts
// itself in event_text_deletes. So while that count is unchanged, a kept
// total plus the matches past its snapshot's newest seq is the total of a
// later snapshot, and the matches past it are read newest first, stopping
// at that seq.

// textCounts holds the kept totals.
type textCounts struct {
	mu   sync.Mutex
	kept map[string]textCount // by FTS5 match, which names the organization
}

// textCount is a total as one snapshot saw it.
type textCount struct {
	deletes int64 // event_text_deletes.n in that snapshot
	through int64 // the snapshot's newest seq
	n       int
}

// maxTextCounts bounds the totals kept; past it they are all dropped.
const maxTextCounts = 4096

// textTotal is the number of events matching match in the snapshot q,
// whose newest seq is newest and deletes count deletes.
func (s *Store) textTotal(ctx context.Context, q querier, match string, newest, deletes int64) (int, error) {
	s.textCounts.mu.Lock()
	kept, ok := s.textCounts.kept[match]
	s.textCounts.mu.Unlock()
	var n int
	switch {
	case ok && kept.deletes == deletes && kept.through == newest:
		return kept.n, nil
	case ok && kept.deletes == deletes && kept.through < newest:
		// Backwards from the newest, a doclist's tail is read without its
		// head (forwards, FTS5 walks the head to reach it).
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT rowid FROM event_text(?)
			WHERE rowid > ? ORDER BY rowid DESC LIMIT 9223372036854775807) AS tail`, match, kept.through).Scan(&n); err != nil {
			return 0, fmt.Errorf("count found events: %w", err)
		}
		n += kept.n
	default: // none kept, a delete since, or a snapshot older than the one kept
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM event_text(?)`, match).Scan(&n); err != nil {
			return 0, fmt.Errorf("count found events: %w", err)
		}
	}
	s.textCounts.mu.Lock()
	defer s.textCounts.mu.Unlock()
	if cur, ok := s.textCounts.kept[match]; ok && cur.deletes == deletes && cur.through >= newest {
		return n, nil // a newer snapshot's is kept already
	}
	if s.textCounts.kept == nil || len(s.textCounts.kept) >= maxTextCounts {
		s.textCounts.kept = map[string]textCount{}
	}
	s.textCounts.kept[match] = textCount{deletes: deletes, through: newest, n: n}
	return n, nil
}
