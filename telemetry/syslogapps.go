package telemetry

import (
	"cmp"
	"regexp"
	"strconv"
	"strings"
	"time"

	"garrison/event"
)

// What each writer's syslog message means:
//
//	writer                 message                                    type / severity          action
//	sshd                   Failed password / publickey, Invalid user, policy_violation / low   failure
//	                       authentication failure, maximum attempts
//	sshd                   Accepted password / publickey              activity / info          success
//	sudo                   USER : … COMMAND=…                          activity / info          sudo
//	sudo                   user NOT in sudoers, incorrect password    policy_violation / medium, low
//	PAM (any writer)       authentication failure, tally over deny    policy_violation / low   failure
//	filterlog (pfSense,    block or reject                            blocked_connection / low block
//	  OPNsense)            pass                                       activity / info          pass
//	kernel (netfilter)     IN= … SRC= DST= with ACCEPT in its prefix  activity / info          allow
//	                       otherwise (a logged drop)                  blocked_connection / low block
//	FortiGate (key=value)  action deny, block, drop …                 blocked_connection / low its action
//	                       logdesc or action: login fail              policy_violation / low   its action
//	                       type utm, subtype ips/virus/…              threat_detected / by level
//	                       otherwise                                  activity / info
//	CEF                    act block/deny/drop …                      blocked_connection / by severity
//	                       name or category: threat, attack, malware… threat_detected / by severity
//	                       severity 4 and up                          policy_violation / by severity
//	                       otherwise                                  activity / by severity
//	auditd (type=… msg=audit(…))  its record's fields, for rules     activity / info
//	anything else                                                    activity / info
//
// CEF severity 0–3 is low, 4–6 medium, 7–8 high, 9–10 critical (or its
// names Low, Medium, High, Very-High). FortiGate's level: emergency, alert
// and critical are critical, error high, warning medium, others low.

func readMessage(h header) Record {
	r := Record{Type: event.TypeActivity, Severity: event.Info, Message: h.msg, Details: map[string]any{}}
	msg := h.msg
	switch {
	case strings.HasPrefix(msg, "<Event"):
		if w, ok := readWindowsXML(msg); ok {
			w.Details["format"] = "xml"
			return w
		}
	case h.app == "sshd":
		readSSHD(&r, msg)
	case h.app == "sudo":
		readSudo(&r, msg)
	case strings.Contains(msg, "pam_"):
		readPAM(&r, msg)
	case h.app == "filterlog":
		readFilterlog(&r, msg)
	case h.app == "kernel" && strings.Contains(msg, " SRC=") && strings.Contains(msg, " DST="):
		readNetfilter(&r, msg)
	case strings.Contains(msg, "CEF:") || cefBare.MatchString(msg):
		readCEF(&r, msg)
	case strings.Contains(msg, "logid=") && (strings.Contains(msg, "devname=") || strings.Contains(msg, "date=")):
		readFortiGate(&r, msg)
	case strings.Contains(msg, "msg=audit("):
		readAuditd(&r, msg)
	}
	r.Category = cmp.Or(r.Category, h.app)
	return r
}

var (
	sshFailed   = regexp.MustCompile(`^Failed (\S+) for (?:invalid user )?(.*?) from (\S+) port (\d+)`)
	sshAccepted = regexp.MustCompile(`^Accepted (\S+) for (.*?) from (\S+) port (\d+)`)
	sshInvalid  = regexp.MustCompile(`^Invalid user (.*?) from (\S+)(?: port (\d+))?`)
	sshPreauth  = regexp.MustCompile(`^(?:Disconnected from|Connection closed by|Received disconnect from) (?:(?:authenticating|invalid) user (.*?) )?(\S+) port (\d+).*\[preauth\]`)
	sshRefused  = regexp.MustCompile(`^(?:Unable to negotiate with|Did not receive identification string from|banner exchange: Connection from) (\S+?)(?: port (\d+))?(?::|$| )`)
	sshMaxAuth  = regexp.MustCompile(`^(?:error: )?maximum authentication attempts exceeded for (?:invalid user )?(.*?) from (\S+) port (\d+)`)
	pamFailure  = regexp.MustCompile(`authentication failure;.*?rhost=(\S*)(?:\s+user=(\S+))?`)
	pamTally    = regexp.MustCompile(`pam_tally2?\(.*?\): user (\S+) \(\d+\) tally (\d+), deny (\d+)`)
	sudoCommand = regexp.MustCompile(`^\s*(\S+) : (?:(.*?) ; )?TTY=.*?; PWD=.*?; USER=(\S+) ; (?:.*?; )?COMMAND=(.*)$`)
	cefBare     = regexp.MustCompile(`^\d\|[^|]*\|[^|]*\|[^|]*\|[^|]*\|[^|]*\|[^|]*\|`)
)

