// Package fault is the one error a client may read: a public code, a
// message written for people, and the fields at fault. Every layer returns
// one (or an error wrapping one) for what the caller did wrong or what
// cannot be done now; any other error is internal, and no client reads its
// text. The HTTP layer turns a code into a status with one table.
package fault

import "errors"

// Code is the machine-readable kind of a fault: the envelope's "code".
type Code string

// The codes of docs/api.md.
const (
	Invalid            Code = "validation_error"
	Unauthorized       Code = "unauthorized"
	Forbidden          Code = "forbidden"
	ReauthRequired     Code = "reauthentication_required" // a password given recently is needed
	EmailUnverified    Code = "email_unverified"
	PlanRequired       Code = "plan_upgrade_required"
	RegistrationClosed Code = "registration_closed"
	NotFound           Code = "not_found"
	NotAllowed         Code = "method_not_allowed"
	Conflict           Code = "conflict"
	TooLarge           Code = "payload_too_large"
	QuotaExceeded      Code = "storage_quota_exceeded" // the organization's storage quota is full
	RateLimited        Code = "rate_limited"
	Unavailable        Code = "unavailable"
	HTTPSRequired      Code = "https_required"
	Cancelled          Code = "cancelled" // the client went away; nobody reads the answer
	Internal           Code = "internal_error"
)

// InternalMessage is all a client learns of an internal error.
const InternalMessage = "Internal server error"

// Error is a fault: what the client is told. Cause is for the log only.
type Error struct {
	Code    Code
	Message string
	// Fields names the invalid fields of an Invalid fault.
	Fields []string
	// ExistingID names the resource a duplicate collided with.
	ExistingID string
	// Line is the line of a submitted text (a detection rule's YAML) an
	// Invalid fault concerns, 0 when none.
	Line int
	// State and Reason describe a degraded service (the health check's
	// answer while writes fail).
	State, Reason string
	Cause         error
}

// New is a fault with a code and a message.
func New(code Code, message string) *Error { return &Error{Code: code, Message: message} }

func (e *Error) Error() string {
	if e.Cause != nil {
		return string(e.Code) + ": " + e.Message + ": " + e.Cause.Error()
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Cause }

// Fault makes *Error a Public error.
func (e *Error) Fault() *Error { return e }

// Public is an error that knows what its client is told: a fault itself,
// or a domain error (a validation error, a plan refusal) that builds one.
type Public interface {
	error
	Fault() *Error
}

// From is what err tells the client: the outermost Public error err
// wraps, or nil when it wraps none (an internal error).
func From(err error) *Error {
	var p Public
	if errors.As(err, &p) {
		return p.Fault()
	}
	return nil
}

// Has reports whether err is a fault with the code.
func Has(err error, code Code) bool {
	f := From(err)
	return f != nil && f.Code == code
}
