package telemetry

import (
	"bytes"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"garrison/event"
	"garrison/valid"
)

// Formats Garrison reads, as named in POST /api/webhooks/{source}.
const (
	FormatWazuh   = "wazuh"
	FormatZeek    = "zeek"
	FormatWindows = "windows"
	FormatSyslog  = "syslog"
)

// Formats lists the formats of this package.
var Formats = []string{FormatWazuh, FormatZeek, FormatWindows, FormatSyslog}

// MaxRecords is the most records one body may hold.
const MaxRecords = 10000

// Caps of what one record keeps.
const (
	maxMessage   = 1024
	maxIndicator = 512
	maxAsset     = 255
	maxDetail    = 512
)

// Record is one record read into the event model.
type Record struct {
	Line      int // where the record starts in the body, from 1
	Timestamp time.Time
	Type      string
	Severity  event.Severity
	Asset     string // the host the record is about
	Message   string
	Indicator string
	Category  string // the source's own category or rule group
	Fields    event.Fields
	Details   map[string]any // the source's own fields worth keeping, scalars and string lists
	Original  string         // the record as received, clipped to event.MaxOriginal
	// DNS is set instead of an event for a DNS query (a Zeek dns record):
	// it goes to the DNS telemetry, as Suricata's do.
	DNS *DNSQuery
	// Raw is the record's own fields as its source named them, for
	// detection rules; never stored (nil for formats rules do not read).
	Raw *Raw
	// DetectOnly is a record of a kind Garrison keeps only when a
	// detection rule fires on it (a Zeek smb_files or dce_rpc record);
	// otherwise it counts as skipped.
	DetectOnly bool
}

// Raw is a record's own fields by their source's names, for detection
// rules: a Windows event's EventData with its channel, provider and event
// id; a Zeek record's fields under its log's name; a syslog line's message
// under the program that wrote it, or an appliance's key=value pairs. The
// fields stay as parsed until asked for (Fields): ingest without
// detection pays nothing.
type Raw struct {
	Format   string // the telemetry format (FormatWindows, FormatZeek, FormatSyslog)
	Log      string // a Zeek log ("dns", "smb_files"), a syslog program ("sshd"), or RawFortiGate, RawAuditd
	Channel  string
	Provider string
	EventID  int
	data     obj               // a Windows event's fields as parsed
	text     map[string]string // any other record's fields
	message  string            // a plain syslog line's message, its program in Log
}

// Writers of syslog lines whose fields Raw keeps by name (Raw.Log).
const (
	RawFortiGate = "fortigate"
	RawAuditd    = "auditd"
)

// Fields returns the record's fields as text, a field given as null left
// out.
func (r *Raw) Fields() map[string]string {
	out := make(map[string]string, r.Len())
	r.FieldsInto(out)
	return out
}

// FieldsInto adds the record's fields to out, as Fields returns them.
func (r *Raw) FieldsInto(out map[string]string) {
	for k, v := range r.data {
		if v != nil {
			out[k] = winText(v)
		}
	}
	for k, v := range r.text {
		out[k] = v
	}
	if r.message != "" {
		out["message"] = r.message
		if r.Log != "" {
			out["program"] = r.Log
		}
	}
}

// Len is how many fields the record has.
func (r *Raw) Len() int { return len(r.data) + len(r.text) + 2 }

// DNSQuery is one DNS lookup.
type DNSQuery struct {
	Client, Domain, QType, RCode string
}

// Problem is a record that could not be read.
type Problem struct {
	Line   int
	Reason string
}

// Result is what a body holds.
type Result struct {
	Records  []Record
	Problems []Problem
	Skipped  int // records of kinds Garrison does not keep (Zeek's files, x509 …)
}

func (r *Result) refuse(line int, format string, args ...any) {
	r.Problems = append(r.Problems, Problem{Line: line, Reason: fmt.Sprintf(format, args...)})
}

// full reports whether the body already gave MaxRecords records, refusing
// the one at line if so.
func (r *Result) full(line int) bool {
	if len(r.Records)+len(r.Problems)+r.Skipped < MaxRecords {
		return false
	}
	if len(r.Problems) == 0 || r.Problems[len(r.Problems)-1].Reason != tooMany {
		r.refuse(line, "%s", tooMany)
	}
	return true
}

var tooMany = fmt.Sprintf("is past the %d records one request may hold; send the rest in another", MaxRecords)

