package handlers

import (
	"net/http"

	"garrison/store"
	"garrison/valid"
)

// Webhook sources.
const (
	sourceNative   = "native"
	sourceSuricata = "suricata"
)

// webhook ingests a sensor's push. native takes the POST /events shapes,
// optionally with DNS telemetry; suricata takes EVE JSON.
func (a *API) webhook(w http.ResponseWriter, r *http.Request) error {
	var events []store.NewEvent
	var dns []store.DNSQuery
	var err error
	switch r.PathValue("source") {
	case sourceNative:
		events, dns, err = a.decodeNative(r)
	case sourceSuricata:
		events, dns, err = a.decodeEVE(r)
	default:
		return valid.Field("source", "must be native or suricata")
	}
	if err != nil {
		return err
	}
	ids, err := a.Store.Ingest(r.Context(), principalFrom(r.Context()).OrgID, events, dns)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, struct {
		ingestView
		DNSQueries int `json:"dns_queries"`
	}{ingestView{Count: len(ids), IDs: ids}, len(dns)})
	return nil
}
