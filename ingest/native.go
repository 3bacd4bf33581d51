package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"garrison/eve"
	"garrison/event"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
	"garrison/wording"
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
	// The normalised fields, all optional.
	SrcIP, DstIP, User, Process, CommandLine, Host, Rule, Action string
	SrcPort, DstPort                                             []byte
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
func parseNative(body []byte, sh shape, o Options) (Batch, error) {
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
		return oneEvent(body, sh, o)
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
		if err != nil && o.Partial {
			b.reject(i+1, err)
			return nil
		}
		if err != nil {
			return err
		}
		if o.Partial {
			var own valid.Problems
			if e, ok := validEvent(&own, prefix, in, sh.defaultSource, o); ok {
				b.Events = append(b.Events, e)
			} else {
				b.reject(i+1, own.Err())
			}
			return nil
		}
		if e, ok := validEvent(&p, prefix, in, sh.defaultSource, o); ok {
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
		if err != nil && o.Partial {
			b.reject(nEvents+i+1, err)
			return nil
		}
		if err != nil {
			return err
		}
		if o.Partial {
			var own valid.Problems
			if q, ok := validDNS(&own, prefix, in, o); ok {
				b.DNS = append(b.DNS, q)
			} else {
				b.reject(nEvents+i+1, own.Err())
			}
			return nil
		}
		if q, ok := validDNS(&p, prefix, in, o); ok {
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

func oneEvent(body []byte, sh shape, o Options) (Batch, error) {
	in, err := scanEvent(body, "")
	if err != nil {
		return Batch{}, err
	}
	var p valid.Problems
	e, _ := validEvent(&p, "", in, sh.defaultSource, o)
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
		case "src_ip":
			return &in.SrcIP, true
		case "dst_ip":
			return &in.DstIP, true
		case "user":
			return &in.User, true
		case "process":
			return &in.Process, true
		case "command_line":
			return &in.CommandLine, true
		case "host":
			return &in.Host, true
		case "rule":
			return &in.Rule, true
		case "action":
			return &in.Action, true
		case "src_port":
			in.SrcPort = value
			return nil, true
		case "dst_port":
			in.DstPort = value
			return nil, true
		}
		return nil, false
	})
	return in, err
}

// validFields checks a native event's normalised fields. Most events
// carry few or none: a field not given costs a comparison, no allocation.
func validFields(p *valid.Problems, prefix string, in eventInput) event.Fields {
	var f event.Fields
	if in.SrcIP != "" {
		f.SrcIP = validAddr(p, prefix, "src_ip", in.SrcIP)
	}
	if in.DstIP != "" {
		f.DstIP = validAddr(p, prefix, "dst_ip", in.DstIP)
	}
	if in.SrcPort != nil {
		f.SrcPort = validPort(p, prefix, "src_port", in.SrcPort)
	}
	if in.DstPort != nil {
		f.DstPort = validPort(p, prefix, "dst_port", in.DstPort)
	}
	for _, t := range [...]struct {
		name  string
		value string
		max   int
		to    *string
	}{{"user", in.User, event.MaxFieldText, &f.User}, {"process", in.Process, event.MaxFieldText, &f.Process},
		{"command_line", in.CommandLine, event.MaxCommandLine, &f.CommandLine}, {"host", in.Host, event.MaxFieldText, &f.Host},
		{"rule", in.Rule, event.MaxFieldText, &f.Rule}, {"action", in.Action, 64, &f.Action}} {
		if t.value == "" {
			continue
		}
		if len(t.value) > t.max || !valid.Text(t.value) {
			p.Add(prefix+t.name, fmt.Sprintf("must be at most %d bytes of text", t.max))
		}
		*t.to = t.value
	}
	return f
}

func validAddr(p *valid.Problems, prefix, field, v string) netip.Addr {
	a, err := netip.ParseAddr(v)
	if err != nil || a.Zone() != "" {
		p.Add(prefix+field, "must be an IP address")
	}
	return a.Unmap()
}

