package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"garrison/store"
)

// Error codes of the error envelope.
const (
	CodeValidation      = "validation_error"
	CodeUnauthorized    = "unauthorized"
	CodeForbidden       = "forbidden"
	CodeEmailUnverified = "email_unverified"
	CodePlanRequired    = "plan_upgrade_required"
	CodeNotFound        = "not_found"
	CodeNotAllowed      = "method_not_allowed"
	CodeConflict        = "conflict"
	CodeTooLarge        = "payload_too_large"
	CodeRateLimited     = "rate_limited"
	CodeInternal        = "internal_error"
	CodeUnavailable     = "service_unavailable"
	internalMessage     = "Internal server error"
	notFoundMessage     = "Resource not found"
	tooLargeMessage     = "Request body too large (limit 1 MiB; 16 MiB for event ingest)"
	unavailableReason   = "Service unavailable"
)

// The exact 401 messages of spec §5.
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
	Status  int
	Code    string
	Message string
	Fields  []string
	Cause   error
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

func conflict(message string) error {
	return &Error{Status: http.StatusConflict, Code: CodeConflict, Message: message}
}

func notFound() error {
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: notFoundMessage}
}

// invalid is a validation_error naming one field.
func invalid(field, problem string) error {
	var p problems
	p.add(field, problem)
	return p.err()
}

type errorBody struct {
	Success bool     `json:"success"`
	Error   string   `json:"error"`
	Code    string   `json:"code"`
	Fields  []string `json:"fields,omitempty"`
}

// writeError is the one place an error becomes a response. Errors the client
// must not see in detail are logged with the request id and answered generically.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var apiErr *Error
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &apiErr):
	case errors.Is(err, store.ErrNotFound):
		apiErr = &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: notFoundMessage}
	case errors.As(err, &tooLarge):
		apiErr = &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeTooLarge, Message: tooLargeMessage}
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// The client went away; nobody reads this response.
		apiErr = &Error{Status: 499, Code: CodeInternal, Message: "Request cancelled"}
	default:
		apiErr = &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: internalMessage, Cause: err}
	}
	if apiErr.Status >= 500 {
		log.ErrorContext(r.Context(), "request failed", "request_id", RequestID(r.Context()),
			"method", r.Method, "path", r.URL.Path, "err", err)
	}
	if apiErr.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="garrison"`)
	}
	if apiErr.Code == CodeValidation && apiErr.Fields == nil {
		apiErr.Fields = []string{}
	}
	writeJSON(w, apiErr.Status, errorBody{Error: apiErr.Message, Code: apiErr.Code, Fields: apiErr.Fields})
}

// problems collects invalid fields and says what is wrong with each.
type problems struct {
	fields []string
	msgs   []string
	seen   map[string]bool
}

func (p *problems) add(field, problem string) {
	if p.seen[field] {
		return // the first problem with a field is the one worth reporting
	}
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[field] = true
	p.fields = append(p.fields, field)
	p.msgs = append(p.msgs, field+" "+problem)
}

// check adds the problem when ok is false.
func (p *problems) check(ok bool, field, problem string) {
	if !ok {
		p.add(field, problem)
	}
}

func (p *problems) err() error {
	if len(p.fields) == 0 {
		return nil
	}
	return &Error{Status: http.StatusBadRequest, Code: CodeValidation,
		Message: "Invalid request: " + strings.Join(p.msgs, "; "), Fields: p.fields}
}
