// Package detection runs Sigma rules (package sigma) on ingested events:
// it turns a record of a source into the fields and log sources rules
// read, and picks the rules an event's log sources call for.
package detection

import (
	"garrison/sigma"
	"garrison/telemetry"
)

// Input is a record as rules read it: nil when its source has no rules.
func Input(raw *telemetry.Raw) (sigma.Event, []sigma.Logsource) {
	if raw == nil {
		return nil, nil
	}
	switch raw.Format {
	case telemetry.FormatWindows:
		return windowsEvent(raw)
	case telemetry.FormatZeek:
		return zeekEvent(raw)
	case telemetry.FormatSyslog:
		return syslogEvent(raw)
	}
	return nil, nil
}