func validPort(p *valid.Problems, prefix, field string, raw []byte) uint16 {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return 0
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 1 || n > 65535 {
		p.Add(prefix+field, "must be an integer from 1 to 65535")
		return 0
	}
	return uint16(n)
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

func validEvent(p *valid.Problems, prefix string, in eventInput, defaultSource string, o Options) (store.NewEvent, bool) {
	before := p.Len()
	sev, sevOK := event.ParseSeverity(in.Severity)
	p.Check(event.ValidType(in.Type), prefix+"type", "must be one of "+strings.Join(event.Types, ", "))
	p.Check(sevOK, prefix+"severity", "must be one of "+strings.Join(event.SeverityNames(), ", "))
	ts := checkTime(p, prefix+"timestamp", in.Timestamp, o)
	if in.Source == "" {
		in.Source = defaultSource
	}
	p.Check(valid.Label(in.Source, maxSource), prefix+"source", "must be 1 to 100 printable characters")
	p.Check(valid.Host(in.Asset), prefix+"asset", "must be a host name or an IP address")
	p.Check(in.Message != "" && len(in.Message) <= maxMessage && valid.Text(in.Message), prefix+"message",
		"must be 1 to 4096 bytes of text, without control characters other than newline and tab")
	p.Check(len(in.Indicator) <= maxIndicator && valid.Text(in.Indicator), prefix+"indicator",
		"must be at most 512 bytes of text, without control characters other than newline and tab")
	fields := validFields(p, prefix, in)
	var details []byte
	if d := bytes.TrimSpace(in.Details); len(d) > 0 && !bytes.Equal(d, []byte("null")) {
		p.Check(d[0] == '{' && len(d) <= maxDetails, prefix+"details", "must be a JSON object of at most 16 KiB")
		details = d
	}
	if p.Len() > before {
		return store.NewEvent{}, false
	}
	return store.NewEvent{Type: in.Type, Severity: sev, Timestamp: ts, Source: in.Source, Asset: strings.ToLower(in.Asset),
		Message: in.Message, Indicator: in.Indicator, Details: details, Fields: fields}, true
}

func validDNS(p *valid.Problems, prefix string, in dnsInput, o Options) (store.DNSQuery, bool) {
	before := p.Len()
	ts := checkTime(p, prefix+"timestamp", in.Timestamp, o)
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
		QType: strings.ToUpper(in.QType), RCode: strings.ToUpper(in.RCode), Category: o.classify(domain)}, true
}

// checkTime reads a record's timestamp and refuses one that is not believable.
func checkTime(p *valid.Problems, field, v string, o Options) time.Time {
	ts, err := timestamp.Parse(v)
	if err != nil {
		p.Add(field, "must be an RFC 3339 timestamp")
		return ts
	}
	if problem := timeProblem(ts, o); problem != "" {
		p.Add(field, problem)
	}
	return ts
}

// timeProblem says why a record's time is not believable, or would not be
// kept, or "".
func timeProblem(ts time.Time, o Options) string {
	switch {
	case ts.After(o.Now.Add(futureSkew)):
		return "is more than a day in the future"
	case ts.Year() < 2000:
		return "is before the year 2000"
	case !o.Oldest.IsZero() && ts.Before(o.Oldest):
		return fmt.Sprintf("is older than the %s this organization keeps events (before %s): it would be deleted at once",
			wording.Days(o.Now.Sub(o.Oldest).Round(time.Hour)), timestamp.Format(o.Oldest))
	}
	return ""
}

// reject leaves a record out of a partial batch, saying why.
func (b *Batch) reject(line int, err error) {
	reason := err.Error()
	var invalid *valid.Error
	if errors.As(err, &invalid) && len(invalid.Problems) > 0 {
		parts := make([]string, len(invalid.Problems))
		for i, pr := range invalid.Problems {
			parts[i] = pr.Field + " " + pr.Message
		}
		reason = strings.Join(parts, "; ")
	}
	b.Rejected = append(b.Rejected, Rejection{Line: line, Reason: reason})
}
