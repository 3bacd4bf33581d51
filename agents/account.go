package agents

import (
	"context"
	"fmt"
	"time"

	"garrison/account"
	"garrison/compliance"
	"garrison/outreach"
	"garrison/posture"
	"garrison/store"
	"garrison/ticket"
	"garrison/valid"

	"garrison/event"
)

var accountManager = Agent{
	Slug: "account-manager", Name: "Account Manager", Plan: account.PlanStarter,
	Description: "Writes a client health report: security score and its trend, open alerts, ticket load and resolution " +
		"times, compliance progress, renewal risk and upsell signals.",
	newParams: func() Params { return &promptOnly{} },
	analyze:   healthReport,
}

// promptOnly is the parameters of agents that take nothing but a prompt.
type promptOnly struct {
	Prompt string `json:"prompt"`
}

func (p *promptOnly) Validate(problems *valid.Problems) {
	checkText(problems, "prompt", p.Prompt, promptLimit)
}

const day = 24 * time.Hour

// riskTrend compares the mean daily risk of the last 15 days with the 15
// before: a change of more than 10 points is a trend.
func riskTrend(daily []store.DailyCount, now time.Time) (earlier, later float64, trend string) {
	start := now.UTC().Truncate(day).Add(-29 * day)
	var sums [2]float64
	for _, d := range daily {
		i := int(d.Day.Sub(start) / day)
		if i < 0 || i >= 30 {
			continue
		}
		sums[i/15] += float64(posture.DayRisk(d.BySeverity))
	}
	earlier, later = sums[0]/15, sums[1]/15
	switch {
	case later > earlier+10:
		trend = "rising"
	case later < earlier-10:
		trend = "falling"
	default:
		trend = "stable"
	}
	return earlier, later, trend
}

func healthReport(ctx context.Context, env *Env, run store.AgentRun, _ Params) (Report, error) {
	now := env.Now()
	org, err := env.Store.Org(ctx, run.OrgID)
	if err != nil {
		return Report{}, err
	}
	facts, err := posture.Gather(ctx, env.Store, run.OrgID, now)
	if err != nil {
		return Report{}, err
	}
	stale, err := env.Store.StaleOpenAlerts(ctx, run.OrgID, now.Add(-day))
	if err != nil {
		return Report{}, err
	}
	score := posture.Compute(facts)
	daily, err := env.Store.DailyCounts(ctx, run.OrgID, now.UTC().Truncate(day).Add(-29*day))
	if err != nil {
		return Report{}, err
	}
	earlier, later, trend := riskTrend(daily, now)
	tickets, err := env.Store.TicketLoadSince(ctx, run.OrgID, now.Add(-30*day))
	if err != nil {
		return Report{}, err
	}
	checks, err := env.Compliance.DataFindings(ctx, run.OrgID)
	if err != nil {
		return Report{}, err
	}
	passed, failed := 0, 0
	for _, c := range checks {
		switch c.Result {
		case compliance.Pass:
			passed++
		case compliance.Fail:
			failed++
		}
	}
	open := 0
	for _, n := range facts.OpenAlerts {
		open += n
	}
	openTickets := tickets.ByStatus[ticket.Open] + tickets.ByStatus[ticket.InProgress] + tickets.ByStatus[ticket.Escalated]

	risk, reasons := renewalRisk(score.Score, trend, tickets, openTickets, failed)
	upsell := upsellSignals(org.Plan, facts, tickets, stale, failed)
	out := map[string]any{
		"organization": org.Name, "plan": org.Plan,
		"security_score": map[string]any{"score": score.Score, "grade": score.Grade},
		"risk_trend": map[string]any{"trend": trend, "mean_daily_risk_earlier_15d": round1(earlier),
			"mean_daily_risk_last_15d": round1(later)},
		"open_alerts": map[string]any{"total": open, "critical": facts.OpenAlerts[event.Critical], "high": facts.OpenAlerts[event.High]},
		"tickets": map[string]any{"open": openTickets, "by_status": tickets.ByStatus, "resolved_30d": tickets.Resolved30d,
			"escalated_30d": tickets.Escalated30d, "mean_resolution_hours_30d": round1(tickets.MeanResolveTime.Hours())},
		"compliance":     map[string]any{"checks_passed": passed, "checks_failed": failed, "checks_total": len(checks)},
		"renewal_risk":   map[string]any{"level": risk, "reasons": nonNil(reasons)},
		"upsell_signals": nonNil(upsell),
	}
	summary := fmt.Sprintf("%s (%s plan) scores %d (%s); daily risk is %s. %d alerts are open (%d critical). %d tickets are open, "+
		"%d were resolved in 30 days. %d of %d control checks pass. Renewal risk is %s.",
		org.Name, org.Plan, score.Score, score.Grade, trend, open, facts.OpenAlerts[event.Critical], openTickets, tickets.Resolved30d,
		passed, len(checks), risk)
	if len(upsell) > 0 {
		summary += fmt.Sprintf(" %d upsell signals.", len(upsell))
	}
	// Leads won this month (UTC), for plans with outreach.
	if outreach.Permit(org.Kind, org.Plan) == nil {
		monthStart := time.Date(now.UTC().Year(), now.UTC().Month(), 1, 0, 0, 0, 0, time.UTC)
		won, err := env.Store.LeadsWonSince(ctx, run.OrgID, monthStart)
		if err != nil {
			return Report{}, err
		}
		var names []string
		var items []map[string]any
		for _, l := range won {
			names = append(names, l.Prospect.Company)
			items = append(items, map[string]any{"lead_id": l.ID, "company": l.Prospect.Company, "domain": l.Prospect.Domain, "score": l.Score})
		}
		out["leads_won_this_month"] = nonNil(items)
		if len(names) > 0 {
			summary += fmt.Sprintf(" Leads won this month: %s.", joinList(names))
		}
	}
	return Report{Output: out, Summary: summary, Task: "a client health report for an account manager"}, nil
}

