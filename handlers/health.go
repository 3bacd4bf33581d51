package handlers

import (
	"encoding/json"
	"net/http"
)

// health answers the uptime check from the store's last probe of the
// database (every second), since a server that cannot read its data is not
// up; the check itself costs no query.
func (a *API) health(w http.ResponseWriter, r *http.Request) error {
	if a.Store.Healthy() != nil {
		return &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable, Message: unavailableReason}
	}
	// Reads answer, writes do not: degraded, with why.
	if reason := a.Store.WriteFailure(); reason != "" {
		w.Header()["Retry-After"] = []string{unavailableRetryAfter}
		writeJSON(w, http.StatusServiceUnavailable, degradedBody{Error: "Degraded: " + reason + "; reads answer, writes are refused",
			Code: CodeUnavailable, Status: "degraded", Reason: reason})
		return nil
	}
	setJSONType(w.Header())
	w.WriteHeader(http.StatusOK)
	w.Write(a.healthyBody)
	return nil
}

// healthyBody is the answer of a healthy server, encoded once: the uptime
// check is the most frequent request a server gets.
func healthyBody(version, registration string) []byte {
	b, _ := json.Marshal(dataBody{Success: true, Data: map[string]string{"status": "ok", "version": version, "registration": registration}})
	return append(b, '\n')
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

// degradedBody is the health answer while writes fail.
type degradedBody struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Code    string `json:"code"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
}
