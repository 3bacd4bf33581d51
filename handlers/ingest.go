package handlers

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sync"

	"garrison/fault"
	"garrison/ingest"
	"garrison/valid"
)

// inflight bounds the bytes of ingest bodies held at once, so no number of
// concurrent senders can exhaust memory: past it they are told to retry.
// One organization may hold at most half of it (or one largest body), so
// no tenant can take it all.
type inflight struct {
	mu          sync.Mutex
	used, limit int64
	byOrg       map[string]int64
}

func newInflight(limit int64) inflight {
	return inflight{limit: limit, byOrg: map[string]int64{}}
}

func (b *inflight) orgLimit() int64 { return min(b.limit, max(b.limit/2, MaxIngestBodyBytes)) }

func (b *inflight) acquire(org string, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit || b.byOrg[org]+n > b.orgLimit() {
		return false
	}
	b.used += n
	b.byOrg[org] += n
	return true
}

func (b *inflight) release(org string, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if b.byOrg[org] -= n; b.byOrg[org] <= 0 {
		delete(b.byOrg, org)
	}
}

// ingestStep is how much of the budget a body takes at a time, as its bytes
// arrive: a sender that stalls holds only what it has sent.
const ingestStep = 256 << 10

// busyRetryAfter is the Retry-After, in seconds, of an ingest refused for
// the in-flight cap: about the time one large batch takes to store.
const busyRetryAfter = "1"

func errBusy(w http.ResponseWriter) error {
	w.Header().Set("Retry-After", busyRetryAfter)
	return fault.New(fault.Unavailable, "Too much event data is being ingested at once; retry after "+busyRetryAfter+" second")
}

// discardBody reads what remains of a refused body (up to its route's cap)
// into nothing, holding no memory: an HTTP/1.1 client that sends its whole
// body before reading the answer would otherwise meet a closed connection
// instead of the 503 and its Retry-After.
func discardBody(r *http.Request) {
	io.Copy(io.Discard, r.Body)
}

// ingestMediaTypes are the content types each kind of body may come as.
var ingestMediaTypes = map[string][]string{
	ingest.KindEvents:   {"application/json"},
	ingest.KindNative:   {"application/json"},
	ingest.KindSuricata: jsonLines,
	ingest.KindWazuh:    jsonLines,
	ingest.KindWindows:  jsonLines,
	ingest.KindZeek:     jsonLines,
	ingest.KindSyslog:   {"text/plain", "application/octet-stream"},
}

// jsonLines are the types a body of JSON records (an array, or one a line)
// may come as; Zeek's TSV is text/plain.
var jsonLines = []string{"application/json", "application/x-ndjson", "application/jsonl", "application/json-seq", "text/plain"}

// readIngest reads the request's body into the organization's share of the
// ingest budget, step by step as it arrives; release gives it back once the
// body is no longer held. The content type is checked before any byte is.
func (a *API) readIngest(w http.ResponseWriter, r *http.Request, orgID, kind string) (body []byte, release func(), err error) {
	if r.ContentLength != 0 {
		if err := checkMediaType(r, ingestMediaTypes[kind]...); err != nil {
			return nil, nil, err
		}
	}
	var held int64
	release = func() { a.ingestBudget.release(orgID, held) }
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		// One buffer of the announced size: growing by doubling would copy
		// the body over and over. Its pages are only touched as bytes come.
		buf.Grow(int(min(r.ContentLength, MaxIngestBodyBytes)))
	}
	for {
		if !a.ingestBudget.acquire(orgID, ingestStep) {
			release()
			discardBody(r)
			return nil, nil, errBusy(w)
		}
		held += ingestStep
		n, err := io.CopyN(&buf, r.Body, ingestStep)
		if err == io.EOF || (err == nil && n < ingestStep) {
			break
		}
		if err != nil {
			release()
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return nil, nil, err
			}
			return nil, nil, valid.Field("body", "could not be read")
		}
	}
	if len(bytes.TrimSpace(buf.Bytes())) == 0 {
		return []byte("{}"), release, nil
	}
	return buf.Bytes(), release, nil
}

