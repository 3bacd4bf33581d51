package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"garrison/eve"
	"garrison/store"
	"garrison/valid"
)

// eveContentTypes are the media types a Suricata forwarder may send.
var eveContentTypes = []string{"application/json", "application/x-ndjson", "application/jsonl", "application/json-seq", "text/plain"}

// decodeEVE reads Suricata EVE JSON (lines or an array) into events and DNS
// telemetry. A bad record refuses the whole request, naming its line.
func (a *API) decodeEVE(r *http.Request) ([]store.NewEvent, []store.DNSQuery, error) {
	body, err := readBodyAs(r, eveContentTypes...)
	if err != nil {
		return nil, nil, err
	}
	res, err := eve.Parse(body)
	var lineErr *eve.LineError
	if errors.As(err, &lineErr) {
		return nil, nil, &Error{Status: http.StatusBadRequest, Code: CodeValidation,
			Message: fmt.Sprintf("Invalid request: EVE record on line %d: %v; nothing was stored", lineErr.Line, lineErr.Err),
			Fields:  []string{fmt.Sprintf("line %d", lineErr.Line)}}
	}
	if err != nil {
		return nil, nil, valid.Field("body", err.Error())
	}
	now := a.Now()
	events := make([]store.NewEvent, len(res.Events))
	for i, e := range res.Events {
		if problem := timestampProblem(e.Timestamp, now); problem != "" {
			return nil, nil, valid.Field("body", fmt.Sprintf("holds an EVE record whose timestamp %s %s; nothing was stored",
				e.Timestamp.Format(time.RFC3339), problem))
		}
		details, err := json.Marshal(e.Details)
		if err != nil {
			return nil, nil, valid.Field("body", "holds a record whose details cannot be stored")
		}
		category, _ := e.Details["category"].(string)
		events[i] = store.NewEvent{Type: e.Type, Severity: e.Severity, Timestamp: e.Timestamp,
			Source: sourceSuricata, Asset: e.Asset, Message: e.Message, Indicator: e.Indicator, Category: category, Details: details}
	}
	dns := make([]store.DNSQuery, len(res.DNS))
	for i, q := range res.DNS {
		if problem := timestampProblem(q.Timestamp, now); problem != "" {
			return nil, nil, valid.Field("body", fmt.Sprintf("holds an EVE DNS record whose timestamp %s %s; nothing was stored",
				q.Timestamp.Format(time.RFC3339), problem))
		}
		category, _ := a.Blocklist.Match(q.Domain)
		dns[i] = store.DNSQuery{Timestamp: q.Timestamp, Source: sourceSuricata, Client: q.Client, Domain: q.Domain,
			QType: q.QType, RCode: q.RCode, Category: category}
	}
	return events, dns, nil
}
