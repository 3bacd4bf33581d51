package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"garrison/store"
	"garrison/valid"
)

// dnsInput is one DNS query in the native webhook form.
type dnsInput struct {
	Timestamp string `json:"timestamp"`
	Client    string `json:"client"`
	Domain    string `json:"domain"`
	QType     string `json:"qtype"`
	RCode     string `json:"rcode"`
}

type nativeBatch struct {
	Events []eventInput `json:"events"`
	DNS    []dnsInput   `json:"dns"`
}

// decodeNative reads the native webhook body: the POST /events shapes, or
// {"events":[…], "dns":[…]} with either list optional.
func (a *API) decodeNative(r *http.Request) ([]store.NewEvent, []store.DNSQuery, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, nil, err
	}
	var keys map[string]json.RawMessage
	json.Unmarshal(body, &keys)
	if _, ok := keys["dns"]; !ok {
		events, err := a.parseEvents(body, "webhook:native")
		return events, nil, err
	}
	var b nativeBatch
	if err := decodeJSON(body, &b); err != nil {
		return nil, nil, err
	}
	if len(b.Events)+len(b.DNS) == 0 || len(b.Events)+len(b.DNS) > maxBatch {
		return nil, nil, valid.Field("dns", fmt.Sprintf("with events must hold 1 to %d records", maxBatch))
	}
	var p valid.Problems
	now := a.Now()
	events := make([]store.NewEvent, 0, len(b.Events))
	for i, in := range b.Events {
		if p.Full() {
			break
		}
		if e, ok := validEvent(&p, fmt.Sprintf("events[%d].", i), in, "webhook:native", now); ok {
			events = append(events, e)
		}
	}
	queries := make([]store.DNSQuery, 0, len(b.DNS))
	for i, in := range b.DNS {
		if p.Full() {
			break
		}
		if q, ok := a.validDNS(&p, fmt.Sprintf("dns[%d].", i), in, now); ok {
			queries = append(queries, q)
		}
	}
	if err := p.Err(); err != nil {
		return nil, nil, err
	}
	return events, queries, nil
}

func (a *API) validDNS(p *valid.Problems, prefix string, in dnsInput, now time.Time) (store.DNSQuery, bool) {
	before := p.Len()
	ts, err := time.Parse(time.RFC3339Nano, in.Timestamp)
	if err != nil {
		p.Add(prefix+"timestamp", "must be an RFC 3339 timestamp")
	} else if problem := timestampProblem(ts, now); problem != "" {
		p.Add(prefix+"timestamp", problem)
	}
	client, err := netip.ParseAddr(in.Client)
	p.Check(err == nil, prefix+"client", "must be an IP address")
	domain := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(in.Domain)), ".")
	_, isIP := netip.ParseAddr(domain)
	p.Check(isIP != nil && valid.Host(domain), prefix+"domain", "must be a domain name")
	p.Check(len(in.QType) <= 16 && validLabelOrEmpty(in.QType), prefix+"qtype", "must be a record type such as A or AAAA")
	p.Check(len(in.RCode) <= 16 && validLabelOrEmpty(in.RCode), prefix+"rcode", "must be a response code such as NOERROR")
	if p.Len() > before {
		return store.DNSQuery{}, false
	}
	category, _ := a.Blocklist.Match(domain)
	return store.DNSQuery{Timestamp: ts.UTC(), Source: "webhook:native", Client: client.Unmap().String(), Domain: domain,
		QType: strings.ToUpper(in.QType), RCode: strings.ToUpper(in.RCode), Category: category}, true
}

func validLabelOrEmpty(s string) bool { return s == "" || valid.Name(s) }
