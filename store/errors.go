package store

import (
	"errors"
	"fmt"

	"garrison/fault"
	"garrison/wording"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The store's sentinel errors, all of them: the only errors callers are
// meant to test for. Each is a fault carrying what the client is told.
var (
	// ErrNotFound: no such row in the caller's organization.
	ErrNotFound = fault.New(fault.NotFound, "Resource not found")
	// ErrSearchTooLong: a search that reads every event of its period did
	// not finish in searchTimeout (or waited that long for its turn).
	ErrSearchTooLong = fault.New(fault.Unavailable, "This search reads every event of its period and took longer than "+
		"10 seconds: narrow it with a time range (from, to), words (q), an address (src_ip, dst_ip) or a user")
	// ErrEmailTaken: another account already has the e-mail address.
	ErrEmailTaken = fault.New(fault.Conflict, "This e-mail address already has a Garrison account")
	// ErrInvalidToken: a reset, verification or invite token that is unknown,
	// used, expired or voided.
	ErrInvalidToken = &fault.Error{Code: fault.Invalid, Message: "Invalid request: token is invalid, expired or already used",
		Fields: []string{"token"}}
	// ErrLastAdmin: the change would leave an organization without an admin.
	ErrLastAdmin = fault.New(fault.Conflict, "The organization's last admin cannot be demoted or removed (an organization keeps "+
		"an admin who was not made through an API key's invitation); promote another member first")
	// ErrAlreadyMember: the account belongs to the organization already.
	ErrAlreadyMember = fault.New(fault.Conflict, "This address's account is already a member of this organization")
	// ErrClientOfClient: providers and clients are one level deep.
	ErrClientOfClient = fault.New(fault.Conflict, "A client organization cannot have clients of its own; its provider adds clients")
	// ErrNotStaff: only a provider's admins and technicians act in clients.
	ErrNotStaff = fault.New(fault.Conflict, "Only the provider's admins and technicians are assigned clients; make the member a technician first")
	// ErrProviderHasClients: a provider is deleted after its clients.
	ErrProviderHasClients = fault.New(fault.Conflict, "This organization is a provider with clients: offboard them first (DELETE /api/clients/{id})")
	// ErrLeadNotWon: only a won lead becomes a client.
	ErrLeadNotWon = fault.New(fault.Conflict, "Only a won lead becomes a client: mark it won first")
	// ErrLeadConverted: the lead became a client already.
	ErrLeadConverted = fault.New(fault.Conflict, "This lead became a client already; its history names the client")
	// ErrSessionEnded: the session token was revoked already (a concurrent
	// refresh or logout).
	ErrSessionEnded = fault.New(fault.Unauthorized, "Token invalidated. Please log in again.")
	// ErrDuplicateKey: a new API key collided with a stored one.
	ErrDuplicateKey = fault.New(fault.Conflict, "The new key collided with another; try again")
	// ErrAlertDuplicate: reopening the alert would give its fingerprint two
	// open alerts.
	ErrAlertDuplicate = fault.New(fault.Conflict, "Another open alert already collects these events; update that one instead")
	// ErrRunEnded: the agent run already finished and cannot be cancelled.
	ErrRunEnded = fault.New(fault.Conflict, "The run has already ended; only queued and running runs can be cancelled")
	// ErrNoSuchAssignee: the assignee is not a user of the organization.
	ErrNoSuchAssignee = &fault.Error{Code: fault.Invalid, Message: "Invalid request: assignee must be the id of a user of this organization",
		Fields: []string{"assignee"}}
	// ErrUnavailable: the database cannot take writes now (the disk is
	// full, or it stayed locked past the busy timeout); retry later.
	ErrUnavailable = fault.New(fault.Unavailable,
		"The server cannot store changes right now (its disk is full or its database busy); nothing was changed, retry shortly")
	// ErrAssetLimit: the inventory would exceed MaxAssets.
	ErrAssetLimit = fault.New(fault.Conflict, fmt.Sprintf("The inventory holds its maximum of %d assets; remove assets before adding more", MaxAssets))
	// ErrAssetHostname: another asset of the organization has the hostname.
	ErrAssetHostname = fault.New(fault.Conflict, "Another asset of the organization has this hostname")
	// ErrFindingFixed refuses a decision on a fixed finding: matching
	// reopens it if the software is vulnerable again.
	ErrFindingFixed = fault.New(fault.Conflict, "The finding is fixed: it reopens by itself if the software is vulnerable again")
	// ErrWatchLimit: the watchlist would exceed MaxWatched.
	ErrWatchLimit = fault.New(fault.Conflict, fmt.Sprintf("The watchlist holds its maximum of %d CVEs; remove entries before adding more", MaxWatched))
	// ErrImportRunning: another intelligence import is running (in any process).
	ErrImportRunning = fault.New(fault.Conflict, "Another intelligence import is running; try again when it has finished")
	// ErrProspectLimit: the import would exceed MaxProspectsPerOrg.
	ErrProspectLimit = fault.New(fault.Conflict, "The organization holds its maximum of "+wording.Thousands(MaxProspectsPerOrg)+" prospects")
)

// unavailableReason names a write failure that passes with time (space
// freed, a lock released), or "" for any other error.
func unavailableReason(err error) string {
	if r := pgUnavailableReason(err); r != "" {
		return r
	}
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

// spaceReason reports whether err is a full disk or a storage that failed
// to write, rather than a lock.
func spaceReason(err error) bool {
	if pgDiskFull(err) {
		return true
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_FULL || code == sqlite3.SQLITE_IOERR
}

// isUniqueViolation reports whether err is a UNIQUE or PRIMARY KEY constraint
// failure, checked by the driver's result code rather than its message.
func isUniqueViolation(err error) bool {
	if pgUniqueViolation(err) {
		return true
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code()
	return code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// IsUnavailable says whether err is a write the database could not take
// for want of space or a lock (ErrUnavailable, or the driver's own error
// from outside write, as in Open's migrations).
func IsUnavailable(err error) bool {
	return errors.Is(err, ErrUnavailable) || unavailableReason(err) != ""
}

// Contact points and routing rules.
var (
	// ErrNotifyChannelLimit: the organization holds MaxNotifyChannels.
	ErrNotifyChannelLimit = fault.New(fault.Conflict, fmt.Sprintf("The organization holds its maximum of %d contact points; delete one first", MaxNotifyChannels))
	// ErrNotifyRuleLimit: the organization holds MaxNotifyRules.
	ErrNotifyRuleLimit = fault.New(fault.Conflict, fmt.Sprintf("The organization holds its maximum of %d notification rules; delete one first", MaxNotifyRules))
	// ErrNotifyNameTaken: another contact point or rule has the name.
	ErrNotifyNameTaken = fault.New(fault.Conflict, "Another one of the organization's contact points or rules has this name")
	// ErrNoSuchChannel: a rule names a contact point the organization lacks.
	ErrNoSuchChannel = &fault.Error{Code: fault.Invalid, Message: "Invalid request: channels must be ids of this organization's contact points",
		Fields: []string{"channels"}}
)

// channelInUse refuses deleting a contact point a rule names.
func channelInUse(rule string) error {
	return fault.New(fault.Conflict, fmt.Sprintf("The contact point is used by the rule %q; change or delete that rule first", rule))
}
