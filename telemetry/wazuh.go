package telemetry

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"garrison/event"
)

// Wazuh alerts (the manager's alerts.json, one object per line).
//
//	rule.level   severity        rule.groups                          type
//	0–3          info            attack, ids, exploit, malware,        threat_detected
//	4–6          low             rootkit, virustotal, web scan,
//	7–9          medium          sql_injection, aws_guardduty …
//	10–12        high            firewall_drop, drop, block            blocked_connection
//	13–15        critical        authentication_success, level 0–2     activity
//	                             otherwise                            policy_violation
//
// The asset is the agent's name; rule.id is the rule, rule.description
// the message; MITRE ATT&CK ids (rule.mitre.id) are kept in the details.
// A Windows event the alert carries (data.win) is read by the detection
// rules as the windows format's are (wazuhWindows).

var wazuhThreatGroups = []string{"attack", "ids", "exploit", "exploit_attempt", "malware", "rootkit", "virustotal",
	"web_scan", "recon", "sql_injection", "invalid_access", "aws_guardduty", "gcp_scc", "azure_security_center",
	"shellshock", "yara", "trojan", "botnet"}

var wazuhBlockGroups = []string{"firewall_drop", "drop", "firewall_block", "active_response"}

// wazuhSeverity maps a rule level (0–15).
func wazuhSeverity(level int) event.Severity {
	switch {
	case level >= 13:
		return event.Critical
	case level >= 10:
		return event.High
	case level >= 7:
		return event.Medium
	case level >= 4:
		return event.Low
	}
	return event.Info
}

func wazuhType(level int, groups []string) string {
	has := func(list []string) bool {
		return slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(list, strings.ToLower(g)) })
	}
	switch {
	case has(wazuhThreatGroups):
		return event.TypeThreat
	case has(wazuhBlockGroups):
		return event.TypeBlocked
	case has([]string{"authentication_success"}) || level < 3:
		return event.TypeActivity
	}
	return event.TypePolicy
}

// Wazuh writes "2024-03-07T17:52:50.390+0000"; RFC 3339 is taken too.
var wazuhTimeLayouts = []string{"2006-01-02T15:04:05.999999999Z0700", time.RFC3339Nano}

func parseTime(s string, layouts []string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func parseWazuh(body []byte) Result {
	var res Result
	eachJSON(body, &res, func(line int, o obj, raw []byte) {
		r, err := wazuhRecord(o)
		if err != nil {
			res.refuse(line, "is not a usable Wazuh alert: %v", err)
			return
		}
		r.Line, r.Original = line, original(raw)
		finish(&r)
		res.Records = append(res.Records, r)
	})
	return res
}

func wazuhRecord(o obj) (Record, error) {
	rule := o.sub("rule")
	if rule == nil {
		return Record{}, fmt.Errorf("no rule object")
	}
	level, ok := rule.int("level")
	if !ok || level < 0 || level > 16 {
		return Record{}, fmt.Errorf("rule.level is not a number from 0 to 15")
	}
	stamp := o.str("timestamp")
	if stamp == "" {
		stamp = o.str("@timestamp")
	}
	ts, ok := parseTime(stamp, wazuhTimeLayouts)
	if !ok {
		return Record{}, fmt.Errorf("timestamp %s is not a time", quote(stamp))
	}
	groups := rule.strs("groups")
	agent := o.sub("agent")
	data := o.sub("data")
	win := data.path("win", "eventdata")
	first := func(values ...string) string {
		for _, v := range values {
			if name(v) != "" {
				return v
			}
		}
		return ""
	}
	r := Record{
		Timestamp: ts,
		Type:      wazuhType(level, groups),
		Severity:  wazuhSeverity(level),
		Asset:     agent.str("name"),
		Message:   rule.str("description"),
		Fields: event.Fields{
			SrcIP:       addr(first(data.str("srcip"), data.str("src_ip"), win.str("ipAddress"))),
			DstIP:       addr(first(data.str("dstip"), data.str("dst_ip"))),
			SrcPort:     port(first(data.str("srcport"), win.str("ipPort"))),
			DstPort:     port(data.str("dstport")),
			User:        first(data.str("dstuser"), data.str("srcuser"), data.str("user"), win.str("targetUserName"), win.str("subjectUserName")),
			Process:     first(data.str("process"), data.sub("audit").str("exe"), win.str("image"), win.str("newProcessName")),
			CommandLine: first(data.str("command"), win.str("commandLine")),
			Host:        first(o.sub("predecoder").str("hostname"), data.path("win", "system").str("computer"), agent.str("name")),
			Rule:        rule.str("id"),
			Action:      first(data.str("action"), data.path("aws").str("action")),
		},
		Details: map[string]any{"rule_id": rule.str("id"), "rule_level": level},
	}
	if len(groups) > 0 {
		r.Category = groups[0]
		r.Details["rule_groups"] = groups
	}
	if mitre := rule.sub("mitre"); mitre != nil {
		if ids := mitre.strs("id"); len(ids) > 0 {
			r.Details["mitre_ids"] = ids
		}
		if t := mitre.strs("tactic"); len(t) > 0 {
			r.Details["mitre_tactics"] = t
		}
	}
	for key, value := range map[string]string{"agent_id": agent.str("id"), "agent_ip": agent.str("ip"),
		"manager": o.sub("manager").str("name"), "location": o.str("location"), "decoder": o.sub("decoder").str("name"),
		"full_log": o.str("full_log")} {
		if value != "" {
			r.Details[key] = text(value, maxDetail)
		}
	}
	if v := data.sub("vulnerability"); v != nil {
		r.Indicator = v.str("cve")
		r.Details["cve"] = text(v.str("cve"), 64)
		r.Details["package"] = text(v.sub("package").str("name")+" "+v.sub("package").str("version"), 200)
	}
	if r.Indicator == "" && r.Fields.SrcIP.IsValid() {
		r.Indicator = r.Fields.SrcIP.String()
	}
	r.Raw = wazuhWindows(data)
	return r, nil
}

// wazuhWindows is the Windows event a Wazuh alert carries (its
// eventchannel decoder's data.win), as detection rules read Windows
// events: Wazuh writes each EventData name with its first letter in lower
// case (commandLine, ipAddress), which is undone.
func wazuhWindows(data obj) *Raw {
	sys, win := data.path("win", "system"), data.path("win", "eventdata")
	id, ok := sys.int("eventID")
	if sys == nil || !ok {
		return nil
	}
	d := make(obj, len(win))
	for k, v := range win {
		if k != "" {
			d[strings.ToUpper(k[:1])+k[1:]] = v
		}
	}
	return &Raw{Format: FormatWindows, Channel: sys.str("channel"), Provider: sys.str("providerName"), EventID: id, data: d}
}

// quote renders an input value for a reason, short however long the input.
func quote(s string) string {
	return fmt.Sprintf("%q", text(s, 64))
}
