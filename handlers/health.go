package handlers

import (
	"context"
	"net/http"
	"time"
)

// health answers the uptime check; it also asks the database, since a
// server that cannot read its data is not up.
func (a *API) health(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := a.Store.Ping(ctx); err != nil {
		a.Log.ErrorContext(ctx, "health check: database", "err", err)
		return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: unavailableReason}
	}
	writeData(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// openAPI serves the API's OpenAPI document as is, not in the envelope, so
// tools can read it directly.
func (a *API) openAPI(w http.ResponseWriter, r *http.Request) error {
	if len(a.OpenAPI) == 0 {
		return notFound()
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(a.OpenAPI)
	return nil
}
