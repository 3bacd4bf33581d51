package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"

	"garrison/eve"
	"garrison/event"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// Bounds of one body and of its records.
const (
	// MaxRecords is the most events and DNS queries one body may hold.
	MaxRecords   = eve.MaxRecords
	maxMessage   = 4096
	maxIndicator = 512
	maxSource    = 100
	maxDetails   = 16 << 10
	maxDNSLabel  = 16
	// futureSkew is how far ahead of the server clock a record may claim to be.
	futureSkew = 24 * time.Hour
)

// Sources given to records that name none.
const (
	SourceNative   = "webhook:native"
	SourceSuricata = "suricata"
)

// eventInput is one native event as sent; every field is text.
type eventInput struct {
	Type, Severity, Timestamp, Source, Asset, Message, Indicator string
	Details                                                      []byte
}

// dnsInput is one DNS query in the native webhook form.
type dnsInput struct {
	Timestamp, Client, Domain, QType, RCode string
}

// shape is what a route accepts besides events.
type shape struct {
	dns           bool   // {"events":[…],"dns":[…]} too
	defaultSource string // for events without a source
}

// parseNative reads one event, {"events":[…]}, or (shape.dns) the events
// plus DNS form, validating every record against now.
func parseNative(body []byte, sh shape, now time.Time, classify func(domain string) string) (Batch, error) {
	if !utf8.Valid(body) {
		return Batch{}, valid.Field("body", "is not valid UTF-8")
	}
	if !json.Valid(body) {
		return Batch{}, syntaxProblem(body)
	}
	if path, dup := valid.DuplicateKey(body); dup {
		return Batch{}, valid.Field(path, duplicateProblem)
	}
	var events, dns []byte
	var others []string
	isObject, _ := eachMember(body, func(key string, value []byte) error {
		switch {
		case key == "events":
			events = value
		case key == "dns" && sh.dns:
			dns = value
		default:
			others = append(others, key)
		}
		return nil
	})
	if !isObject {
		return Batch{}, valid.Field("body", "must be a JSON object")
	}
	if events == nil && dns == nil {
		return oneEvent(body, sh, now)
	}
	if len(others) > 0 {
		beside := "events"
		if sh.dns {
			beside = "events and dns"
		}
		return Batch{}, valid.Field(others[0], "is not a known field beside "+beside)
	}
	nEvents, nDNS, err := measure(events, dns)
	if err != nil {
		return Batch{}, err
	}
	var p valid.Problems
	b := Batch{Events: make([]store.NewEvent, 0, nEvents), DNS: make([]store.DNSQuery, 0, nDNS)}
	_, err = eachElement(events, func(i int, raw []byte) error {
		if p.Full() {
			return errStop
		}
		prefix := fmt.Sprintf("events[%d].", i)
		in, err := scanEvent(raw, prefix)
		if err != nil {
			return err
		}
		if e, ok := validEvent(&p, prefix, in, sh.defaultSource, now); ok {
			b.Events = append(b.Events, e)
		}
		return nil
	})
	if err != nil && err != errStop {
		return Batch{}, err
	}
	_, err = eachElement(dns, func(i int, raw []byte) error {
		if p.Full() {
			return errStop
		}
		prefix := fmt.Sprintf("dns[%d].", i)
		in, err := scanDNS(raw, prefix)
		if err != nil {
			return err
		}
		if q, ok := validDNS(&p, prefix, in, now, classify); ok {
			b.DNS = append(b.DNS, q)
		}
		return nil
	})
	if err != nil && err != errStop {
		return Batch{}, err
	}
	if err := p.Err(); err != nil {
		return Batch{}, err
	}
	return b, nil
}

// duplicateProblem refuses a key given twice: Go keeps the last, another
// reader the first, so the record would say two things.
const duplicateProblem = "is given twice; a key may appear once in an object"

