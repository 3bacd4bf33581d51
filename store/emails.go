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
	// The scan is a plain read: an appliance whose addresses are all normal
	// (the usual start, and every CLI command beside a busy server) takes
	// no write lock.
	type change struct{ table, id, from, to string }
	var changes []change
	for _, table := range []string{"users", "invites"} {
		var exists bool
		if err := db.QueryRowContext(ctx, `SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&exists); err != nil {
			return fmt.Errorf("renormalise %s e-mail addresses: %w", table, err)
		}
		if !exists { // a schema under test without accounts
			continue
		}
		rows, err := db.QueryContext(ctx, `SELECT id, email FROM `+table+` WHERE length(email) <> length(CAST(email AS BLOB))`)
		if err != nil {
			return fmt.Errorf("renormalise %s e-mail addresses: %w", table, err)
		}
		for rows.Next() {
			var id, email string
			if err := rows.Scan(&id, &email); err != nil {
				rows.Close()
				return fmt.Errorf("renormalise %s e-mail addresses: %w", table, err)
			}
			if normal := valid.NormalEmail(email); normal != email {
				changes = append(changes, change{table, id, email, normal})
			}
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("renormalise %s e-mail addresses: %w", table, err)
		}
	}
	if len(changes) == 0 {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("renormalise e-mail addresses: %w", err)
	}
	defer tx.Rollback()
	for _, c := range changes {
		// Only a row still holding the address read: another process may
		// have changed it since.
		if _, err := tx.ExecContext(ctx, `UPDATE OR IGNORE `+c.table+` SET email = ? WHERE id = ? AND email = ?`, c.to, c.id, c.from); err != nil {
			return fmt.Errorf("renormalise %s e-mail address %s: %w", c.table, c.id, err)
		}
	}
	return tx.Commit()
}
