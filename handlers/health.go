package handlers

import (
	"encoding/json"
	"net/http"

	"garrison/fault"
)

// health answers the uptime check from the store's last probe of the
// database (every second), since a server that cannot read its data is not
// up; the check itself costs no query.
func (a *API) health(w http.ResponseWriter, r *http.Request) error {
	down, reason := a.Dashboard.Health()
	if down {
		return fault.New(fault.Unavailable, "Service unavailable")
	}
	// Reads answer, writes do not: degraded, with why.
	if reason != "" {
		return &fault.Error{Code: fault.Unavailable, Message: "Degraded: " + reason + "; reads answer, writes are refused",
			State: "degraded", Reason: reason}
	}
	// Serving, but alerts are not reaching a contact point: still 200 (a
	// load balancer must not take the node out for a tenant's webhook),
	// saying why.
	if a.Dispatch != nil {
		if why := a.Dispatch.Degraded(); why != "" {
			writeData(w, http.StatusOK, map[string]string{"status": "degraded", "reason": why, "version": a.Version,
				"registration": a.Accounts.Registration()})
			return nil
		}
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