// measure checks the lists' types and counts their records, stopping one
// past MaxRecords: a body of millions of entries costs no allocation.
func measure(events, dns []byte) (nEvents, nDNS int, err error) {
	if events != nil && bytes.TrimSpace(events)[0] != '[' {
		return 0, 0, valid.Field("events", "must be an array of event objects")
	}
	if dns != nil && bytes.TrimSpace(dns)[0] != '[' {
		return 0, 0, valid.Field("dns", "must be an array of DNS query objects")
	}
	nEvents = countElements(events, MaxRecords)
	nDNS = countElements(dns, MaxRecords-nEvents)
	total := nEvents + nDNS
	if total > 0 && total <= MaxRecords {
		return nEvents, nDNS, nil
	}
	got := fmt.Sprintf("got %d", total)
	if total > MaxRecords {
		got = fmt.Sprintf("got more than %d", MaxRecords)
	}
	if dns == nil {
		return 0, 0, valid.Field("events", fmt.Sprintf("must hold 1 to %d events (%s)", MaxRecords, got))
	}
	return 0, 0, valid.Field("dns", fmt.Sprintf("with events must hold 1 to %d records (%s)", MaxRecords, got))
}

func oneEvent(body []byte, sh shape, now time.Time) (Batch, error) {
	in, err := scanEvent(body, "")
	if err != nil {
		return Batch{}, err
	}
	var p valid.Problems
	e, _ := validEvent(&p, "", in, sh.defaultSource, now)
	if err := p.Err(); err != nil {
		return Batch{}, err
	}
	return Batch{Events: []store.NewEvent{e}}, nil
}

// syntaxProblem says where a body stops being JSON. Only refused bodies
// come here; the tokens read are garbage at once, so a huge body costs
// time, not memory.
func syntaxProblem(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		_, err := dec.Token()
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &syntaxErr):
			return valid.Field("body", fmt.Sprintf("is malformed JSON (at byte %d)", syntaxErr.Offset))
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return valid.Field("body", "is malformed JSON (unexpected end)")
		case err != nil:
			return valid.Field("body", "is malformed JSON")
		}
	}
}

// scanEvent reads one event object. Keys match exactly; a string field
// holding another JSON type is refused as encoding/json would refuse it.
func scanEvent(raw []byte, prefix string) (eventInput, error) {
	var in eventInput
	err := scanRecord(raw, prefix, "an event object", func(key string, value []byte) (*string, bool) {
		switch key {
		case "type":
			return &in.Type, true
		case "severity":
			return &in.Severity, true
		case "timestamp":
			return &in.Timestamp, true
		case "source":
			return &in.Source, true
		case "asset":
			return &in.Asset, true
		case "message":
			return &in.Message, true
		case "indicator":
			return &in.Indicator, true
		case "details":
			in.Details = value
			return nil, true
		}
		return nil, false
	})
	return in, err
}

// scanDNS reads one DNS query object, as scanEvent reads an event.
func scanDNS(raw []byte, prefix string) (dnsInput, error) {
	var in dnsInput
	err := scanRecord(raw, prefix, "a DNS query object", func(key string, _ []byte) (*string, bool) {
		switch key {
		case "timestamp":
			return &in.Timestamp, true
		case "client":
			return &in.Client, true
		case "domain":
			return &in.Domain, true
		case "qtype":
			return &in.QType, true
		case "rcode":
			return &in.RCode, true
		}
		return nil, false
	})
	return in, err
}

// scanRecord walks one record object: member names the string field a key
// fills (nil for a member it kept itself) and whether the key is known.
func scanRecord(raw []byte, prefix, what string, member func(key string, value []byte) (dst *string, known bool)) error {
	isObject, err := eachMember(raw, func(key string, value []byte) error {
		dst, known := member(key, value)
		switch {
		case !known:
			return valid.Field(prefix+key, "is not a known field")
		case dst != nil && !stringMember(value, dst):
			return valid.Field(prefix+key, "must be a string")
		}
		return nil
	})
	if !isObject {
		return valid.Field(objectName(prefix), "must be "+what)
	}
	return err
}

