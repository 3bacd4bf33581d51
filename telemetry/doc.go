// Package telemetry reads the logs an MSP's clients already produce into
// Garrison's one event model: Wazuh alerts, Zeek logs (JSON or TSV),
// Windows event records (evtx_dump, Winlogbeat, NXLog, osquery) and syslog
// lines (RFC 5424 and RFC 3164; sshd, sudo, PAM, pfSense/OPNsense
// filterlog, Linux netfilter, FortiGate and CEF). Each record becomes a
// [Record] with its normalised fields ([event.Fields]) and its original
// text, bounded; a record that cannot be read is a [Problem] naming its
// line, so a caller may keep the others. It only parses: it stores nothing.
//
// Every mapping (which records are findings, their type and severity) is
// in the table at the top of the format's file.
package telemetry
