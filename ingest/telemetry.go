package ingest

import (
	"encoding/json"
	"fmt"
	"strings"

	"garrison/alerting"
	"garrison/store"
	"garrison/telemetry"
	"garrison/valid"
)

// The source each format's events are stored under.
var telemetrySources = map[string]string{
	KindWazuh: "wazuh", KindZeek: "zeek", KindWindows: "windows", KindSyslog: "syslog",
}

// maxListedProblems is how many bad records a refused body names.
const maxListedProblems = 20

// parseTelemetry reads a Wazuh, Zeek, Windows or syslog body. A bad
// record refuses the body, naming its line and the next ones up to
// maxListedProblems; in a partial batch it is left out.
func parseTelemetry(kind string, body []byte, o Options) (Batch, error) {
	res, err := telemetry.Parse(kind, body, o.Now)
	if err != nil {
		return Batch{}, err
	}
	b := Batch{Skipped: res.Skipped}
	for _, p := range res.Problems {
		b.Rejected = append(b.Rejected, Rejection{Line: p.Line, Reason: p.Reason})
	}
	for _, r := range res.Records {
		problem := timeProblem(r.Timestamp, o)
		var rules []*alerting.Rule
		if o.Detect != nil && r.Raw != nil && problem == "" {
			rules = o.Detect(r.Raw)
		}
		switch {
		case r.DetectOnly && len(rules) == 0: // a kind Garrison keeps only when a rule fires on it
			b.Skipped++
			continue
		case problem != "":
			b.Rejected = append(b.Rejected, Rejection{Line: r.Line, Reason: "its time " + problem})
			continue
		case r.DNS != nil:
			b.DNS = append(b.DNS, store.DNSQuery{Timestamp: r.Timestamp, Source: telemetrySources[kind], Client: r.DNS.Client,
				Domain: r.DNS.Domain, QType: r.DNS.QType, RCode: r.DNS.RCode, Category: o.classify(r.DNS.Domain)})
			if len(rules) == 0 {
				continue
			}
			dnsEvent(&r) // the lookup a rule fired on is an event too, whose alert names it
		}
		details, err := json.Marshal(r.Details)
		if err != nil {
			return Batch{}, fmt.Errorf("line %d's details: %w", r.Line, err)
		}
		b.Events = append(b.Events, store.NewEvent{Type: r.Type, Severity: r.Severity, Timestamp: r.Timestamp,
			Source: telemetrySources[kind], Asset: strings.ToLower(r.Asset), Message: r.Message, Indicator: r.Indicator, Category: r.Category,
			Details: details, Fields: r.Fields, Original: r.Original, Rules: rules})
	}
	sortRejections(b.Rejected)
	if o.Partial || len(b.Rejected) == 0 {
		return b, nil
	}
	var p valid.Problems
	for i, r := range b.Rejected {
		if i == maxListedProblems {
			break
		}
		p.Add(fmt.Sprintf("line %d", r.Line), r.Reason+"; nothing was stored")
	}
	return Batch{}, p.Err()
}

// dnsEvent words a DNS lookup as an event: the client asked for the
// domain, which is the indicator.
func dnsEvent(r *telemetry.Record) {
	r.Message = "DNS query for " + r.DNS.Domain
	if r.DNS.QType != "" {
		r.Message += " (" + r.DNS.QType + ")"
	}
	r.Message += " by " + r.DNS.Client
	if r.DNS.RCode != "" {
		r.Message += ", answer " + r.DNS.RCode
	}
	r.Asset, r.Indicator = r.DNS.Client, r.DNS.Domain
}
