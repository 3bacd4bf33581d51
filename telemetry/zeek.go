package telemetry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"garrison/event"
)

// Zeek logs, in Zeek's default TSV (with its #fields header) or JSON
// (Zeek's own, with _path and dotted names, or a shipper's with @stream and
// id_orig_h). One body may hold several logs.
//
//	log      Garrison
//	conn     activity, info: the flow, its service and state (action)
//	dns      DNS telemetry (client, query, qtype, rcode), as Suricata's
//	http     activity, info: method, host and URI; the host is the indicator
//	ssl      activity, info: server name and version; the name is the indicator
//	notice   SSL::… notices: policy_violation, low; others (Scan::…,
//	         a script's own): threat_detected, medium; note is the rule
//	others   read by detection rules only (smb_files, dce_rpc, kerberos,
//	         x509, rdp …): kept as activity, info, when a rule fires on
//	         one, otherwise counted as skipped (DetectOnly)
//
// The asset is the internal side of the flow (eve's rule). Every record
// keeps its fields by Zeek's names (Raw) for the detection rules.

type zeekRecord map[string]string

func parseZeek(body []byte) Result {
	var res Result
	start := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(start) > 0 && start[0] == '#' {
		res.Records = make([]Record, 0, lineCount(body))
		parseZeekTSV(body, &res)
		return res
	}
	eachJSON(body, &res, func(line int, o obj, raw []byte) {
		z := zeekRecord{}
		for k, v := range o {
			z[zeekKey(k)] = zeekValue(v)
		}
		path := z["_path"]
		if path == "" {
			path = z["@stream"]
		}
		zeekAdd(&res, line, path, z, raw)
	})
	return res
}

// zeekKey undoes a shipper's dots-to-underscores (id_orig_h,
// certificate_serial) for the names Zeek writes with a dot, which rules
// read.
func zeekKey(k string) string {
	for _, prefix := range zeekDotted {
		if len(k) > len(prefix) && k[:len(prefix)] == prefix && k[len(prefix)-1] == '_' {
			return prefix[:len(prefix)-1] + "." + k[len(prefix):]
		}
	}
	return k
}

// zeekDotted are the prefixes of Zeek's dotted field names, as a shipper
// writes them.
var zeekDotted = []string{"id_", "certificate_", "san_", "basic_constraints_", "times_"}

func zeekValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		if v {
			return "T"
		}
		return "F"
	case []any:
		parts := make([]string, 0, len(v))
		for _, e := range v {
			parts = append(parts, zeekValue(e))
		}
		return strings.Join(parts, ",")
	}
	return ""
}

func parseZeekTSV(body []byte, res *Result) {
	sep, unset, empty := "\t", "-", "(empty)"
	var fields []string
	var path string
	for n := 1; len(body) > 0; n++ {
		var line []byte
		line, body, _ = bytes.Cut(body, []byte("\n"))
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if line[0] == '#' {
			key, value, _ := strings.Cut(string(line[1:]), sep)
			switch {
			case strings.HasPrefix(string(line), "#separator "):
				if s, err := strconv.Unquote(`"` + strings.TrimPrefix(string(line), "#separator ") + `"`); err == nil && s != "" {
					sep = s
				}
			case key == "path":
				path = value
			case key == "fields":
				fields = strings.Split(value, sep)
			case key == "unset_field":
				unset = value
			case key == "empty_field":
				empty = value
			}
			continue
		}
		if res.full(n) {
			return
		}
		if fields == nil {
			res.refuse(n, "comes before the log's #fields header line")
			continue
		}
		values := strings.Split(string(line), sep)
		if len(values) != len(fields) {
			res.refuse(n, "has %d fields where the #fields header names %d", len(values), len(fields))
			continue
		}
		z := make(zeekRecord, len(fields))
		for i, f := range fields {
			if v := values[i]; v != unset && v != empty {
				z[f] = v
			}
		}
		zeekAdd(res, n, path, z, line)
	}
}

// zeekTime reads ts: epoch seconds or an ISO time.
func zeekTime(s string) (time.Time, bool) {
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && math.Abs(f) < 1e11 {
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC(), true
	}
	return parseTime(s, []string{time.RFC3339Nano})
}

// zeekPath guesses the log of a record that does not name it.
func zeekPath(z zeekRecord) string {
	switch {
	case z["note"] != "":
		return "notice"
	case z["query"] != "" && (z["qtype_name"] != "" || z["rcode_name"] != "" || z["trans_id"] != ""):
		return "dns"
	case z["method"] != "" || z["status_code"] != "":
		return "http"
	case z["server_name"] != "" || z["cipher"] != "":
		return "ssl"
	case z["conn_state"] != "" || z["history"] != "":
		return "conn"
	}
	return ""
}

