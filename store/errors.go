package store

import (
	"errors"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Sentinel errors: the only errors callers are meant to test for.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
)

// isUniqueViolation reports whether err is a UNIQUE or PRIMARY KEY constraint
// failure, checked by the driver's result code rather than its message.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code()
	return code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// normalizeEmail is the one form e-mail addresses are stored and looked up in.
func normalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