type ingestView struct {
	Count int      `json:"count"`
	IDs   []string `json:"ids"`
	// A partial batch's records left out: the first maxListedRejections,
	// and how many in all.
	Rejected      []rejectionView `json:"rejected,omitempty"`
	RejectedCount *int            `json:"rejected_count,omitempty"`
}

type rejectionView struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

type webhookView struct {
	ingestView
	DNSQueries int `json:"dns_queries"`
	Skipped    int `json:"skipped"`
}

// maxListedRejections bounds the rejections a partial batch's answer lists.
const maxListedRejections = 1000

func newIngestView(got ingest.Receipt, partial bool) ingestView {
	v := ingestView{Count: len(got.IDs), IDs: got.IDs}
	if partial {
		n := len(got.Rejected)
		v.RejectedCount = &n
		v.Rejected = make([]rejectionView, 0, min(n, maxListedRejections))
		for _, rj := range got.Rejected[:min(n, maxListedRejections)] {
			v.Rejected = append(v.Rejected, rejectionView{Line: rj.Line, Reason: rj.Reason})
		}
	}
	return v
}

// ingestStatus is 201 for a stored batch, 200 for a partial one: what was
// sent was not all created.
func ingestStatus(partial bool) int {
	if partial {
		return http.StatusOK
	}
	return http.StatusCreated
}

func (a *API) ingestEvents(w http.ResponseWriter, r *http.Request) error {
	got, partial, err := a.ingestBody(w, r, ingest.KindEvents)
	if err != nil {
		return err
	}
	a.countIngest(len(got.IDs))
	writeData(w, ingestStatus(partial), newIngestView(got, partial))
	return nil
}

// webhook ingests a sensor's push: native takes the POST /events shapes,
// optionally with DNS telemetry; suricata takes EVE JSON; wazuh, zeek,
// windows and syslog their own formats.
func (a *API) webhook(w http.ResponseWriter, r *http.Request) error {
	kind := r.PathValue("source")
	if err := ingest.CheckWebhook(kind); err != nil {
		return err
	}
	got, partial, err := a.ingestBody(w, r, kind)
	if err != nil {
		return err
	}
	a.countIngest(len(got.IDs))
	writeData(w, ingestStatus(partial), webhookView{newIngestView(got, partial), got.DNSQueries, got.Skipped})
	return nil
}

func (a *API) ingestBody(w http.ResponseWriter, r *http.Request, kind string) (ingest.Receipt, bool, error) {
	partial, err := boolParam(r, "partial")
	if err != nil {
		return ingest.Receipt{}, false, err
	}
	orgID := principalFrom(r.Context()).OrgID
	body, release, err := a.readIngest(w, r, orgID, kind)
	if err != nil {
		return ingest.Receipt{}, false, err
	}
	defer release()
	got, err := a.Ingest.Ingest(r.Context(), orgID, kind, body, partial)
	return got, partial, err
}

// The API's own counters, beside the per-route ones.
const (
	ingestBatchesName = "garrison_ingest_batches_total"
	ingestBatchesHelp = "Ingest requests accepted (POST /events and webhooks)."
	ingestEventsName  = "garrison_ingest_events_total"
	ingestEventsHelp  = "Events accepted by ingest."
	refusalsName      = "garrison_ratelimit_refusals_total"
	refusalsHelp      = "Requests refused by a rate-limit bucket, by bucket."
)

// declareMetrics makes the API's counters present, at zero, from the
// first scrape.
func (a *API) declareMetrics() {
	if a.Metrics == nil {
		return
	}
	a.Metrics.Declare(ingestBatchesName, ingestBatchesHelp)
	a.Metrics.Declare(ingestEventsName, ingestEventsHelp)
	var buckets [][]string
	for _, name := range a.Limits.names {
		buckets = append(buckets, []string{"bucket", name})
	}
	a.Metrics.Declare(refusalsName, refusalsHelp, buckets...)
}

// countIngest counts an accepted batch and its events.
func (a *API) countIngest(events int) {
	if a.Metrics == nil {
		return
	}
	a.Metrics.Add(ingestBatchesName, ingestBatchesHelp, 1)
	a.Metrics.Add(ingestEventsName, ingestEventsHelp, float64(events))
}
