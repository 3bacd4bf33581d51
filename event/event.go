// Package event is the vocabulary of security events, defined once: their
// types, their severity and the categories of the alerts they raise. Every
// other package (ingest, eve, alerting, store, the agents, the demo) speaks
// in these names.
package event

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"garrison/valid"
)

// Event types.
const (
	TypeThreat  = "threat_detected"
	TypeBlocked = "blocked_connection"
	TypeDNS     = "dns_anomaly"
	TypePolicy  = "policy_violation"
	// TypeActivity is telemetry that is no finding by itself: a sign-in, a
	// process start, a connection, a firewall pass. It is stored and
	// searched, and raises no alert on its own (not even in a burst).
	TypeActivity = "activity"
)

// Types lists the event types in the order the API documents them.
var Types = []string{TypeThreat, TypeBlocked, TypeDNS, TypePolicy, TypeActivity}

// TypeCount is len(Types), for arrays of counts by type.
const TypeCount = 5

// ValidType reports whether t is one of Types.
func ValidType(t string) bool {
	switch t {
	case TypeThreat, TypeBlocked, TypeDNS, TypePolicy, TypeActivity:
		return true
	}
	return false
}

// Severity orders events and alerts from Info to Critical; it is stored as
// its number and shown as its name.
type Severity int

// The severities, lowest first.
const (
	Info Severity = iota
	Low
	Medium
	High
	Critical
)

// Levels is the number of severities: the size of a count by severity.
const Levels = 5

var severityNames = [Levels]string{"info", "low", "medium", "high", "critical"}

// Severities lists the severities, lowest first.
var Severities = []Severity{Info, Low, Medium, High, Critical}

// SeverityNames lists the severity names, lowest first.
func SeverityNames() []string { return severityNames[:] }

// ParseSeverity reads a severity name.
func ParseSeverity(name string) (Severity, bool) {
	for i, n := range severityNames {
		if n == name {
			return Severity(i), true
		}
	}
	return 0, false
}

// Valid reports whether s is one of the five severities.
func (s Severity) Valid() bool { return s >= Info && s <= Critical }

func (s Severity) String() string {
	if !s.Valid() {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// MarshalText writes the name, so a Severity in a JSON answer reads "high".
func (s Severity) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("invalid severity %d", int(s))
	}
	return []byte(severityNames[s]), nil
}

// UnmarshalText reads a name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, ok := ParseSeverity(string(b))
	if !ok {
		return fmt.Errorf("unknown severity %q: want one of %s", b, strings.Join(severityNames[:], ", "))
	}
	*s = v
	return nil
}

// Counts is a number per severity.
type Counts [Levels]int

// Total adds up every severity.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// AtLeast adds up the severities from min up.
func (c Counts) AtLeast(min Severity) int {
	n := 0
	for s := min; s <= Critical; s++ {
		n += c[s]
	}
	return n
}

// ByName is the counts keyed by severity name, every severity present.
func (c Counts) ByName() map[string]int {
	m := make(map[string]int, Levels)
	for i, n := range severityNames {
		m[n] = c[i]
	}
	return m
}

// Alert categories: what kind of trouble an alert is about.
const (
	CategoryMalware        = "malware"
	CategoryIntrusion      = "intrusion_attempt"
	CategoryReconnaissance = "reconnaissance"
	CategoryBlocked        = "blocked_traffic"
	CategoryDNS            = "dns_anomaly"
	CategoryPolicy         = "policy_violation"
	CategoryBurst          = "activity_burst"
	// Alerts Garrison raises about itself: a sensor fell silent, a
	// credential a sensor uses expired, a contact point keeps failing.
	CategorySilent        = "sensor_silent"
	CategoryKeyExpired    = "credential_expired"
	CategoryNotifyFailing = "notification_failing"
)

// Categories lists the alert categories.
var Categories = []string{CategoryMalware, CategoryIntrusion, CategoryReconnaissance, CategoryBlocked, CategoryDNS,
	CategoryPolicy, CategoryBurst, CategorySilent, CategoryKeyExpired, CategoryNotifyFailing}

// Event is a stored security event, as the API lists it.
type Event struct {
	ID         string
	OrgID      string
	Type       string
	Severity   Severity
	Timestamp  time.Time
	Source     string
	Asset      string
	Message    string
	Indicator  string
	Details    []byte // its JSON details, nil when it has none
	AlertID    string
	ReceivedAt time.Time
	Fields     Fields
	Original   string // the record as received, when it is read alone
}

// ParseSeverities reads a comma list of severity names into p's field; one
// named twice counts once (the events page merges one index range per
// severity). An empty list is no filter.
func ParseSeverities(p *valid.Problems, field, list string) []Severity {
	if list == "" {
		return nil
	}
	var out []Severity
	for _, name := range strings.Split(list, ",") {
		s, ok := ParseSeverity(strings.TrimSpace(name))
		if !ok {
			p.Add(field, "must be a comma list of "+strings.Join(SeverityNames(), ", "))
			return nil
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