// lineCount is how many records a line-oriented body may hold, for
// sizing the records once (a Record is a few hundred bytes: growing the
// slice by doubling copies them again and again).
func lineCount(body []byte) int {
	return min(bytes.Count(body, []byte("\n"))+1, MaxRecords)
}

// Parse reads a body of the format; now is the receiving time (syslog's
// traditional lines carry no year, and a line without any time is dated
// when it arrived).
func Parse(format string, body []byte, now time.Time) (Result, error) {
	switch format {
	case FormatWazuh:
		return parseWazuh(body), nil
	case FormatZeek:
		return parseZeek(body), nil
	case FormatWindows:
		return parseWindows(body), nil
	case FormatSyslog:
		return ParseSyslog(body, now), nil
	}
	return Result{}, valid.Field("source", "must be one of "+strings.Join(Formats, ", "))
}

// text cleans outside text for a one-line field: valid UTF-8, no control
// characters, at most max bytes.
func text(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.ContainsFunc(s, isControl) {
		s = strings.Map(func(r rune) rune {
			if isControl(r) {
				return ' '
			}
			return r
		}, s)
	}
	return valid.Clip(strings.TrimSpace(s), max)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// original keeps the record as received.
func original(raw []byte) string {
	return valid.Clip(strings.ToValidUTF8(string(raw), "\uFFFD"), event.MaxOriginal)
}

// addr reads an address; anything else (a host name, "-", "N/A") is none.
func addr(s string) netip.Addr {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return netip.Addr{}
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

// port reads a TCP or UDP port; 0 is none.
func port(s string) uint16 {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 16)
	if err != nil {
		return 0
	}
	return uint16(n)
}

// name reads a user or host name, where "-", "N/A" and "(null)" mean none.
func name(s string) string {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "-", "n/a", "(null)", "null", "none", "unknown":
		return ""
	}
	return text(s, event.MaxFieldText)
}

// internal reports whether a is a private, loopback or link-local address.
func internal(a netip.Addr) bool {
	return a.IsValid() && (a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast())
}

// protected is the host a flow is about: the one internal side, else the
// destination (eve's rule, for every network source).
func protected(src, dst netip.Addr) string {
	switch {
	case internal(src) && !internal(dst):
		return src.String()
	case dst.IsValid():
		return dst.String()
	}
	return "" // one side only: the device that saw it is the asset
}

// other is the side of a flow that is not the asset: the indicator.
func other(asset string, src, dst netip.Addr) string {
	if src.IsValid() && src.String() != asset {
		return src.String()
	}
	if dst.IsValid() && dst.String() != asset {
		return dst.String()
	}
	return ""
}

// flow renders a connection for a message: "TCP 10.0.0.1:5353 → 10.0.0.2:53".
func flow(proto string, f event.Fields) string {
	side := func(a netip.Addr, p uint16) string {
		if !a.IsValid() {
			return "?"
		}
		if p == 0 {
			return a.String()
		}
		return netip.AddrPortFrom(a, p).String()
	}
	s := side(f.SrcIP, f.SrcPort) + " → " + side(f.DstIP, f.DstPort)
	if proto != "" {
		s = strings.ToUpper(proto) + " " + s
	}
	return s
}

// finish bounds a record's text and fills what can be derived.
func finish(r *Record) {
	r.Message = text(r.Message, maxMessage)
	r.Indicator = text(r.Indicator, maxIndicator)
	r.Asset = text(r.Asset, maxAsset)
	r.Category = text(r.Category, 100)
	if r.Asset == "" {
		r.Asset = r.Fields.Host
	}
	if r.Asset == "" {
		r.Asset = protected(r.Fields.SrcIP, r.Fields.DstIP)
	}
	if r.Asset == "" && r.Fields.SrcIP.IsValid() {
		r.Asset = r.Fields.SrcIP.String()
	}
	if r.Asset == "" {
		r.Asset = "unknown"
	}
	if r.Message == "" {
		r.Message = "(no message)"
	}
	f := &r.Fields
	f.User, f.Process, f.Host, f.Rule, f.Action = name(f.User), text(f.Process, event.MaxFieldText),
		name(f.Host), text(f.Rule, event.MaxFieldText), text(f.Action, 64)
	f.CommandLine = text(f.CommandLine, event.MaxCommandLine)
}