func failure(r *Record, message string) {
	r.Type, r.Severity, r.Fields.Action = event.TypePolicy, event.Low, "failure"
	r.Message = message
	if r.Fields.SrcIP.IsValid() {
		r.Indicator = r.Fields.SrcIP.String()
	}
}

func readSSHD(r *Record, msg string) {
	r.Category = "sshd"
	// Each pattern is tried only on the lines that start as it does: most
	// lines are one kind, and a regular expression that cannot match still
	// costs a scan.
	has := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(msg, p) {
				return true
			}
		}
		return false
	}
	fail := func(m []string, user, ip, port_ int) {
		if user > 0 {
			r.Fields.User = m[user]
		}
		r.Fields.SrcIP, r.Fields.SrcPort = addr(m[ip]), port(m[port_])
		failure(r, msg)
	}
	switch {
	case has("Failed "):
		if m := sshFailed.FindStringSubmatch(msg); m != nil {
			fail(m, 2, 3, 4)
			return
		}
	case has("Invalid user "):
		if m := sshInvalid.FindStringSubmatch(msg); m != nil {
			fail(m, 1, 2, 3)
			return
		}
	case has("maximum authentication", "error: maximum authentication"):
		if m := sshMaxAuth.FindStringSubmatch(msg); m != nil {
			fail(m, 1, 2, 3)
			return
		}
	case has("Disconnected from", "Connection closed by", "Received disconnect from"):
		if m := sshPreauth.FindStringSubmatch(msg); m != nil && m[1] != "" {
			fail(m, 1, 2, 3)
			return
		}
	case has("Unable to negotiate with", "Did not receive identification string from", "banner exchange: Connection from"):
		if m := sshRefused.FindStringSubmatch(msg); m != nil {
			fail(m, 0, 1, 2)
			r.Fields.Action = "refused"
			return
		}
	case has("Accepted "):
		if m := sshAccepted.FindStringSubmatch(msg); m != nil {
			r.Fields.User, r.Fields.SrcIP, r.Fields.SrcPort, r.Fields.Action = m[2], addr(m[3]), port(m[4]), "success"
			r.Details["method"] = m[1]
			return
		}
	}
	if strings.Contains(msg, "authentication failure") {
		readPAM(r, msg)
	}
}

func readSudo(r *Record, msg string) {
	r.Category = "sudo"
	if m := sudoCommand.FindStringSubmatch(msg); m != nil {
		r.Fields.User, r.Fields.CommandLine, r.Fields.Action = m[1], m[4], "sudo"
		r.Details["run_as"] = text(m[3], 64)
		switch {
		case strings.Contains(m[2], "NOT in sudoers"):
			r.Type, r.Severity, r.Fields.Action = event.TypePolicy, event.Medium, "denied"
		case strings.Contains(m[2], "incorrect password"):
			r.Type, r.Severity, r.Fields.Action = event.TypePolicy, event.Low, "failure"
		}
		return
	}
	if strings.Contains(msg, "pam_") {
		readPAM(r, msg)
	}
}

