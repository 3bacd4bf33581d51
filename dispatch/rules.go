package dispatch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"garrison/event"
	"garrison/store"
	"garrison/valid"
)

// Bounds of a rule.
const (
	MaxConditions      = 50               // entries of one condition list
	MaxGroupWindow     = 24 * time.Hour   // the longest grouping window
	MaxEscalateMinutes = 24 * 60          // the longest wait before escalating
	MaxEscalations     = 10               // escalations of one alert
	DefaultEscalate    = 15 * time.Minute // unacknowledged for this long, a critical alert escalates
	DefaultEscalations = 3
)

// Facts are what a rule matches an alert on.
type Facts struct {
	OrgID     string // the alert's organization
	Severity  event.Severity
	Category  string
	EventType string
	Asset     string
	Source    string
}

// Matches says whether an enabled rule selects the alert: every condition
// holds (an empty list holds for any value).
func Matches(r store.NotifyRule, f Facts) bool {
	in := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
	return r.Enabled && f.Severity >= r.MinSeverity && in(r.Categories, f.Category) && in(r.EventTypes, f.EventType) &&
		in(r.Assets, f.Asset) && in(r.Sources, f.Source) && (len(r.Clients) == 0 || slices.Contains(r.Clients, f.OrgID))
}

// Applicable picks the rules that route an alert of org: the matching
// rules of its own, and of its provider's unless one of its own matching
// rules overrides the provider's. A provider's rule naming clients routes
// only those clients' alerts.
func Applicable(own, provider []store.NotifyRule, f Facts) []store.NotifyRule {
	var out []store.NotifyRule
	override := false
	for _, r := range own {
		if ownMatches(r, f) {
			out = append(out, r)
			override = override || r.OverridesProvider
		}
	}
	if override {
		return out
	}
	for _, r := range provider {
		if Matches(r, f) {
			out = append(out, r)
		}
	}
	return out
}

// ownMatches is Matches for the rules of the alert's own organization,
// where a client list (a provider's own rule) names clients, not itself.
func ownMatches(r store.NotifyRule, f Facts) bool {
	if len(r.Clients) > 0 {
		return false
	}
	return Matches(r, f)
}

// QuietUntil is when the rule's quiet hours end if at is inside them, and
// the zero time otherwise. Quiet hours may span midnight (22:00–07:00).
func QuietUntil(r store.NotifyRule, at time.Time) time.Time {
	if r.QuietStart == nil || r.QuietEnd == nil || *r.QuietStart == *r.QuietEnd {
		return time.Time{}
	}
	loc, err := time.LoadLocation(r.QuietZone)
	if err != nil {
		loc = time.UTC // checked when the rule was saved; a zone removed since is read as UTC
	}
	local := at.In(loc)
	midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	minute := local.Hour()*60 + local.Minute()
	start, end := *r.QuietStart, *r.QuietEnd
	dayAt := func(day time.Time, m int) time.Time {
		return time.Date(day.Year(), day.Month(), day.Day(), m/60, m%60, 0, 0, loc)
	}
	switch {
	case start < end && minute >= start && minute < end:
		return dayAt(midnight, end)
	case start > end && minute >= start:
		return dayAt(midnight.AddDate(0, 0, 1), end)
	case start > end && minute < end:
		return dayAt(midnight, end)
	}
	return time.Time{}
}

// RuleInput is a rule as an admin writes it.
type RuleInput struct {
	Name               string
	Enabled            *bool // nil: enabled
	MinSeverity        string
	Categories         []string
	EventTypes         []string
	Clients            []string
	Assets             []string
	Sources            []string
	Channels           []string
	QuietStart         string // "22:00"; both empty for none
	QuietEnd           string
	QuietZone          string // an IANA zone; "" is UTC
	GroupSeconds       int
	EscalateMinutes    *int // nil: DefaultEscalate
	EscalateMax        *int // nil: DefaultEscalations
	EscalationChannels []string
	OverridesProvider  bool
}

