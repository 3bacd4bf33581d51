package store

import (
	"context"
	"database/sql"
	"fmt"

	"garrison/valid"
)

// renormalizeEmails brings addresses stored before IDNA normalisation
// (a Unicode domain, a decomposed character) to the form lookups now use,
// so that their owners can still sign in. Only rows holding non-ASCII
// text can differ. An address whose new form another account already has
// keeps its old one: that mailbox has two accounts, and an admin chooses.
// It runs at every start, not once as a migration: the normal form is the
// code's (valid.NormalEmail), which a release may refine, and the scan
// reads only the two account tables.
func renormalizeEmails(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("renormalise e-mail addresses: %w", err)
	}
	defer tx.Rollback()
	for _, table := range []string{"users", "invites"} {
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&exists); err != nil {
			return fmt.Errorf("renormalise %s e-mail addresses: %w", table, err)
		}
		if !exists { // a schema under test without accounts
			continue
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, email FROM `+table+` WHERE length(email) <> length(CAST(email AS BLOB))`)
		if err != nil {
			return fmt.Errorf("renormalise %s e-mail addresses: %w", table, err)
		}
		changed := map[string]string{}
		for rows.Next() {
			var id, email string
			if err := rows.Scan(&id, &email); err != nil {
				rows.Close()
				return fmt.Errorf("renormalise %s e-mail addresses: %w", table, err)
			}
			if normal := valid.NormalEmail(email); normal != email {
				changed[id] = normal
			}
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("renormalise %s e-mail addresses: %w", table, err)
		}
		for id, email := range changed {
			if _, err := tx.ExecContext(ctx, `UPDATE OR IGNORE `+table+` SET email = ? WHERE id = ?`, email, id); err != nil {
				return fmt.Errorf("renormalise %s e-mail address %s: %w", table, id, err)
			}
		}
	}
	return tx.Commit()
}
