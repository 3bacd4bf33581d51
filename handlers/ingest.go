package handlers

import (
	"bytes"
	"net/http"
	"sync"

	"garrison/ingest"
	"garrison/valid"
)

// inflight bounds the bytes of ingest bodies held at once, so no number of
// concurrent senders can exhaust memory: past it they are told to retry.
type inflight struct {
	mu          sync.Mutex
	used, limit int64
}

func (b *inflight) acquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

func (b *inflight) release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
}

// busyRetryAfter is the Retry-After, in seconds, of an ingest refused for
// the in-flight cap: about the time one large batch takes to store.
const busyRetryAfter = "1"

// readIngest reserves room for the request's body (its Content-Length, or
// the cap when it does not say), then reads it; release gives the room back
// once the body is no longer held.
func (a *API) readIngest(w http.ResponseWriter, r *http.Request, kind string) (body []byte, release func(), err error) {
	size := r.ContentLength
	if size < 0 || size > MaxIngestBodyBytes {
		size = MaxIngestBodyBytes
	}
	if !a.ingestBudget.acquire(size) {
		w.Header().Set("Retry-After", busyRetryAfter)
		return nil, nil, &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable,
			Message: "Too much event data is being ingested at once; retry after " + busyRetryAfter + " second"}
	}
	release = func() { a.ingestBudget.release(size) }
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	body, err = readBodyFrom(r, buf, ingest.MediaTypes[kind]...)
	if err != nil {
		release()
		return nil, nil, err
	}
	return body, release, nil
}

type ingestView struct {
	Count int      `json:"count"`
	IDs   []string `json:"ids"`
}

type webhookView struct {
	ingestView
	DNSQueries int `json:"dns_queries"`
}

func (a *API) ingestEvents(w http.ResponseWriter, r *http.Request) error {
	got, err := a.ingestBody(w, r, ingest.KindEvents)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, ingestView{Count: len(got.IDs), IDs: got.IDs})
	return nil
}

// webhook ingests a sensor's push: native takes the POST /events shapes,
// optionally with DNS telemetry; suricata takes EVE JSON.
func (a *API) webhook(w http.ResponseWriter, r *http.Request) error {
	kind := r.PathValue("source")
	if kind != ingest.KindNative && kind != ingest.KindSuricata {
		return errUnknownSource
	}
	got, err := a.ingestBody(w, r, kind)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, webhookView{ingestView{Count: len(got.IDs), IDs: got.IDs}, got.DNSQueries})
	return nil
}

var errUnknownSource = valid.Field("source", "must be native or suricata")

func (a *API) ingestBody(w http.ResponseWriter, r *http.Request, kind string) (ingest.Receipt, error) {
	body, release, err := a.readIngest(w, r, kind)
	if err != nil {
		return ingest.Receipt{}, err
	}
	defer release()
	return a.Ingest.Ingest(r.Context(), principalFrom(r.Context()).OrgID, kind, body)
}
