package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"garrison/eve"
	"garrison/store"
	"garrison/valid"
)

// parseEVE reads Suricata EVE JSON (lines or an array) into events and DNS
// telemetry. A bad record refuses the whole body, naming its line.
func parseEVE(body []byte, now time.Time, classify func(domain string) string) (Batch, error) {
	res, err := eve.Parse(body)
	var invalid *valid.Error
	if errors.As(err, &invalid) {
		for i := range invalid.Problems {
			invalid.Problems[i].Message += "; nothing was stored"
		}
		return Batch{}, invalid
	}
	if err != nil {
		return Batch{}, valid.Field("body", err.Error())
	}
	b := Batch{Events: make([]store.NewEvent, len(res.Events)), DNS: make([]store.DNSQuery, len(res.DNS)), Skipped: res.Skipped}
	for i, e := range res.Events {
		if problem := timeProblem(e.Timestamp, now); problem != "" {
			return Batch{}, valid.Field("body", fmt.Sprintf("holds an EVE record whose timestamp %s %s; nothing was stored",
				e.Timestamp.Format(time.RFC3339), problem))
		}
		details, err := json.Marshal(e.Details)
		if err != nil {
			return Batch{}, valid.Field("body", "holds a record whose details cannot be stored")
		}
		category, _ := e.Details["category"].(string)
		b.Events[i] = store.NewEvent{Type: e.Type, Severity: e.Severity, Timestamp: e.Timestamp, Source: SourceSuricata,
			Asset: e.Asset, Message: e.Message, Indicator: e.Indicator, Category: category, Details: details}
	}
	for i, q := range res.DNS {
		if problem := timeProblem(q.Timestamp, now); problem != "" {
			return Batch{}, valid.Field("body", fmt.Sprintf("holds an EVE DNS record whose timestamp %s %s; nothing was stored",
				q.Timestamp.Format(time.RFC3339), problem))
		}
		b.DNS[i] = store.DNSQuery{Timestamp: q.Timestamp, Source: SourceSuricata, Client: q.Client, Domain: q.Domain,
			QType: q.QType, RCode: q.RCode, Category: classify(q.Domain)}
	}
	return b, nil
}
