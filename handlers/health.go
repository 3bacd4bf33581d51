package handlers

import (
	"encoding/json"
	"net/http"

	"garrison/fault"
)

// health answers the uptime check from the store's last probe of the
// database (every second), since a server that cannot read its data is not
// up; the check itself costs no query. It names the node that answered, so
// a cluster's operator sees which one a load balancer reached.
func (a *API) health(w http.ResponseWriter, r *http.Request) error {
	if a.Node != "" {
		w.Header().Set("X-Garrison-Node", a.Node)
	}
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
			setJSONType(w.Header())
			w.WriteHeader(http.StatusOK)
			w.Write(a.healthBody("degraded", why))
			return nil
		}
	}
	setJSONType(w.Header())
	w.WriteHeader(http.StatusOK)
	w.Write(a.healthyBody)
	return nil
}

// healthView is the health check's answer.
type healthView struct {
	Status       string `json:"status"`
	Reason       string `json:"reason,omitempty"`
	Version      string `json:"version"`
	Registration string `json:"registration"`
	Node         string `json:"node,omitempty"`
	Database     string `json:"database"`
}

// healthBody is the answer of a serving node; a healthy one's is encoded
// once (a.healthyBody): the uptime check is the most frequent request a
// server gets.
func (a *API) healthBody(status, reason string) []byte {
	v := healthView{Status: status, Reason: reason, Version: a.Version, Registration: a.Accounts.Registration(), Node: a.Node}
	if a.Store != nil { // nil: an API built to list its routes
		v.Database = a.Store.Engine()
	}
	b, _ := json.Marshal(dataBody{Success: true, Data: v})
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
