package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"garrison/account"
	"garrison/compliance"
	"garrison/intel"
	"garrison/store"
	"garrison/ticket"
	"garrison/valid"
)

// Error codes of the error envelope.
const (
	CodeValidation      = "validation_error"
	CodeUnauthorized    = "unauthorized"
	CodeForbidden       = "forbidden"
	CodeEmailUnverified = "email_unverified"
	CodePlanRequired    = "plan_upgrade_required"
	CodeRegClosed       = "registration_closed"
	CodeNotFound        = "not_found"
	CodeNotAllowed      = "method_not_allowed"
	CodeConflict        = "conflict"
	CodeTooLarge        = "payload_too_large"
	CodeRateLimited     = "rate_limited"
	CodeInternal        = "internal_error"
	CodeUnavailable     = "unavailable"
	internalMessage     = "Internal server error"
	notFoundMessage     = "Resource not found"
	tooLargeMessage     = "Request body too large (limit 1 MiB; 16 MiB for event ingest)"
	unavailableReason   = "Service unavailable"
	// unavailableRetryAfter is the Retry-After, in seconds, of a write the
	// database could not take.
	unavailableRetryAfter = "5"
)

// The exact 401 messages the API promises (docs/api.md).
const (
	MsgNoToken          = "No authorization token provided"
	MsgBadTokenFormat   = "Invalid token format"
	MsgTokenExpired     = "Token expired. Please log in again."
	MsgTokenInvalidated = "Token invalidated. Please log in again."
	MsgInvalidToken     = "Invalid token"
	MsgInvalidAPIKey    = "Invalid API key"
	MsgAPIKeyExpired    = "API key expired"
	MsgBadLogin         = "Invalid email or password"
)

// Error is an error with everything the client may see: status, code,
// message and invalid fields. Cause is for the log only.
type Error struct {
	Status     int
	Code       string
	Message    string
	Fields     []string
	ExistingID string // a duplicate's existing resource
	Cause      error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.Status, e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// Unauthorized is a 401 with one of the messages above.
func Unauthorized(message string) error {
	return &Error{Status: http.StatusUnauthorized, Code: CodeUnauthorized, Message: message}
}

func forbidden(message string) error {
	return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Message: message}
}

func notFound() error {
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: notFoundMessage}
}

// answers maps the sentinel errors of the layers below to what the client
// is told; the first that err wraps wins.
var answers = []struct {
	err    error
	answer Error
}{
	{store.ErrNotFound, Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: notFoundMessage}},
	{store.ErrEmailTaken, Error{Status: http.StatusConflict, Code: CodeConflict,
		Message: "This e-mail address already has a Garrison account"}},
	{store.ErrLastAdmin, Error{Status: http.StatusConflict, Code: CodeConflict,
		Message: "The organization's last admin cannot be demoted or removed; promote another member first"}},
	{store.ErrSessionEnded, Error{Status: http.StatusUnauthorized, Code: CodeUnauthorized, Message: MsgTokenInvalidated}},
	{store.ErrDuplicateKey, Error{Status: http.StatusConflict, Code: CodeConflict, Message: "The new key collided with another; try again"}},
	{store.ErrAlertDuplicate, Error{Status: http.StatusConflict, Code: CodeConflict,
		Message: "Another open alert already collects these events; update that one instead"}},
	{store.ErrRunEnded, Error{Status: http.StatusConflict, Code: CodeConflict,
		Message: "The run has already ended; only queued and running runs can be cancelled"}},
	{store.ErrNoSuchAssignee, Error{Status: http.StatusBadRequest, Code: CodeValidation,
		Message: "Invalid request: assignee must be the id of a user of this organization", Fields: []string{"assignee"}}},
	{ticket.ErrMemberLimits, Error{Status: http.StatusForbidden, Code: CodeForbidden,
		Message: "Members may only resolve, close or reopen their tickets; an admin changes priority, assignee and the rest"}},
	{account.ErrRegistrationClosed, Error{Status: http.StatusForbidden, Code: CodeRegClosed,
		Message: "Registration is closed on this appliance; its operator creates organizations (garrison org create)"}},
	{account.ErrInviteRequired, Error{Status: http.StatusForbidden, Code: CodeRegClosed,
		Message: "Registration on this appliance needs an invitation: send the invite_token an admin's invitation mail carries"}},
	{account.ErrUnverifiedSender, Error{Status: http.StatusForbidden, Code: CodeEmailUnverified,
		Message: "Confirm your e-mail address (POST /api/auth/verify-email) before inviting others"}},
	{store.ErrUnavailable, Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable,
		Message: "The server cannot store changes right now (its disk is full or its database busy); nothing was changed, retry shortly"}},
	{store.ErrWatchLimit, Error{Status: http.StatusConflict, Code: CodeConflict,
		Message: "The watchlist holds its maximum of 2000 CVEs; remove entries before adding more"}},
	{store.ErrAssetLimit, Error{Status: http.StatusConflict, Code: CodeConflict,
		Message: "The inventory holds its maximum of 10000 assets; remove assets before adding more"}},
	{store.ErrAssetHostname, Error{Status: http.StatusConflict, Code: CodeConflict,
		Message: "Another asset of the organization has this hostname"}},
	{store.ErrProspectLimit, Error{Status: http.StatusConflict, Code: CodeConflict,
		Message: "The organization holds its maximum of 100,000 prospects"}},
	{intel.ErrImportRunning, Error{Status: http.StatusConflict, Code: CodeConflict,
		Message: "Another intelligence import is running; try again when it has finished"}},
	{intel.ErrImportTooLarge, Error{Status: http.StatusRequestEntityTooLarge, Code: CodeTooLarge,
		Message: "An import sent to the API is at most 256 MiB; import larger files with garrison intel import"}},
	{intel.ErrImportForbidden, Error{Status: http.StatusForbidden, Code: CodeForbidden,
		Message: "Only administrators of the appliance operator's organization may import intelligence"}},
	{store.ErrInvalidToken, Error{Status: http.StatusBadRequest, Code: CodeValidation,
		Message: "Invalid request: token is invalid, expired or already used", Fields: []string{"token"}}},
}