func readPAM(r *Record, msg string) {
	if m := pamFailure.FindStringSubmatch(msg); m != nil {
		r.Fields.SrcIP, r.Fields.User = addr(m[1]), m[2]
		failure(r, msg)
		return
	}
	if m := pamTally.FindStringSubmatch(msg); m != nil {
		r.Fields.User = m[1]
		failure(r, msg)
	}
}

// readFilterlog reads pfSense's and OPNsense's comma-separated filter log:
// rule, sub rule, anchor, tracker, interface, reason, action, direction,
// IP version, then the IPv4 or IPv6 header fields, then the ports.
func readFilterlog(r *Record, msg string) {
	f := strings.Split(msg, ",")
	if len(f) < 9 {
		return
	}
	r.Category = "filterlog"
	action, direction := f[6], f[7]
	var proto, src, dst, sport, dport string
	switch f[8] {
	case "4":
		if len(f) > 19 {
			proto, src, dst = f[16], f[18], f[19]
			if len(f) > 21 {
				sport, dport = f[20], f[21]
			}
		}
	case "6":
		if len(f) > 16 {
			proto, src, dst = f[12], f[15], f[16]
			if len(f) > 18 {
				sport, dport = f[17], f[18]
			}
		}
	}
	r.Fields.SrcIP, r.Fields.DstIP, r.Fields.Rule, r.Fields.Action = addr(src), addr(dst), f[3], action
	if p := strings.ToLower(proto); p == "tcp" || p == "udp" {
		r.Fields.SrcPort, r.Fields.DstPort = port(sport), port(dport)
	}
	r.Details["interface"], r.Details["direction"], r.Details["proto"] = text(f[4], 64), text(direction, 8), text(proto, 16)
	verb := "Passed"
	if action == "block" || action == "reject" {
		r.Type, r.Severity, verb = event.TypeBlocked, event.Low, "Blocked"
	}
	r.Message = verb + " " + direction + " " + flow(proto, r.Fields) + " on " + f[4] + " (rule " + f[3] + ")"
	r.Asset = protected(r.Fields.SrcIP, r.Fields.DstIP)
	r.Indicator = other(r.Asset, r.Fields.SrcIP, r.Fields.DstIP)
}

