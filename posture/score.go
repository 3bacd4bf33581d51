// Package posture computes an organization's security score from the facts
// the store keeps: the dashboard shows it and the agents report on it.
package posture

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"garrison/account"
	"garrison/blocklist"
	"garrison/compliance"
	"garrison/intel"
	"garrison/store"
	"garrison/wording"

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
	OpenAlerts event.Counts
	// Confirmed7d are the alerts resolved as true positives in the last
	// seven days: remediated, but real. Alerts resolved as false
	// positives, benign or duplicates cost nothing.
	Confirmed7d  event.Counts
	Week         store.EventCounts // the last seven days, whole hours
	HighEvents7d int
	Identity     store.IdentityFacts
	Sources      []store.Source
	DNS7d        map[string]int
	Compliance   []AuditedFramework   // frameworks with a completed audit, in the API's order
	Exposure     []intel.ExposureItem // the CVE watchlist with affected asset counts
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
	confirmed := f.Confirmed7d[event.Critical]*perOpen[event.Critical]/2 + f.Confirmed7d[event.High]*perOpen[event.High]/2
	th.penalise("confirmed_alerts_7d", f.Confirmed7d.AtLeast(event.High), min(30, confirmed),
		"each high or critical alert resolved as a true positive in the last seven days costs half of an open one, at most 30; "+
			"one resolved as a false positive, benign or a duplicate costs nothing")
	th.penalise("high_or_critical_events_7d", f.HighEvents7d, min(20, f.HighEvents7d/10),
		"one point per ten high or critical events in the last seven days, at most 20")
	th.finish("Open alerts weighted by severity, and recent high-severity activity")
	subs["threats"] = th

	subs["vulnerabilities"] = vulnerabilityScore(f.Exposure)
	subs["compliance"] = complianceScore(f.Compliance)

	id := &SubScore{}
	id.penalise("unverified_users", f.Identity.Unverified, min(20, f.Identity.Unverified*5), "each user with an unconfirmed e-mail address costs 5")
	id.penalise("admin_keys_without_expiry", f.Identity.AdminKeysNoExpiry, min(30, f.Identity.AdminKeysNoExpiry*10), "each admin-scope API key that never expires costs 10")
	id.penalise("keys_unused_90_days", f.Identity.KeysDormant, min(20, f.Identity.KeysDormant*5), "each active API key unused for "+wording.Days(account.KeyDormantAfter)+" costs 5")
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
	shortfalls := make([]int, len(audited))
	for i, a := range audited {
		shortfalls[i] = 100 - a.Summary.CompletionPercentage
	}
	shares := shares(shortfalls, len(audited))
	for i, a := range audited {
		shortfall := shortfalls[i]
		s.penalise(a.Framework+"_completion_percentage", a.Summary.CompletionPercentage, shares[i],
			fmt.Sprintf("%s: %d%% of applicable controls pass in audit %s (%s); the %d-point shortfall costs its share of %d audited frameworks",
				a.Name, a.Summary.CompletionPercentage, a.ReportID, timestamp.Format(a.AuditedAt), shortfall, len(audited)))
	}
	s.finish("Completion of the audited compliance frameworks (latest audit of each)")
	return s
}

// shares divides each amount by n in whole points that add up to the
// rounded mean of the amounts (largest remainders first): three frameworks
// at 99% cost 1 point together, not 0 for rounding each share apart.
func shares(amounts []int, n int) []int {
	out := make([]int, len(amounts))
	sum := 0
	for _, a := range amounts {
		sum += a
	}
	left := int(math.Round(float64(sum) / float64(n)))
	order := make([]int, len(amounts))
	for i, a := range amounts {
		out[i] = a / n
		left -= out[i]
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return amounts[order[x]]%n > amounts[order[y]]%n })
	for _, i := range order {
		if left <= 0 {
			break
		}
		if amounts[i]%n > 0 {
			out[i]++
			left--
		}
	}
	return out
}

// Grades are the score's letter grades, best first.
var Grades = []string{"A", "B", "C", "D", "F"}

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

// vulnerabilityScore weighs the CVEs affecting the organization (its open
// findings, and the watched CVEs no finding names): those with affected
// assets most, a KEV listing (exploited in the wild) above a critical
// score or a likely exploitation (EPSS) above a high score; a watched KEV
// or critical CVE without affected assets costs a little, as a reminder
// to check the inventory.
func vulnerabilityScore(items []intel.ExposureItem) *SubScore {
	enriched := 0
	var kevAffected, criticalAffected, highAffected, unconfirmed []string
	for _, it := range items {
		if !it.Enriched {
			continue
		}
		enriched++
		switch {
		case it.Affected > 0 && it.KEV:
			kevAffected = append(kevAffected, it.CVEID)
		case it.Affected > 0 && (it.Score >= 9 || it.EPSS != nil && *it.EPSS >= likelyExploited):
			criticalAffected = append(criticalAffected, it.CVEID)
		case it.Affected > 0 && it.Score >= 7:
			highAffected = append(highAffected, it.CVEID)
		case it.KEV || it.Score >= 9:
			unconfirmed = append(unconfirmed, it.CVEID)
		}
	}
	if enriched == 0 {
		if len(items) == 0 {
			return notAssessed("No finding is open and no CVE is on the watchlist")
		}
		return notAssessed("No watched CVE has intelligence yet; import NVD or CVE 5 data")
	}
	s := &SubScore{}
	s.penalise("kev_cves_with_affected_assets", len(kevAffected), min(60, 25*len(kevAffected)),
		"each CISA KEV-listed CVE affecting an asset costs 25 (at most 60): "+listOrNone(kevAffected))
	s.penalise("critical_cves_with_affected_assets", len(criticalAffected), min(45, 15*len(criticalAffected)),
		"each other critical (CVSS 9.0 or more) or likely exploited (EPSS 0.5 or more) CVE affecting an asset costs 15 (at most 45): "+
			listOrNone(criticalAffected))
	s.penalise("high_cves_with_affected_assets", len(highAffected), min(20, 5*len(highAffected)),
		"each high (CVSS 7.0 to 8.9) CVE affecting an asset costs 5 (at most 20): "+listOrNone(highAffected))
	s.penalise("kev_or_critical_cves_without_matched_assets", len(unconfirmed), min(10, 2*len(unconfirmed)),
		"each KEV-listed or critical CVE no asset matches costs 2 (at most 10): check the inventory lists the software: "+listOrNone(unconfirmed))
	s.finish(fmt.Sprintf("%d CVEs with intelligence (open findings and watched CVEs), weighed by exploitation, severity and affected assets", enriched))
	return s
}

// likelyExploited is the EPSS from which a CVE affecting an asset weighs
// as a critical one: even odds of exploitation within 30 days.
const likelyExploited = 0.5

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	if len(ids) > 10 {
		return strings.Join(ids[:10], ", ") + fmt.Sprintf(" and %d more", len(ids)-10)
	}
	return strings.Join(ids, ", ")
}