// objectName is the field that names a whole record: "events[3]", or
// "body" for a body that is one record.
func objectName(prefix string) string {
	if name := strings.TrimSuffix(prefix, "."); name != "" {
		return name
	}
	return "body"
}

func validEvent(p *valid.Problems, prefix string, in eventInput, defaultSource string, now time.Time) (store.NewEvent, bool) {
	before := p.Len()
	sev, sevOK := event.ParseSeverity(in.Severity)
	p.Check(event.ValidType(in.Type), prefix+"type", "must be one of "+strings.Join(event.Types, ", "))
	p.Check(sevOK, prefix+"severity", "must be one of "+strings.Join(event.SeverityNames(), ", "))
	ts := checkTime(p, prefix+"timestamp", in.Timestamp, now)
	if in.Source == "" {
		in.Source = defaultSource
	}
	p.Check(valid.Label(in.Source, maxSource), prefix+"source", "must be 1 to 100 printable characters")
	p.Check(valid.Host(in.Asset), prefix+"asset", "must be a host name or an IP address")
	p.Check(in.Message != "" && len(in.Message) <= maxMessage && valid.Text(in.Message), prefix+"message",
		"must be 1 to 4096 bytes of text, without control characters other than newline and tab")
	p.Check(len(in.Indicator) <= maxIndicator && valid.Text(in.Indicator), prefix+"indicator",
		"must be at most 512 bytes of text, without control characters other than newline and tab")
	var details []byte
	if d := bytes.TrimSpace(in.Details); len(d) > 0 && !bytes.Equal(d, []byte("null")) {
		p.Check(d[0] == '{' && len(d) <= maxDetails, prefix+"details", "must be a JSON object of at most 16 KiB")
		details = d
	}
	if p.Len() > before {
		return store.NewEvent{}, false
	}
	return store.NewEvent{Type: in.Type, Severity: sev, Timestamp: ts, Source: in.Source, Asset: strings.ToLower(in.Asset),
		Message: in.Message, Indicator: in.Indicator, Details: details}, true
}

func validDNS(p *valid.Problems, prefix string, in dnsInput, now time.Time, classify func(string) string) (store.DNSQuery, bool) {
	before := p.Len()
	ts := checkTime(p, prefix+"timestamp", in.Timestamp, now)
	client, err := netip.ParseAddr(in.Client)
	p.Check(err == nil, prefix+"client", "must be an IP address")
	domain := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(in.Domain)), ".")
	_, isIP := netip.ParseAddr(domain)
	p.Check(isIP != nil && valid.DomainName(domain), prefix+"domain", "must be a domain name")
	p.Check(len(in.QType) <= maxDNSLabel && (in.QType == "" || valid.Name(in.QType)), prefix+"qtype", "must be a record type such as A or AAAA")
	p.Check(len(in.RCode) <= maxDNSLabel && (in.RCode == "" || valid.Name(in.RCode)), prefix+"rcode", "must be a response code such as NOERROR")
	if p.Len() > before {
		return store.DNSQuery{}, false
	}
	return store.DNSQuery{Timestamp: ts, Source: SourceNative, Client: client.Unmap().String(), Domain: domain,
		QType: strings.ToUpper(in.QType), RCode: strings.ToUpper(in.RCode), Category: classify(domain)}, true
}

// checkTime reads a record's timestamp and refuses one that is not believable.
func checkTime(p *valid.Problems, field, v string, now time.Time) time.Time {
	ts, err := timestamp.Parse(v)
	if err != nil {
		p.Add(field, "must be an RFC 3339 timestamp")
		return ts
	}
	if problem := timeProblem(ts, now); problem != "" {
		p.Add(field, problem)
	}
	return ts
}

// timeProblem says why a record's time is not believable, or "".
func timeProblem(ts, now time.Time) string {
	switch {
	case ts.After(now.Add(futureSkew)):
		return "is more than a day in the future"
	case ts.Year() < 2000:
		return "is before the year 2000"
	}
	return ""
}