// keyValues reads key=value pairs where values may be quoted (FortiGate)
// or run to the next " key=" (CEF's extension, with \= \\ escaped).
func keyValues(s string, cef bool) map[string]string {
	out := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return out
		}
		key := strings.TrimSpace(s[:eq])
		s = s[eq+1:]
		var value string
		switch {
		case !cef && strings.HasPrefix(s, `"`):
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				value, s = s[1:], ""
			} else {
				value, s = s[1:end+1], s[end+2:]
			}
		case cef:
			end := nextCEFKey(s)
			value, s = s[:end], s[end:]
			value = strings.NewReplacer(`\=`, "=", `\\`, `\`, `\n`, " ", `\r`, " ").Replace(strings.TrimSpace(value))
		default:
			value, s, _ = strings.Cut(s, " ")
		}
		if len(out) < 200 && key != "" && !strings.Contains(key, " ") {
			out[key] = value
		}
		s = strings.TrimLeft(s, " ")
	}
	return out
}

// nextCEFKey is where the next " key=" starts in a CEF extension value.
func nextCEFKey(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] != ' ' {
			continue
		}
		j := i + 1
		for j < len(s) && (isWordByte(s[j])) {
			j++
		}
		if j > i+1 && j < len(s) && s[j] == '=' {
			return i
		}
	}
	return len(s)
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

var blockWords = []string{"block", "deny", "denied", "drop", "reject", "blocked", "dropped", "close-deny"}

func isBlock(action string) bool {
	a := strings.ToLower(action)
	for _, w := range blockWords {
		if a == w || strings.HasPrefix(a, w) {
			return true
		}
	}
	return false
}

func readFortiGate(r *Record, msg string) {
	kv := keyValues(msg, false)
	r.Raw = &Raw{Format: FormatSyslog, Log: RawFortiGate, text: kv}
	r.Category = "fortigate"
	if kv["type"] != "" {
		r.Category = "fortigate_" + kv["type"]
	}
	if t, ok := parseTime(kv["date"]+"T"+kv["time"]+kv["tz"], []string{"2006-01-02T15:04:05-0700", "2006-01-02T15:04:05Z07:00"}); ok {
		r.Timestamp = t
	} else if t, ok := parseTime(kv["date"]+"T"+kv["time"], []string{"2006-01-02T15:04:05"}); ok {
		r.Timestamp = t
	}
	f := &r.Fields
	f.SrcIP, f.DstIP = addr(cmp.Or(kv["srcip"], kv["remip"])), addr(kv["dstip"])
	f.SrcPort, f.DstPort = port(kv["srcport"]), port(kv["dstport"])
	f.User, f.Action, f.Host = kv["user"], kv["action"], kv["devname"]
	f.Rule = cmp.Or(kv["attack"], kv["virus"], kv["policyid"], kv["logid"])
	r.Message = cmp.Or(kv["logdesc"], kv["msg"], kv["attack"], "FortiGate "+kv["type"]+" "+kv["subtype"])
	if m := kv["msg"]; m != "" && m != r.Message {
		r.Message += ": " + m
	}
	for _, k := range []string{"logid", "type", "subtype", "level", "vd", "reason", "service", "policyid", "attack", "virus", "url", "hostname"} {
		if v := kv[k]; v != "" {
			r.Details[k] = text(v, maxDetail)
		}
	}
	desc := strings.ToLower(kv["logdesc"] + " " + kv["action"])
	switch {
	case kv["type"] == "utm" || kv["subtype"] == "ips" || kv["subtype"] == "virus" || kv["subtype"] == "anomaly":
		r.Type, r.Severity = event.TypeThreat, fortiLevel(kv["level"], event.Medium)
	case strings.Contains(desc, "login fail") || strings.Contains(desc, "login-fail") || strings.Contains(desc, "auth fail"):
		failure(r, r.Message)
		f.Action = kv["action"]
	case isBlock(kv["action"]):
		r.Type, r.Severity = event.TypeBlocked, event.Low
	}
	if r.Indicator == "" && r.Type != event.TypeActivity && f.SrcIP.IsValid() {
		r.Indicator = f.SrcIP.String()
	}
}

func fortiLevel(level string, otherwise event.Severity) event.Severity {
	switch level {
	case "emergency", "alert", "critical":
		return event.Critical
	case "error":
		return event.High
	case "warning":
		return event.Medium
	case "notice", "information":
		return event.Low
	}
	return otherwise
}

func readCEF(r *Record, msg string) {
	if i := strings.Index(msg, "CEF:"); i >= 0 {
		msg = strings.TrimLeft(msg[i+4:], " ")
	}
	parts := splitCEFHeader(msg)
	if len(parts) < 8 {
		return
	}
	vendor, product, sigID, name, sev := parts[1], parts[2], parts[4], parts[5], parts[6]
	kv := keyValues(parts[7], true)
	r.Category = "cef"
	f := &r.Fields
	f.SrcIP, f.DstIP = addr(kv["src"]), addr(kv["dst"])
	f.SrcPort, f.DstPort = port(kv["spt"]), port(kv["dpt"])
	f.User = cmp.Or(kv["suser"], kv["duser"])
	f.Host = cmp.Or(kv["dvchost"], kv["shost"])
	f.Process = cmp.Or(kv["sproc"], kv["dproc"])
	f.Action, f.Rule = kv["act"], sigID
	r.Message = name
	if m := kv["msg"]; m != "" && m != name {
		r.Message += ": " + m
	}
	if t, ok := cefTime(cmp.Or(kv["rt"], kv["end"], kv["UNIFIutcTime"])); ok {
		r.Timestamp = t
	}
	r.Details["vendor"], r.Details["product"], r.Details["signature_id"] = text(vendor, 64), text(product, 64), text(sigID, 64)
	for _, k := range []string{"cat", "proto", "app", "request", "cs1", "cs2", "cs3", "cs4", "cs5", "cs6"} {
		if v := kv[k]; v != "" {
			r.Details[k] = text(v, maxDetail)
		}
	}
	severity := cefSeverity(sev)
	words := strings.ToLower(name + " " + kv["cat"])
	switch {
	case isBlock(kv["act"]) || strings.Contains(words, "blocked"):
		r.Type, r.Severity = event.TypeBlocked, severity
	case containsAny(words, "threat", "attack", "malware", "intrusion", "exploit", "virus", "trojan", "botnet"):
		r.Type, r.Severity = event.TypeThreat, severity
	case severity >= event.Medium:
		r.Type, r.Severity = event.TypePolicy, severity
	default:
		r.Severity = severity
	}
	r.Asset = protected(f.SrcIP, f.DstIP)
	r.Indicator = other(r.Asset, f.SrcIP, f.DstIP)
}

func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// splitCEFHeader cuts the seven header fields (pipes escaped as \|) from
// the extension.
func splitCEFHeader(s string) []string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		if len(parts) == 7 {
			return append(parts, s[i:])
		}
		switch {
		case s[i] == '\\' && i+1 < len(s) && (s[i+1] == '|' || s[i+1] == '\\'):
			cur.WriteByte(s[i+1])
			i++
		case s[i] == '|':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	if len(parts) == 7 {
		parts = append(parts, cur.String())
	}
	return parts
}

func cefSeverity(s string) event.Severity {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "0", "1", "2", "3", "low", "unknown":
		return event.Low
	case "4", "5", "6", "medium":
		return event.Medium
	case "7", "8", "high":
		return event.High
	case "9", "10", "very-high":
		return event.Critical
	}
	return event.Low
}

func readNetfilter(r *Record, msg string) {
	r.Category = "netfilter"
	prefix, rest, _ := strings.Cut(msg, "IN=")
	kv := keyValues("IN="+rest, false)
	f := &r.Fields
	f.SrcIP, f.DstIP = addr(kv["SRC"]), addr(kv["DST"])
	f.SrcPort, f.DstPort = port(kv["SPT"]), port(kv["DPT"])
	proto := kv["PROTO"]
	r.Details["in"], r.Details["out"], r.Details["proto"] = text(kv["IN"], 32), text(kv["OUT"], 32), text(proto, 16)
	// The log prefix a rule sets, after the kernel's "[uptime]".
	prefix = strings.TrimSpace(prefix)
	if uptime, rest, ok := strings.Cut(prefix, "] "); ok && strings.HasPrefix(uptime, "[") &&
		strings.Trim(uptime[1:], "0123456789. ") == "" {
		prefix = strings.TrimSpace(rest)
	} else if strings.HasPrefix(prefix, "[") && strings.HasSuffix(prefix, "]") && strings.Trim(prefix[1:len(prefix)-1], "0123456789. ") == "" {
		prefix = ""
	}
	f.Rule = prefix
	if containsAny(strings.ToUpper(prefix), "ACCEPT", "ALLOW", "PASS") {
		f.Action = "allow"
		r.Message = "Allowed " + flow(proto, *f)
	} else {
		f.Action = "block"
		r.Type, r.Severity = event.TypeBlocked, event.Low
		r.Message = "Blocked " + flow(proto, *f)
	}
	if prefix != "" {
		r.Message += " (" + prefix + ")"
	}
	r.Asset = protected(f.SrcIP, f.DstIP)
	r.Indicator = other(r.Asset, f.SrcIP, f.DstIP)
}

// cefTime reads rt: epoch milliseconds or "MMM dd yyyy HH:mm:ss", or an
// RFC 3339 time.
func cefTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && ms > 0 {
		return time.UnixMilli(ms).UTC(), true
	}
	return parseTime(s, []string{time.RFC3339Nano, "Jan 02 2006 15:04:05", "Jan 2 2006 15:04:05", "Jan 02 2006 15:04:05.000"})
}
