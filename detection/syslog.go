package detection

import (
	"strings"

	"garrison/sigma"
	"garrison/telemetry"
)

// A syslog line is read by Sigma's Linux rules: its message (field
// "message", which keyword rules search) and program ("program") under
// product linux, service syslog, and the service of the program that
// wrote it (sshd, cron …, linuxServices). An auditd record gives its own
// fields under service auditd; a FortiGate line its key=value pairs
// under product fortigate and its log type as the service ("event").

// linuxServices are Sigma's Linux services by the program that logs them,
// lower-case.
var linuxServices = map[string][]string{
	"sshd":      {"sshd", "auth"},
	"sudo":      {"sudo", "auth"},
	"su":        {"auth"},
	"login":     {"auth"},
	"passwd":    {"auth"},
	"chpasswd":  {"auth"},
	"useradd":   {"auth"},
	"userdel":   {"auth"},
	"usermod":   {"auth"},
	"groupadd":  {"auth"},
	"cron":      {"cron"},
	"crond":     {"cron"},
	"crontab":   {"cron"},
	"clamd":     {"clamav"},
	"clamav":    {"clamav"},
	"clamscan":  {"clamav"},
	"freshclam": {"clamav"},
	"vsftpd":    {"vsftpd"},
	"guacd":     {"guacamole"},
	"guacamole": {"guacamole"},
}

func syslogEvent(raw *telemetry.Raw) (sigma.Event, []sigma.Logsource) {
	e := make(sigma.Event, raw.Len())
	raw.FieldsInto(e)
	switch raw.Log {
	case telemetry.RawFortiGate:
		sources := []sigma.Logsource{{Product: "fortigate"}}
		if t := e["type"]; t != "" {
			sources = append(sources, sigma.Logsource{Product: "fortigate", Service: t})
		}
		return e, sources
	case telemetry.RawAuditd:
		return e, []sigma.Logsource{{Product: "linux"}, {Product: "linux", Service: "auditd"}}
	}
	sources := []sigma.Logsource{{Product: "linux"}, {Product: "linux", Service: "syslog"}}
	for _, s := range linuxServices[strings.ToLower(raw.Log)] {
		sources = append(sources, sigma.Logsource{Product: "linux", Service: s})
	}
	return e, sources
}
