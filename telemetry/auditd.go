package telemetry

import (
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Linux audit records (auditd's log, or audisp forwarding it over
// syslog): "type=EXECVE msg=audit(1684329817.579:2995): argc=2 a0="ls" …",
// with the ENRICHED format's interpreted fields (SYSCALL=execve) after a
// 0x1d byte. The record's fields are kept by auditd's names for the
// detection rules (Sigma's linux auditd rules read type, SYSCALL, exe,
// comm, a0 …). An argument auditd wrote in hex (unquoted, because it held
// a space or a quote) is decoded, as ausearch -i shows it.

// maxAuditFields is the most fields one record keeps.
const maxAuditFields = 200

func readAuditd(r *Record, msg string) {
	fields := auditFields(msg)
	r.Category = "auditd"
	r.Raw = &Raw{Format: FormatSyslog, Log: RawAuditd, text: fields}
	if t, ok := auditTime(fields["msg"]); ok {
		r.Timestamp = t
	}
	if node := fields["node"]; node != "" {
		r.Fields.Host = node
	}
	r.Fields.Process = fields["exe"]
	if r.Fields.Process == "" {
		r.Fields.Process = fields["comm"]
	}
	if t := fields["type"]; t != "" {
		r.Details["audit_type"] = text(t, 64)
	}
}

// auditFields reads an audit record's name=value pairs: a quoted value as
// written, an unquoted one of an argument or proctitle decoded from hex
// when it is hex.
func auditFields(s string) map[string]string {
	out := map[string]string{}
	s = strings.ReplaceAll(s, "\x1d", " ")
	for s = strings.TrimSpace(s); s != "" && len(out) < maxAuditFields; s = strings.TrimLeft(s, " ") {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return out
		}
		key := s[:eq]
		if sp := strings.LastIndexByte(key, ' '); sp >= 0 { // a word without a value before it
			key = key[sp+1:]
		}
		s = s[eq+1:]
		var value string
		quoted := strings.HasPrefix(s, `"`)
		if quoted {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				value, s = s[1:], ""
			} else {
				value, s = s[1:end+1], s[end+2:]
			}
		} else {
			value, s, _ = strings.Cut(s, " ")
		}
		if key == "msg" && strings.HasPrefix(value, "audit(") { // msg=audit(…): the rest are the record's own fields
			value = strings.TrimSuffix(value, ":")
		}
		if !quoted && isAuditHexField(key, out["type"]) {
			if b, err := hex.DecodeString(value); err == nil && len(value) > 0 {
				value = strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ")
			}
		}
		if key != "" {
			out[key] = strings.ToValidUTF8(value, "\uFFFD")
		}
	}
	return out
}

// isAuditHexField reports whether auditd writes the field of a record of
// the type in hex when its value holds what a quoted string cannot: an
// EXECVE record's arguments (a0, a1 …; a SYSCALL record's are numbers),
// a proctitle, a path's name, a command.
func isAuditHexField(key, recordType string) bool {
	switch key {
	case "proctitle", "name", "cmd", "comm", "exe", "cwd":
		return true
	}
	if recordType != "EXECVE" || len(key) < 2 || key[0] != 'a' {
		return false
	}
	_, err := strconv.Atoi(key[1:])
	return err == nil
}

// auditTime reads audit(1684329817.579:2995): seconds since the epoch.
func auditTime(s string) (time.Time, bool) {
	s = strings.TrimPrefix(s, "audit(")
	stamp, _, ok := strings.Cut(s, ":")
	if !ok {
		return time.Time{}, false
	}
	sec, frac, _ := strings.Cut(stamp, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n <= 0 || n > 1e11 {
		return time.Time{}, false
	}
	ms, _ := strconv.Atoi((frac + "000")[:3])
	return time.Unix(n, int64(ms)*int64(time.Millisecond)).UTC(), true
}
