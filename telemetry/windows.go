package telemetry

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"garrison/event"
)

// Windows event records as JSON, in the renderings shippers write:
// evtx_dump ({"Event":{"System":…,"EventData":…}}), Winlogbeat
// ({"winlog":{"event_id",…,"event_data"}}), NXLog and its kin (the event's
// data fields at the top level beside EventID and Channel) and osquery's
// windows_events rows.
//
//	channel / id                           type              severity  message
//	Security 4625, 4771; 4776 with an      policy_violation  low       failed logon
//	  error status
//	Security 4740                          policy_violation  medium    account locked out
//	Security 4720, 4726                    policy_violation  low       account created / deleted
//	Security 4728, 4732, 4756              policy_violation  medium    member added to a security group
//	Security 4719                          policy_violation  medium    audit policy changed
//	Security 4697, System 7045             policy_violation  medium    service installed
//	Security 1102, System 104              threat_detected   high      audit log cleared
//	any other (4624, 4688, Sysmon …)       activity          info      the event's first line
//
// The asset is the computer; the user is the target account, else the
// subject (Sysmon: User); the process is NewProcessName, ProcessName or
// Image; the command line CommandLine; addresses IpAddress and IpPort
// (Sysmon 3: SourceIp, SourcePort, DestinationIp, DestinationPort).

// winEvent is one record whatever its rendering.
type winEvent struct {
	id       int
	channel  string
	provider string
	computer string
	time     time.Time
	message  string
	data     obj
}

var winTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"}

// winText reads a value that evtx_dump may wrap as {"#text": …}.
func winText(v any) string {
	switch v := v.(type) {
	case map[string]any:
		return winText(v["#text"])
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	case []any:
		parts := make([]string, 0, len(v))
		for _, e := range v {
			parts = append(parts, winText(e))
		}
		return strings.Join(parts, " ")
	}
	return ""
}

func (o obj) attr(key, name string) string {
	return winText(o.sub(key).sub("#attributes")[name])
}

func readWinEvent(o obj) (winEvent, error) {
	var w winEvent
	var stamp string
	switch {
	case o.sub("Event") != nil: // evtx_dump
		ev := o.sub("Event")
		sys := ev.sub("System")
		w.channel, w.computer = winText(sys["Channel"]), winText(sys["Computer"])
		w.provider = sys.attr("Provider", "Name")
		stamp = sys.attr("TimeCreated", "SystemTime")
		w.id, _ = strconv.Atoi(winText(sys["EventID"]))
		w.data = ev.sub("EventData")
		if w.data == nil {
			if ud := ev.sub("UserData"); ud != nil {
				for _, v := range ud { // one element named for the event
					w.data, _ = v.(map[string]any)
				}
			}
		}
	case o.sub("winlog") != nil: // Winlogbeat
		wl := o.sub("winlog")
		w.channel, w.computer, w.provider = wl.str("channel"), wl.str("computer_name"), wl.str("provider_name")
		w.id, _ = strconv.Atoi(wl.str("event_id"))
		if w.id == 0 {
			w.id, _ = strconv.Atoi(o.sub("event").str("code"))
		}
		w.data, w.message = wl.sub("event_data"), o.str("message")
		stamp = o.str("@timestamp")
		if w.computer == "" {
			w.computer = o.sub("host").str("name")
		}
	case o.str("event_id") != "" && o.str("provider_name") != "": // osquery windows_events
		w.channel, w.computer, w.provider = o.str("source"), o.str("computer_name"), o.str("provider_name")
		w.id, _ = strconv.Atoi(o.str("event_id"))
		stamp = o.str("datetime")
		var data struct {
			EventData map[string]any
		}
		if err := json.Unmarshal([]byte(o.str("data")), &data); err == nil {
			w.data = data.EventData
		}
	default: // NXLog and its kin: the data fields beside the event's own
		w.id, _ = strconv.Atoi(o.str("EventID"))
		w.channel = o.str("Channel")
		w.computer = cmp.Or(o.str("Hostname"), o.str("Computer"), o.str("computer_name"))
		w.provider = cmp.Or(o.str("SourceName"), o.str("ProviderName"), o.str("Provider"))
		w.message = o.str("Message")
		stamp = cmp.Or(o.str("@timestamp"), o.str("TimeCreated"), o.str("EventTime"), o.str("UtcTime"))
		w.data = o
	}
	if w.id == 0 {
		return w, fmt.Errorf("no EventID")
	}
	t, ok := parseTime(stamp, winTimeLayouts)
	if !ok {
		return w, fmt.Errorf("time %s is not a time", quote(stamp))
	}
	w.time = t
	if w.data == nil {
		w.data = obj{}
	}
	return w, nil
}

// winRule is what an event id means, where it is a finding.
type winRule struct {
	typ      string
	severity event.Severity
	title    string
}

