package agents

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"garrison/account"
	"garrison/event"
	"garrison/posture"
	"garrison/store"
	"garrison/ticket"
)

var testNow = time.Date(2026, 3, 10, 15, 4, 5, 0, time.UTC)

// daysOf is a daily count per day of the 30-day window (0 = 29 days ago,
// 29 = today) with the given counts.
func daysOf(counts map[int]event.Counts) []store.DailyCount {
	start := testNow.Truncate(day).Add(-29 * day)
	var out []store.DailyCount
	for i := range 30 {
		if c, ok := counts[i]; ok {
			out = append(out, store.DailyCount{Day: start.Add(time.Duration(i) * day), BySeverity: c})
		}
	}
	return out
}

// span gives each day from..to (inclusive) the counts c.
func span(from, to int, c event.Counts) map[int]event.Counts {
	m := map[int]event.Counts{}
	for i := from; i <= to; i++ {
		m[i] = c
	}
	return m
}

func merge(ms ...map[int]event.Counts) map[int]event.Counts {
	out := map[int]event.Counts{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func TestRiskTrend(t *testing.T) {
	high := event.Counts{event.High: 1}                        // risk 10
	highAndTwoLow := event.Counts{event.High: 1, event.Low: 2} // risk 11
	start := testNow.Truncate(day).Add(-29 * day)
	tests := []struct {
		name           string
		daily          []store.DailyCount
		earlier, later float64
		trend          string
	}{
		{"no events", nil, 0, 0, "stable"},
		{"one critical today", daysOf(map[int]event.Counts{29: {event.Critical: 1}}), 0, 18.0 / 15, "stable"},
		{"later higher by exactly 10", daysOf(span(15, 29, high)), 0, 10, "stable"},
		{"later higher by just over 10", daysOf(merge(span(15, 28, high), map[int]event.Counts{29: highAndTwoLow})), 0, 151.0 / 15, "rising"},
		{"earlier higher by exactly 10", daysOf(span(0, 14, high)), 10, 0, "stable"},
		{"earlier higher by just over 10", daysOf(merge(span(0, 13, high), map[int]event.Counts{14: highAndTwoLow})), 151.0 / 15, 0, "falling"},
		{"same risk throughout", daysOf(span(0, 29, high)), 10, 10, "stable"},
		{"day 14 is earlier, day 15 later", daysOf(map[int]event.Counts{14: {event.Critical: 1}, 15: {event.High: 1}}), 18.0 / 15, 10.0 / 15, "stable"},
		{"days outside the window are ignored", []store.DailyCount{
			{Day: start.Add(-day), BySeverity: event.Counts{event.Critical: 100}},
			{Day: start.Add(30 * day), BySeverity: event.Counts{event.Critical: 100}},
		}, 0, 0, "stable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			earlier, later, trend := riskTrend(tc.daily, testNow)
			if earlier != tc.earlier || later != tc.later || trend != tc.trend {
				t.Errorf("riskTrend = %v %v %s, want %v %v %s", earlier, later, trend, tc.earlier, tc.later, tc.trend)
			}
		})
	}
}

func TestRenewalRisk(t *testing.T) {
	quiet := ticket.Load{}
	tests := []struct {
		name    string
		score   int
		trend   string
		load    ticket.Load
		open    int
		failed  int
		level   string
		reasons []string
	}{
		{"healthy", 90, "stable", quiet, 0, 0, "low", nil},
		{"score 75", 75, "stable", quiet, 0, 0, "low", nil},
		{"score 74", 74, "stable", quiet, 0, 0, "low", []string{"security score 74 is below 75"}},
		{"score 60", 60, "falling", quiet, 0, 0, "low", []string{"security score 60 is below 75"}},
		{"score 59", 59, "stable", quiet, 0, 0, "medium", []string{"security score 59 is below 60"}},
		{"rising risk", 90, "rising", quiet, 0, 0, "low", []string{"daily risk is rising"}},
		{"two escalations", 90, "stable", ticket.Load{Escalated30d: 2}, 0, 0, "low", nil},
		{"three escalations", 90, "stable", ticket.Load{Escalated30d: 3}, 0, 0, "low", []string{"3 tickets were escalated in 30 days"}},
		{"resolution takes 48 hours", 90, "stable", ticket.Load{Resolved30d: 1, MeanResolveTime: 48 * time.Hour}, 0, 0, "low", nil},
		{"resolution takes longer", 90, "stable", ticket.Load{Resolved30d: 1, MeanResolveTime: 48*time.Hour + time.Second}, 0, 0, "low",
			[]string{"tickets take 48 hours to resolve on average"}},
		{"slow but nothing resolved", 90, "stable", ticket.Load{MeanResolveTime: 100 * time.Hour}, 0, 0, "low", nil},
		{"ten open tickets", 90, "stable", quiet, 10, 0, "low", nil},
		{"eleven open tickets", 90, "stable", quiet, 11, 0, "low", []string{"11 tickets are open"}},
		{"two checks fail", 90, "stable", quiet, 0, 2, "low", nil},
		{"three checks fail", 90, "stable", quiet, 0, 3, "low", []string{"3 control checks fail"}},
		{"two points: medium", 70, "rising", quiet, 0, 0, "medium", []string{"security score 70 is below 75", "daily risk is rising"}},
		{"three points: medium", 59, "rising", quiet, 0, 0, "medium", []string{"security score 59 is below 60", "daily risk is rising"}},
		{"four points: high", 59, "rising", quiet, 11, 0, "high",
			[]string{"security score 59 is below 60", "daily risk is rising", "11 tickets are open"}},
		{"everything", 10, "rising", ticket.Load{Escalated30d: 9, Resolved30d: 4, MeanResolveTime: 100 * time.Hour}, 30, 8, "high",
			[]string{"security score 10 is below 60", "daily risk is rising", "9 tickets were escalated in 30 days",
				"tickets take 100 hours to resolve on average", "30 tickets are open", "8 control checks fail"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			level, reasons := renewalRisk(tc.score, tc.trend, tc.load, tc.open, tc.failed)
			if level != tc.level || !slices.Equal(reasons, tc.reasons) {
				t.Errorf("renewalRisk = %s %q, want %s %q", level, reasons, tc.level, tc.reasons)
			}
		})
	}
}

func TestUpsellSignals(t *testing.T) {
	withDNS := posture.Facts{DNS7d: map[string]int{"": 1}}
	week := func(total int) posture.Facts {
		f := withDNS
		f.Week = store.EventCounts{Total: total}
		return f
	}
	offers := func(out []map[string]string) []string {
		var names []string
		for _, o := range out {
			names = append(names, o["offer"])
		}
		return names
	}
	tests := []struct {
		name   string
		plan   string
		facts  posture.Facts
		load   ticket.Load
		stale  int
		failed int
		want   []map[string]string
	}{
		{"nothing to offer", account.PlanStarter, withDNS, ticket.Load{}, 0, 0, nil},
		{"starter at 10,000 events", account.PlanStarter, week(10_000), ticket.Load{}, 0, 0, nil},
		{"starter past 10,000 events", account.PlanStarter, week(10_001), ticket.Load{}, 0, 0, []map[string]string{{"offer": "Pro plan",
			"signal": "10001 events in 7 days: a busy estate that benefits from lead scoring and priority support"}}},
		{"pro is not offered pro", account.PlanPro, week(50_000), ticket.Load{}, 0, 0, nil},
		{"no DNS telemetry", account.PlanPro, posture.Facts{}, ticket.Load{}, 0, 0,
			[]map[string]string{{"offer": "Managed DNS filtering", "signal": "no DNS telemetry in 7 days"}}},
		{"stale alerts", account.PlanUltimate, withDNS, ticket.Load{}, 2, 0, []map[string]string{{"offer": "Managed detection and response",
			"signal": "2 high or critical alerts open for more than a day"}}},
		{"one check failing", account.PlanPro, withDNS, ticket.Load{}, 0, 1, nil},
		{"two checks failing", account.PlanPro, withDNS, ticket.Load{}, 0, 2,
			[]map[string]string{{"offer": "Compliance readiness package", "signal": "2 control checks fail"}}},
		{"19 tickets", account.PlanPro, withDNS, ticket.Load{Resolved30d: 10, ByStatus: map[string]int{ticket.Open: 9}}, 0, 0, nil},
		{"20 tickets", account.PlanPro, withDNS, ticket.Load{Resolved30d: 10, ByStatus: map[string]int{ticket.Open: 10}}, 0, 0,
			[]map[string]string{{"offer": "Managed help desk", "signal": "20 or more tickets a month"}}},
		{"escalated tickets do not count", account.PlanPro, withDNS,
			ticket.Load{Resolved30d: 10, ByStatus: map[string]int{ticket.Open: 5, ticket.Escalated: 10}}, 0, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := upsellSignals(tc.plan, tc.facts, tc.load, tc.stale, tc.failed); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("upsellSignals = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("every signal, in order", func(t *testing.T) {
		f := posture.Facts{Week: store.EventCounts{Total: 20_000}}
		got := offers(upsellSignals(account.PlanStarter, f, ticket.Load{Resolved30d: 20}, 1, 5))
		want := []string{"Pro plan", "Managed DNS filtering", "Managed detection and response", "Compliance readiness package", "Managed help desk"}
		if !slices.Equal(got, want) {
			t.Errorf("offers %v, want %v", got, want)
		}
	})
}

func TestRound1(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0, 0}, {1.24, 1.2}, {1.25, 1.3}, {1.26, 1.3}, {47.96, 48}, {10.0 / 15, 0.7}, {100, 100},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.in), func(t *testing.T) {
			if got := round1(tc.in); got != tc.want {
				t.Errorf("round1(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}