func zeekAdd(res *Result, line int, path string, z zeekRecord, raw []byte) {
	if path == "" {
		path = zeekPath(z)
	}
	detectOnly := false
	switch path {
	case "conn", "dns", "http", "ssl", "notice":
	case "":
		res.Skipped++
		return
	default:
		detectOnly = true
	}
	ts, ok := zeekTime(z["ts"])
	if !ok && detectOnly {
		res.Skipped++ // never stored: its time is not worth refusing the body for
		return
	}
	if !ok {
		res.refuse(line, "is not a usable Zeek %s record: ts %s is not a time", path, quote(z["ts"]))
		return
	}
	f := event.Fields{SrcIP: addr(z["id.orig_h"]), DstIP: addr(z["id.resp_h"]),
		SrcPort: port(z["id.orig_p"]), DstPort: port(z["id.resp_p"])}
	r := Record{Line: line, Timestamp: ts, Type: event.TypeActivity, Severity: event.Info, Category: "zeek_" + path,
		Details: map[string]any{"log": path}, Raw: &Raw{Format: FormatZeek, Log: path, text: z}, DetectOnly: detectOnly}
	for _, k := range []string{"uid", "proto", "service", "conn_state", "method", "host", "uri", "status_code",
		"user_agent", "server_name", "version", "cipher", "validation_status", "note", "sub"} {
		if v := z[k]; v != "" {
			r.Details[k] = text(v, maxDetail)
		}
	}
	switch path {
	case "conn":
		f.Action = z["conn_state"]
		r.Message = "Connection " + flow(z["proto"], f)
		if s := z["service"]; s != "" {
			r.Message += " (" + s + ")"
		}
		if st := z["conn_state"]; st != "" {
			r.Message += ", state " + st
		}
	case "dns":
		if z["query"] == "" || !f.SrcIP.IsValid() {
			res.Skipped++ // a reply without a question, or a lookup with no client
			return
		}
		r.DNS = &DNSQuery{Client: f.SrcIP.String(), Domain: strings.TrimSuffix(strings.ToLower(z["query"]), "."),
			QType: z["qtype_name"], RCode: z["rcode_name"]}
	case "http":
		r.Message = fmt.Sprintf("HTTP %s %s%s", z["method"], z["host"], z["uri"])
		if s := z["status_code"]; s != "" {
			r.Message += " → " + s
		}
		r.Indicator = z["host"]
	case "ssl":
		r.Message = "TLS " + flow("", f)
		if s := z["server_name"]; s != "" {
			r.Message += " to " + s
		}
		if v := z["version"]; v != "" {
			r.Message += " (" + v + ")"
		}
		r.Indicator = z["server_name"]
	case "notice":
		if !f.SrcIP.IsValid() {
			f.SrcIP = addr(z["src"])
		}
		if !f.DstIP.IsValid() {
			f.DstIP = addr(z["dst"])
		}
		f.Rule = z["note"]
		r.Type, r.Severity = event.TypeThreat, event.Medium
		if strings.HasPrefix(z["note"], "SSL::") {
			r.Type, r.Severity = event.TypePolicy, event.Low
		}
		r.Message = z["note"] + ": " + z["msg"]
	default:
		r.Message = zeekOtherMessage(path, z, f)
	}
	if system := z["@system"]; system != "" {
		f.Host = system
	}
	r.Fields = f
	r.Asset = protected(f.SrcIP, f.DstIP)
	if r.Indicator == "" {
		r.Indicator = other(r.Asset, f.SrcIP, f.DstIP)
	}
	r.Original = original(raw)
	finish(&r)
	res.Records = append(res.Records, r)
}

// zeekOtherMessage words a record of a log only detection rules read.
func zeekOtherMessage(path string, z zeekRecord, f event.Fields) string {
	var what string
	switch path {
	case "smb_files":
		what = strings.TrimSpace("SMB " + strings.TrimPrefix(z["action"], "SMB::") + " " + z["path"] + `\` + z["name"])
	case "dce_rpc":
		what = "DCE/RPC " + z["endpoint"] + " " + z["operation"]
	case "kerberos":
		what = strings.TrimSpace("Kerberos " + z["request_type"] + " " + z["client"] + " for " + z["service"])
	case "x509":
		what = "Certificate " + z["certificate.subject"]
	case "rdp":
		what = strings.TrimSpace("RDP " + z["cookie"])
	default:
		what = "Zeek " + path
	}
	return what + " (" + flow("", f) + ")"
}