var winSecurity = map[int]winRule{
	4625: {event.TypePolicy, event.Low, "Failed logon"},
	4771: {event.TypePolicy, event.Low, "Kerberos pre-authentication failed"},
	4740: {event.TypePolicy, event.Medium, "Account locked out"},
	4720: {event.TypePolicy, event.Low, "User account created"},
	4726: {event.TypePolicy, event.Low, "User account deleted"},
	4728: {event.TypePolicy, event.Medium, "Member added to a security-enabled global group"},
	4732: {event.TypePolicy, event.Medium, "Member added to a security-enabled local group"},
	4756: {event.TypePolicy, event.Medium, "Member added to a security-enabled universal group"},
	4719: {event.TypePolicy, event.Medium, "System audit policy was changed"},
	4697: {event.TypePolicy, event.Medium, "A service was installed"},
	1102: {event.TypeThreat, event.High, "The audit log was cleared"},
}

var winSystem = map[int]winRule{
	7045: {event.TypePolicy, event.Medium, "A service was installed"},
	104:  {event.TypeThreat, event.High, "An event log was cleared"},
}

func parseWindows(body []byte) Result {
	var res Result
	eachJSON(body, &res, func(line int, o obj, raw []byte) {
		w, err := readWinEvent(o)
		if err != nil {
			res.refuse(line, "is not a usable Windows event record: %v", err)
			return
		}
		r := windowsRecord(w)
		r.Line, r.Original = line, original(raw)
		finish(&r)
		res.Records = append(res.Records, r)
	})
	return res
}

func windowsRecord(w winEvent) Record {
	d := w.data
	get := func(keys ...string) string {
		for _, k := range keys {
			if v := name(winText(d[k])); v != "" {
				return v
			}
		}
		return ""
	}
	f := event.Fields{
		User:        get("TargetUserName", "User", "SubjectUserName"),
		Process:     get("NewProcessName", "Image", "ProcessName"),
		CommandLine: get("CommandLine"),
		Host:        w.computer,
		SrcIP:       addr(get("IpAddress", "SourceIp", "SourceAddress", "ClientAddress")),
		SrcPort:     port(get("IpPort", "SourcePort")),
		DstIP:       addr(get("DestinationIp", "DestAddress")),
		DstPort:     port(get("DestinationPort", "DestPort")),
	}
	if f.User != "" && !strings.Contains(f.User, `\`) {
		if domain := get("TargetDomainName"); domain != "" && get("TargetUserName") != "" {
			f.User = domain + `\` + f.User
		}
	}
	rule, known := winRule{event.TypeActivity, event.Info, ""}, false
	switch {
	case strings.EqualFold(w.channel, "Security"):
		rule, known = winSecurity[w.id]
	case strings.EqualFold(w.channel, "System"):
		rule, known = winSystem[w.id]
	}
	if w.id == 4776 && strings.EqualFold(w.channel, "Security") {
		if status := get("Status"); status != "" && status != "0x0" {
			rule, known = winRule{event.TypePolicy, event.Low, "NTLM authentication failed"}, true
		}
	}
	if !known {
		rule = winRule{event.TypeActivity, event.Info, ""}
	}
	switch w.id {
	case 4624:
		f.Action = "success"
	case 4625, 4771:
		f.Action = "failure"
	}
	message := rule.title
	if message == "" {
		message, _, _ = strings.Cut(strings.TrimSpace(w.message), "\n")
	}
	if message == "" {
		message = fmt.Sprintf("Windows event %d", w.id)
		if w.provider != "" {
			message += " from " + w.provider
		}
	}
	if f.User != "" && known {
		message += " for " + f.User
	}
	if f.SrcIP.IsValid() && known {
		message += " from " + f.SrcIP.String()
	}
	r := Record{Timestamp: w.time, Type: rule.typ, Severity: rule.severity, Asset: w.computer, Message: message, Fields: f,
		Category: w.channel, Details: map[string]any{"event_id": w.id}}
	if w.channel != "" {
		r.Details["channel"] = text(w.channel, 128)
	}
	if w.provider != "" {
		r.Details["provider"] = text(w.provider, 128)
	}
	for _, k := range []string{"LogonType", "Status", "SubStatus", "ParentProcessName", "ParentImage", "TargetFilename",
		"ServiceName", "ImagePath", "WorkstationName", "TargetDomainName", "SubjectUserName", "MemberName", "TargetImage"} {
		if v := get(k); v != "" {
			r.Details[k] = text(v, maxDetail)
		}
	}
	if f.SrcIP.IsValid() && rule.typ != event.TypeActivity {
		r.Indicator = f.SrcIP.String()
	}
	r.Raw = &Raw{Format: FormatWindows, Channel: w.channel, Provider: w.provider, EventID: w.id, data: d}
	return r
}
