package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"garrison/fault"
)

// The 401 messages of a missing or malformed Authorization header
// (docs/api.md); a credential's own refusals are account's.
const (
	MsgNoToken        = "No authorization token provided"
	MsgBadTokenFormat = "Invalid token format"
)

// unavailableRetryAfter is the Retry-After, in seconds, of a write the
// database could not take.
const unavailableRetryAfter = "5"

// statusOf is the one table from a fault's code to its HTTP status.
var statusOf = map[fault.Code]int{
	fault.Invalid:            http.StatusBadRequest,
	fault.Unauthorized:       http.StatusUnauthorized,
	fault.Forbidden:          http.StatusForbidden,
	fault.ReauthRequired:     http.StatusForbidden,
	fault.EmailUnverified:    http.StatusForbidden,
	fault.PlanRequired:       http.StatusForbidden,
	fault.RegistrationClosed: http.StatusForbidden,
	fault.NotFound:           http.StatusNotFound,
	fault.NotAllowed:         http.StatusMethodNotAllowed,
	fault.Conflict:           http.StatusConflict,
	fault.TooLarge:           http.StatusRequestEntityTooLarge,
	fault.QuotaExceeded:      http.StatusInsufficientStorage,
	fault.RateLimited:        http.StatusTooManyRequests,
	fault.Unavailable:        http.StatusServiceUnavailable,
	fault.HTTPSRequired:      http.StatusPermanentRedirect,
	fault.Cancelled:          499, // nginx's "client closed request"; nobody reads it
	fault.Internal:           http.StatusInternalServerError,
}

// Unauthorized is a 401 with one of the messages above.
func Unauthorized(message string) error { return fault.New(fault.Unauthorized, message) }

func forbidden(message string) error { return fault.New(fault.Forbidden, message) }

func notFound() error { return fault.New(fault.NotFound, "Resource not found") }

// tooLarge answers a body over its route's cap.
var tooLarge = fault.New(fault.TooLarge,
	fmt.Sprintf("Request body too large (limit %d MiB; %d MiB for event ingest)", MaxBodyBytes>>20, MaxIngestBodyBytes>>20))

var internalError = fault.New(fault.Internal, fault.InternalMessage)

// internalErrorBody is internalError's body, for when encoding an answer
// fails and writeError's own encoding cannot be trusted.
var internalErrorBody = func() []byte {
	b, _ := json.Marshal(errorBody{Error: internalError.Message, Code: string(internalError.Code)})
	return append(b, '\n')
}()

type errorBody struct {
	Success bool     `json:"success"`
	Error   string   `json:"error"`
	Code    string   `json:"code"`
	Fields  []string `json:"fields,omitempty"`
	// ExistingID names the resource a duplicate collided with.
	ExistingID string `json:"existing_id,omitempty"`
	// Line is the line of a submitted text a validation error concerns.
	Line int `json:"line,omitempty"`
	// State and Reason say why a service is degraded (the health check).
	State  string `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// answerFor is the client's view of err. Errors the client must not see in
// detail become a generic 500.
func answerFor(r *http.Request, err error) *fault.Error {
	if f := fault.From(err); f != nil {
		return f
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return tooLarge
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		return fault.New(fault.Cancelled, "Request cancelled")
	}
	return &fault.Error{Code: fault.Internal, Message: fault.InternalMessage, Cause: err}
}

// writeError is the one place an error becomes a response.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	f := answerFor(r, err)
	status, ok := statusOf[f.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status == http.StatusInternalServerError {
		log.ErrorContext(r.Context(), "request failed", "request_id", RequestID(r.Context()),
			"method", r.Method, "path", r.URL.Path, "err", err)
		f = internalError
	}
	switch status {
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="garrison"`)
	case http.StatusServiceUnavailable:
		if w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", unavailableRetryAfter)
		}
	}
	fields := f.Fields
	if f.Code == fault.Invalid && fields == nil {
		fields = []string{}
	}
	writeJSON(w, status, errorBody{Error: f.Message, Code: string(f.Code), Fields: fields, ExistingID: f.ExistingID, Line: f.Line,
		State: f.State, Reason: f.Reason})
}