type errorBody struct {
	Success bool     `json:"success"`
	Error   string   `json:"error"`
	Code    string   `json:"code"`
	Fields  []string `json:"fields,omitempty"`
	// ExistingID names the resource a duplicate collided with.
	ExistingID string `json:"existing_id,omitempty"`
}

// answerFor is the client's view of err. Errors the client must not see in
// detail become a generic 500.
func answerFor(r *http.Request, err error) *Error {
	var apiErr *Error
	var invalid *valid.Error
	var tooLarge *http.MaxBytesError
	var planErr *store.PlanError
	var moveErr *ticket.MoveError
	var conflict *compliance.ConflictError
	var watched *store.WatchExistsError
	switch {
	case errors.As(err, &apiErr):
		return apiErr
	case errors.As(err, &invalid):
		return &Error{Status: http.StatusBadRequest, Code: CodeValidation, Message: invalid.Error(), Fields: invalid.Fields()}
	case errors.As(err, &planErr):
		return &Error{Status: http.StatusForbidden, Code: CodePlanRequired, Message: planErr.Error()}
	case errors.As(err, &moveErr):
		return &Error{Status: http.StatusConflict, Code: CodeConflict, Message: moveErr.Error()}
	case errors.As(err, &conflict):
		return &Error{Status: http.StatusConflict, Code: CodeConflict, Message: conflict.Error()}
	case errors.As(err, &watched):
		return &Error{Status: http.StatusConflict, Code: CodeConflict, Message: watched.Error(), ExistingID: watched.ID}
	case errors.As(err, &tooLarge):
		return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeTooLarge, Message: tooLargeMessage}
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// The client went away; nobody reads this response.
		return &Error{Status: 499, Code: CodeInternal, Message: "Request cancelled"}
	}
	for _, a := range answers {
		if errors.Is(err, a.err) {
			answer := a.answer
			return &answer
		}
	}
	return &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: internalMessage, Cause: err}
}

// writeError is the one place an error becomes a response.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	apiErr := answerFor(r, err)
	if apiErr.Status == http.StatusInternalServerError {
		log.ErrorContext(r.Context(), "request failed", "request_id", RequestID(r.Context()),
			"method", r.Method, "path", r.URL.Path, "err", err)
	}
	if apiErr.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="garrison"`)
	}
	if apiErr.Status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", unavailableRetryAfter)
	}
	fields := apiErr.Fields
	if apiErr.Code == CodeValidation && fields == nil {
		fields = []string{}
	}
	writeJSON(w, apiErr.Status, errorBody{Error: apiErr.Message, Code: apiErr.Code, Fields: fields, ExistingID: apiErr.ExistingID})
}