func round1(v float64) float64 { return float64(int(v*10+0.5)) / 10 }

// renewalRisk weighs what makes a client likely to leave.
func renewalRisk(score int, trend string, t ticket.Load, openTickets, failedChecks int) (string, []string) {
	points := 0
	var reasons []string
	add := func(n int, why string) {
		points += n
		reasons = append(reasons, why)
	}
	switch {
	case score < 60:
		add(2, fmt.Sprintf("security score %d is below 60", score))
	case score < 75:
		add(1, fmt.Sprintf("security score %d is below 75", score))
	}
	if trend == "rising" {
		add(1, "daily risk is rising")
	}
	if t.Escalated30d >= 3 {
		add(1, fmt.Sprintf("%d tickets were escalated in 30 days", t.Escalated30d))
	}
	if t.Resolved30d > 0 && t.MeanResolveTime > 48*time.Hour {
		add(1, fmt.Sprintf("tickets take %.0f hours to resolve on average", t.MeanResolveTime.Hours()))
	}
	if openTickets > 10 {
		add(1, fmt.Sprintf("%d tickets are open", openTickets))
	}
	if failedChecks >= 3 {
		add(1, fmt.Sprintf("%d control checks fail", failedChecks))
	}
	switch {
	case points >= 4:
		return "high", reasons
	case points >= 2:
		return "medium", reasons
	}
	return "low", reasons
}

func upsellSignals(plan string, f posture.Facts, t ticket.Load, stale, failedChecks int) []map[string]string {
	var out []map[string]string
	add := func(offer, why string) { out = append(out, map[string]string{"offer": offer, "signal": why}) }
	if plan == account.PlanStarter && f.Week.Total > 10_000 {
		add("Pro plan", fmt.Sprintf("%d events in 7 days: a busy estate that benefits from lead scoring and priority support", f.Week.Total))
	}
	if f.DNSQueries7d() == 0 {
		add("Managed DNS filtering", "no DNS telemetry in 7 days")
	}
	if stale > 0 {
		add("Managed detection and response", fmt.Sprintf("%d high or critical alerts open for more than a day", stale))
	}
	if failedChecks >= 2 {
		add("Compliance readiness package", fmt.Sprintf("%d control checks fail", failedChecks))
	}
	if t.Resolved30d+t.ByStatus[ticket.Open] >= 20 {
		add("Managed help desk", "20 or more tickets a month")
	}
	return out
}
