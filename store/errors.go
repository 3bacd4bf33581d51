package store

import (
	"errors"
	"slices"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The store's sentinel errors, all of them: the only errors callers are
// meant to test for. handlers.writeError maps each to its answer.
var (
	// ErrNotFound: no such row in the caller's organization.
	ErrNotFound = errors.New("not found")
	// ErrEmailTaken: another account already has the e-mail address.
	ErrEmailTaken = errors.New("e-mail address already has an account")
	// ErrInvalidToken: a reset, verification or invite token that is unknown,
	// used, expired or voided.
	ErrInvalidToken = errors.New("invalid or expired token")
	// ErrLastAdmin: the change would leave an organization without an admin.
	ErrLastAdmin = errors.New("an organization must keep at least one admin")
	// ErrSessionEnded: the session token was revoked already (a concurrent
	// refresh or logout).
	ErrSessionEnded = errors.New("session already ended")
	// ErrDuplicateKey: a new API key collided with a stored one.
	ErrDuplicateKey = errors.New("api key already exists")
	// ErrAlertDuplicate: reopening the alert would give its fingerprint two
	// open alerts.
	ErrAlertDuplicate = errors.New("another open alert has the same fingerprint")
	// ErrRunEnded: the agent run already finished and cannot be cancelled.
	ErrRunEnded = errors.New("agent run already ended")
	// ErrNoSuchAssignee: the assignee is not a user of the organization.
	ErrNoSuchAssignee = errors.New("assignee is not a member of the organization")
	// ErrUnavailable: the database cannot take writes now (the disk is
	// full, or it stayed locked past the busy timeout); retry later.
	ErrUnavailable = errors.New("the database cannot take writes now")
	// ErrAssetLimit: the inventory would exceed MaxAssets.
	ErrAssetLimit = errors.New("the organization's inventory is full")
	// ErrAssetHostname: another asset of the organization has the hostname.
	ErrAssetHostname = errors.New("another asset has this hostname")
	// ErrWatchLimit: the watchlist would exceed MaxWatched.
	ErrWatchLimit = errors.New("the watchlist is full")
	// ErrImportRunning: another intelligence import is running (in any process).
	ErrImportRunning = errors.New("another import is running")
	// ErrProspectLimit: the import would exceed MaxProspectsPerOrg.
	ErrProspectLimit = errors.New("the organization holds its maximum of 100,000 prospects")
)

// unavailableReason names a write failure that passes with time (space
// freed, a lock released), or "" for any other error.
func unavailableReason(err error) string {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return ""
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return "the disk is full"
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return "the database is locked by another writer"
	case sqlite3.SQLITE_IOERR:
		return "the database's storage failed to write"
	}
	return ""
}

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

// PlanError refuses a feature the organization's plan does not include.
type PlanError struct {
	Feature string // "The msp-hunter agent", "Outreach"
	Needs   string // the lowest plan that includes it
	Has     string // the organization's plan
}

func (e *PlanError) Error() string {
	included := Plans[slices.Index(Plans, e.Needs):]
	return e.Feature + " is included in the " + strings.Join(included, " and ") + " plans; this organization is on " + e.Has
}

// RequirePlan refuses a feature below the plan that includes it.
func RequirePlan(feature, needs, has string) error {
	if slices.Index(Plans, has) < slices.Index(Plans, needs) {
		return &PlanError{Feature: feature, Needs: needs, Has: has}
	}
	return nil
}

// IsUnavailable says whether err is a write the database could not take
// for want of space or a lock (ErrUnavailable, or the driver's own error
// from outside write, as in Open's migrations).
func IsUnavailable(err error) bool {
	return errors.Is(err, ErrUnavailable) || unavailableReason(err) != ""
}
