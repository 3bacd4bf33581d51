package alerting

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"time"

	"garrison/actor"
	"garrison/event"
	"garrison/valid"
)

// IncidentWindow is how long an incident takes in new alerts of its
// attacker: an alert joins the incident whose last alert is at most this
// old, else it opens a new one.
const IncidentWindow = 24 * time.Hour

// Attacker is who an event points at, the key incidents group alerts
// by: the outside address of traffic crossing the boundary (the scanner
// of an inbound attack, the command-and-control server an internal host
// beacons to), the source of traffic inside it or outside it, else the
// account of a sign-in ("user:alice"); "" when the event names none.
func Attacker(e Event) string {
	src, dst := e.SrcIP, e.DstIP
	switch {
	case src.IsValid() && dst.IsValid() && internalAddr(src) && !internalAddr(dst):
		return "ip:" + dst.String()
	case src.IsValid():
		return "ip:" + src.String()
	case e.User != "":
		return "user:" + strings.ToLower(e.User)
	}
	return ""
}

func internalAddr(a netip.Addr) bool {
	return a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast()
}

// KillChain is ATT&CK's enterprise tactics in the order an intrusion
// goes through them (with stealth and defense-impairment, the names
// ATT&CK v18 gave defense evasion's halves).
var KillChain = []string{"reconnaissance", "resource-development", "initial-access", "execution", "persistence",
	"privilege-escalation", "defense-evasion", "stealth", "defense-impairment", "credential-access", "discovery",
	"lateral-movement", "collection", "command-and-control", "exfiltration", "impact"}

// categoryTactics are the tactics an alert of Garrison's own rules stands
// for, by its category.
var categoryTactics = map[string]string{
	event.CategoryReconnaissance: "reconnaissance",
	event.CategoryIntrusion:      "initial-access",
	event.CategoryMalware:        "command-and-control",
}

// Tactics returns the ATT&CK tactics of alerts in kill-chain order, each
// once: a rule's tags (attack.<tactic>) where it has them, else its
// category's.
func Tactics(alerts []Alert) []string {
	seen := map[string]bool{}
	for _, a := range alerts {
		found := false
		if a.Rule != nil {
			for _, t := range a.Rule.Tags {
				name := strings.ReplaceAll(strings.TrimPrefix(t, "attack."), "_", "-")
				if slices.Contains(KillChain, name) {
					seen[name], found = true, true
				}
			}
		}
		if t, ok := categoryTactics[a.Category]; ok && !found {
			seen[t] = true
		}
	}
	out := []string{}
	for _, t := range KillChain {
		if seen[t] {
			out = append(out, t)
		}
	}
	return out
}

// Incident is alerts sharing an attacker within IncidentWindow of each
// other, across signatures and assets.
type Incident struct {
	ID         string
	Attacker   string // "ip:203.0.113.5" or "user:alice"
	Status     string // open while one of its alerts is
	Severity   event.Severity
	AlertCount int
	Assets     []string
	Tactics    []string
	FirstSeen  time.Time
	LastSeen   time.Time
	CreatedAt  time.Time
}

// IncidentDetail is an incident with its alerts, oldest first: its timeline.
type IncidentDetail struct {
	Incident
	Alerts []Alert
}

// IncidentFilter selects incidents: open ones (one of their alerts open)
// or resolved ones, "" for all; a page of them.
type IncidentFilter struct {
	Status        string
	Limit, Offset int
}

// IncidentStore is what the incident desk reads.
type IncidentStore interface {
	Incidents(ctx context.Context, orgID string, f IncidentFilter) ([]Incident, int, error)
	Incident(ctx context.Context, orgID, id string) (IncidentDetail, error)
}

// ListIncidents returns a page of the actor's organization's incidents,
// the filter judged.
func ListIncidents(ctx context.Context, st IncidentStore, who actor.Actor, f IncidentFilter) ([]Incident, int, error) {
	if f.Status != "" {
		var p valid.Problems
		validStatus(&p, f.Status)
		if err := p.Err(); err != nil {
			return nil, 0, err
		}
	}
	return st.Incidents(ctx, who.OrgID, f)
}

// GetIncident returns one of the actor's organization's incidents.
func GetIncident(ctx context.Context, st IncidentStore, who actor.Actor, id string) (IncidentDetail, error) {
	return st.Incident(ctx, who.OrgID, id)
}