// clockMinutes reads "HH:MM" as minutes after midnight.
func clockMinutes(s string) (int, bool) {
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(h) != 2 || len(m) != 2 {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || hh > 23 || mm < 0 || mm > 59 {
		return 0, false
	}
	return hh*60 + mm, true
}

// Clock writes minutes after midnight as "HH:MM".
func Clock(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }

// rule judges an input and builds the rule it describes.
func (in RuleInput) rule(orgID string) (store.NotifyRule, error) {
	var p valid.Problems
	r := store.NotifyRule{OrgID: orgID, Name: in.Name, Enabled: in.Enabled == nil || *in.Enabled, Categories: in.Categories,
		EventTypes: in.EventTypes, Clients: in.Clients, Assets: in.Assets, Sources: in.Sources, GroupSeconds: in.GroupSeconds,
		EscalateMinutes: int(DefaultEscalate / time.Minute), EscalateMax: DefaultEscalations, OverridesProvider: in.OverridesProvider,
		Channels: in.Channels, EscalationChannels: in.EscalationChannels, QuietZone: in.QuietZone}
	p.Check(valid.Name(in.Name), "name", fmt.Sprintf("must be 1 to %d printable characters", valid.MaxName))
	sev, ok := event.ParseSeverity(in.MinSeverity)
	p.Check(ok, "min_severity", "must be one of "+strings.Join(event.SeverityNames(), ", "))
	r.MinSeverity = sev
	checkList(&p, "categories", in.Categories, func(v string) bool { return slices.Contains(event.Categories, v) },
		"one of "+strings.Join(event.Categories, ", "))
	checkList(&p, "event_types", in.EventTypes, event.ValidType, "one of "+strings.Join(event.Types, ", "))
	checkList(&p, "clients", in.Clients, func(v string) bool { return v != "" }, "client organization ids")
	checkList(&p, "assets", in.Assets, valid.Name, "asset names")
	checkList(&p, "sources", in.Sources, valid.Name, "source names")
	checkList(&p, "channels", in.Channels, func(v string) bool { return v != "" }, "contact point ids")
	p.Check(len(in.Channels) > 0, "channels", "must name at least one contact point")
	checkList(&p, "escalation.channels", in.EscalationChannels, func(v string) bool { return v != "" }, "contact point ids")
	switch {
	case in.QuietStart == "" && in.QuietEnd == "":
		p.Check(in.QuietZone == "", "quiet_hours.timezone", "is given only with quiet hours")
		r.QuietZone = "UTC"
	default:
		start, ok1 := clockMinutes(in.QuietStart)
		end, ok2 := clockMinutes(in.QuietEnd)
		p.Check(ok1, "quiet_hours.start", "must be a time of day as HH:MM (00:00 to 23:59)")
		p.Check(ok2, "quiet_hours.end", "must be a time of day as HH:MM (00:00 to 23:59)")
		p.Check(!ok1 || !ok2 || start != end, "quiet_hours.end", "must differ from the start")
		r.QuietStart, r.QuietEnd = &start, &end
		if r.QuietZone == "" {
			r.QuietZone = "UTC"
		}
		_, err := time.LoadLocation(r.QuietZone)
		p.Check(err == nil && len(r.QuietZone) <= 64, "quiet_hours.timezone", "must be an IANA time zone such as Europe/Berlin or UTC")
	}
	p.Check(in.GroupSeconds >= 0 && in.GroupSeconds <= int(MaxGroupWindow/time.Second), "group_seconds",
		fmt.Sprintf("must be 0 (no grouping) to %d", int(MaxGroupWindow/time.Second)))
	if in.EscalateMinutes != nil {
		r.EscalateMinutes = *in.EscalateMinutes
		p.Check(r.EscalateMinutes >= 1 && r.EscalateMinutes <= MaxEscalateMinutes, "escalation.after_minutes",
			fmt.Sprintf("must be 1 to %d", MaxEscalateMinutes))
	}
	if in.EscalateMax != nil {
		r.EscalateMax = *in.EscalateMax
		p.Check(r.EscalateMax >= 1 && r.EscalateMax <= MaxEscalations, "escalation.max", fmt.Sprintf("must be 1 to %d", MaxEscalations))
	}
	return r, p.Err()
}

func checkList(p *valid.Problems, field string, list []string, ok func(string) bool, what string) {
	if len(list) > MaxConditions {
		p.Add(field, fmt.Sprintf("must hold at most %d entries", MaxConditions))
		return
	}
	seen := map[string]bool{}
	for _, v := range list {
		if !ok(v) || seen[v] {
			p.Add(field, "must be distinct "+what)
			return
		}
		seen[v] = true
	}
}
