package store

import "testing"

// Placeholders are numbered for PostgreSQL; what only looks like one (in
// quotes, comments, dollar quotes) is left as it is.
func TestRebind(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT * FROM t WHERE a = ? AND b = ?`, `SELECT * FROM t WHERE a = $1 AND b = $2`},
		{`WHERE vendor = ?1 OR product = ?1 ORDER BY id DESC LIMIT ?2`, `WHERE vendor = $1 OR product = $1 ORDER BY id DESC LIMIT $2`},
		{`SELECT '?', "a?b", ? FROM t`, `SELECT '?', "a?b", $1 FROM t`},
		{`SELECT 'it''s ?', ?`, `SELECT 'it''s ?', $1`},
		{"SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2"},
		{`SELECT /* ? */ ?`, `SELECT /* ? */ $1`},
		{`DO $$ BEGIN PERFORM '?'; END $$; SELECT ?`, `DO $$ BEGIN PERFORM '?'; END $$; SELECT $1`},
		{`CREATE FUNCTION f() RETURNS int AS $body$ SELECT ? $body$`, `CREATE FUNCTION f() RETURNS int AS $body$ SELECT ? $body$`},
		{`VALUES (?, ?), (?, ?)`, `VALUES ($1, $2), ($3, $4)`},
		// A bare ? after numbered ones is the next after the highest, as in SQLite.
		{`WHERE o.provider_id = ?1 AND (?2 = '' OR a.user_id = ?2) AND status = ? AND severity IN (?, ?)`,
			`WHERE o.provider_id = $1 AND ($2 = '' OR a.user_id = $2) AND status = $3 AND severity IN ($4, $5)`},
		{`SELECT ?, ?3, ?`, `SELECT $1, $3, $4`},
		{`SELECT 'unterminated ?`, `SELECT 'unterminated ?`},
		{`SELECT ? /* unterminated`, `SELECT $1 /* unterminated`},
		// SQLite's planner hints are dropped; words that only contain them are not.
		{`SELECT seq FROM agent_runs INDEXED BY agent_runs_queued_org WHERE status = ?`, `SELECT seq FROM agent_runs  WHERE status = $1`},
		{"FROM events e NOT INDEXED\n WHERE x NOT IN (?)", "FROM events e \n WHERE x NOT IN ($1)"},
		{`SELECT reindexed_by, notindexed FROM t WHERE 'INDEXED BY x' = ?`, `SELECT reindexed_by, notindexed FROM t WHERE 'INDEXED BY x' = $1`},
		{`SELECT not_indexed, NOT x FROM t`, `SELECT not_indexed, NOT x FROM t`},
	} {
		if got := rebind(c.in); got != c.want {
			t.Errorf("rebind(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
