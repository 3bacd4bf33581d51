package posture

import (
	"context"
	"math"
	"time"

	"garrison/account"
	"garrison/compliance"
	"garrison/intel"
	"garrison/store"

	"garrison/event"
)

const day = 24 * time.Hour

// Gather reads the facts the score is computed from, as of now.
func Gather(ctx context.Context, st *store.Store, orgID string, now time.Time) (Facts, error) {
	f := Facts{Now: now}
	var err error
	if f.OpenAlerts, err = st.OpenAlertCounts(ctx, orgID); err != nil {
		return f, err
	}
	if f.Confirmed7d, err = st.ConfirmedAlertCounts(ctx, orgID, now.Add(-7*day)); err != nil {
		return f, err
	}
	if f.Week, err = st.CountEventsSince(ctx, orgID, now.Add(-7*day)); err != nil {
		return f, err
	}
	f.HighEvents7d = f.Week.BySeverity.AtLeast(event.High)
	if f.Identity, err = st.IdentityFacts(ctx, orgID, now, now.Add(-account.KeyDormantAfter), now.Add(account.KeyExpiryNotice)); err != nil {
		return f, err
	}
	if f.Sources, err = st.Sources(ctx, orgID); err != nil {
		return f, err
	}
	if f.DNS7d, err = st.DNSTotals(ctx, orgID, now.Add(-7*day)); err != nil {
		return f, err
	}
	if f.Exposure, err = intel.Exposure(ctx, st, orgID); err != nil {
		return f, err
	}
	latest, err := st.LatestAudits(ctx, orgID)
	if err != nil {
		return f, err
	}
	for _, id := range compliance.FrameworkIDs() {
		a, ok := latest[id]
		if !ok {
			continue
		}
		sums, err := compliance.AuditSummary(a)
		if err != nil {
			return f, err
		}
		fw, _ := compliance.LookupFramework(id)
		f.Compliance = append(f.Compliance, AuditedFramework{Framework: id, Name: fw.Name, Summary: sums[id], ReportID: a.ID,
			AuditedAt: *a.CompletedAt})
	}
	return f, nil
}

// DayWeight is a day's severity-weighted event count, w = 10·critical +
// 5·high + 2·medium + 0.5·low: what DayRisk saturates, and what the risk
// timeline plots beside it.
func DayWeight(bySeverity event.Counts) float64 {
	return 10*float64(bySeverity[event.Critical]) + 5*float64(bySeverity[event.High]) +
		2*float64(bySeverity[event.Medium]) + 0.5*float64(bySeverity[event.Low])
}

// DayRisk maps a day's events by severity to 0..100: its weight,
// saturating as 100·(1 − e^(−w/50)) (docs/api.md).
func DayRisk(bySeverity event.Counts) int {
	return int(math.Round(100 * (1 - math.Exp(-DayWeight(bySeverity)/50))))
}

// SilentAfter is how long a source may go without an event before it
// counts as silent: no longer reporting, for the score and the fleet view.
const SilentAfter = 24 * time.Hour

// Silent reports whether a source last heard from at last is silent at now.
func Silent(last, now time.Time) bool { return now.Sub(last) > SilentAfter }

// ReportingSources counts the sources that reported in the 24 hours before Now.
func (f Facts) ReportingSources() int {
	n := 0
	for _, s := range f.Sources {
		if !Silent(s.LastSeen, f.Now) {
			n++
		}
	}
	return n
}

// DNSQueries7d is the number of DNS queries seen in the last seven days.
func (f Facts) DNSQueries7d() int {
	n := 0
	for _, c := range f.DNS7d {
		n += c
	}
	return n
}
