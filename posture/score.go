// Package posture computes an organization's security score from the facts
// the store keeps: the dashboard shows it and the agents report on it.
package posture

import (
	"fmt"
	"math"
	"time"

	"garrison/blocklist"
	"garrison/compliance"
	"garrison/store"

	"garrison/event"
	"garrison/timestamp"
)

// Sub-score weights of the security score; a sub-score that cannot be
// assessed yet is left out and the others are re-weighted (docs/api.md).
var scoreWeights = []struct {
	name   string
	weight float64
}{
	{"threats", 0.35}, {"vulnerabilities", 0.20}, {"compliance", 0.15}, {"identity", 0.15}, {"network", 0.15},
}

// Input is one fact behind a sub-score and what it cost.
type Input struct {
	Name    string `json:"name"`
	Value   any    `json:"value"`
	Penalty int    `json:"penalty"`
	Explain string `json:"explanation"`
}

type SubScore struct {
	Score    *int    `json:"score"` // null when not assessed
	Weight   float64 `json:"weight"`
	Assessed bool    `json:"assessed"`
	Summary  string  `json:"summary"`
	Inputs   []Input `json:"inputs"`
}

type Score struct {
	Score     int                  `json:"score"`
	Grade     string               `json:"grade"`
	Formula   string               `json:"formula"`
	SubScores map[string]*SubScore `json:"sub_scores"`
	Computed  string               `json:"computed_at"`
}

// Facts is everything the score is computed from.
type Facts struct {
	OpenAlerts   event.Counts
	Week         store.EventCounts // the last seven days, whole hours
	HighEvents7d int
	Identity     store.IdentityFacts
	Sources      []store.Source
	DNS7d        map[string]int
	Compliance   []AuditedFramework // frameworks with a completed audit, in the API's order
	Now          time.Time
}

// AuditedFramework is a framework's standing in its latest completed audit.
type AuditedFramework struct {
	Framework string
	Name      string
	Summary   compliance.Summary
	ReportID  string
	AuditedAt time.Time
}

// penalise records one input and what it costs the sub-score.
func (s *SubScore) penalise(name string, value any, penalty int, explain string) {
	s.Inputs = append(s.Inputs, Input{Name: name, Value: value, Penalty: penalty, Explain: explain})
}

func (s *SubScore) finish(summary string) {
	total := 100
	for _, in := range s.Inputs {
		total -= in.Penalty
	}
	total = max(0, min(100, total))
	s.Score, s.Assessed, s.Summary = &total, true, summary
}

func notAssessed(why string) *SubScore {
	return &SubScore{Assessed: false, Summary: why, Inputs: []Input{}}
}

func Compute(f Facts) Score {
	subs := map[string]*SubScore{}

	th := &SubScore{}
	perOpen := event.Counts{event.Low: 1, event.Medium: 3, event.High: 10, event.Critical: 25}
	for sev := event.Critical; sev >= event.Low; sev-- {
		th.penalise("open_"+sev.String()+"_alerts", f.OpenAlerts[sev], min(60, f.OpenAlerts[sev]*perOpen[sev]),
			fmt.Sprintf("each open %s alert costs %d", sev, perOpen[sev]))
	}
	th.penalise("high_or_critical_events_7d", f.HighEvents7d, min(20, f.HighEvents7d/10),
		"one point per ten high or critical events in the last seven days, at most 20")
	th.finish("Open alerts weighted by severity, and recent high-severity activity")
	subs["threats"] = th

	// The CVE watchlist assesses this once it exists.
	subs["vulnerabilities"] = notAssessed("No CVE watchlist data yet")
	subs["compliance"] = complianceScore(f.Compliance)

	id := &SubScore{}
	id.penalise("unverified_users", f.Identity.Unverified, min(20, f.Identity.Unverified*5), "each user with an unconfirmed e-mail address costs 5")
	id.penalise("admin_keys_without_expiry", f.Identity.AdminKeysNoExpiry, min(30, f.Identity.AdminKeysNoExpiry*10), "each admin-scope API key that never expires costs 10")
	id.penalise("keys_unused_90_days", f.Identity.KeysUnused90Days, min(20, f.Identity.KeysUnused90Days*5), "each active API key unused for 90 days costs 5")
	tooManyAdmins := 0
	if f.Identity.Members >= 4 && f.Identity.Admins*2 > f.Identity.Members {
		tooManyAdmins = 10
	}
	id.penalise("admins", f.Identity.Admins, tooManyAdmins, "more than half of four or more users being admins costs 10")
	id.finish("Account and API-key hygiene")
	subs["identity"] = id

	nw := &SubScore{}
	reporting := f.ReportingSources()
	silent := 0
	if reporting == 0 {
		silent = 40
	}
	nw.penalise("event_sources_reporting_24h", reporting, silent, "no event source reporting in the last 24 hours costs 40: nothing is watched")
	dnsTotal := f.DNSQueries7d()
	noDNS := 0
	if dnsTotal == 0 {
		noDNS = 20
	}
	nw.penalise("dns_queries_7d", dnsTotal, noDNS, "no DNS telemetry in seven days costs 20: DNS filtering is not visible")
	malware := f.DNS7d[blocklist.CategoryMalware]
	nw.penalise("malware_domains_queried_7d", malware, min(40, malware*4), "each query for a malware domain in seven days costs 4 (blocked, but a host asked)")
	nw.finish("Sensor coverage and DNS protection")
	subs["network"] = nw

	var weighted, weights float64
	for _, w := range scoreWeights {
		s, ok := subs[w.name]
		if !ok {
			continue
		}
		s.Weight = w.weight
		if s.Assessed {
			weighted += w.weight * float64(*s.Score)
			weights += w.weight
		}
	}
	total := 0
	if weights > 0 {
		total = int(math.Round(weighted / weights))
	}
	return Score{Score: total, Grade: grade(total), SubScores: subs, Computed: timestamp.Format(f.Now),
		Formula: "Each sub-score starts at 100 and loses the penalties of its inputs (floored at 0). The score is the weighted " +
			"mean of the assessed sub-scores (threats 35%, vulnerabilities 20%, compliance 15%, identity 15%, network 15%), " +
			"re-weighted over those assessed."}
}

// complianceScore is the mean completion of the audited frameworks: each
// framework's shortfall from 100% costs its share.
func complianceScore(audited []AuditedFramework) *SubScore {
	if len(audited) == 0 {
		return notAssessed("No compliance audit has completed yet")
	}
	s := &SubScore{}
	for _, a := range audited {
		shortfall := 100 - a.Summary.CompletionPercentage
		s.penalise(a.Framework+"_completion_percentage", a.Summary.CompletionPercentage,
			int(math.Round(float64(shortfall)/float64(len(audited)))),
			fmt.Sprintf("%s: %d%% of assessed controls pass in audit %s (%s); the %d-point shortfall costs its share of %d audited frameworks",
				a.Name, a.Summary.CompletionPercentage, a.ReportID, timestamp.Format(a.AuditedAt), shortfall, len(audited)))
	}
	s.finish("Completion of the audited compliance frameworks (latest audit of each)")
	return s
}

func grade(score int) string {
	switch {
	case score >= 90:
		return "A"
	case score >= 80:
		return "B"
	case score >= 70:
		return "C"
	case score >= 60:
		return "D"
	}
	return "F"
}
