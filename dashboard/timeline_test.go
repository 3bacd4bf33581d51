package dashboard

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"garrison/event"
	"garrison/posture"
	"garrison/store"
	"garrison/store/storetest"
)

func TestTimelineDaysRefused(t *testing.T) {
	b := newBoard(nil, time.Now()) // refused before the store is read
	for _, days := range []int{-1, 0, MaxTimelineDays + 1, 10000} {
		t.Run(fmt.Sprint(days, "_days"), func(t *testing.T) {
			_, err := b.Timeline(context.Background(), "org_1", days)
			want := map[string]string{"days": "must be an integer from 1 to 365"}
			if got := problemsOf(t, err); !reflect.DeepEqual(got, want) {
				t.Errorf("problems %v, want %v", got, want)
			}
		})
	}
}

// TestTimeline: one point per day ending today, each day's events by
// severity, its weighted count and its risk (posture.DayRisk).
func TestTimeline(t *testing.T) {
	st := storetest.Open(t)
	org := newOrg(t, st, "acme")
	now := time.Now().UTC()
	today := startOfDay(now)
	ev := func(sev event.Severity, at time.Time) store.NewEvent {
		return store.NewEvent{Type: event.TypeThreat, Severity: sev, Timestamp: at, Source: "ids", Asset: "web-1", Message: "m"}
	}
	ingest(t, st, org,
		ev(event.Critical, today),                             // today: 1 critical → risk 18
		ev(event.High, today.Add(-2*day+time.Hour)),           // two days ago: 1 high, 1 low → weight 5.5, risk 10
		ev(event.Low, today.Add(-2*day+2*time.Hour)),          //
		ev(event.Medium, today.Add(-400*day)),                 // before any window
		ev(event.Info, today.Add(-364*day+time.Minute)),       // the first day of a year's timeline
		ev(event.Critical, today.Add(-365*day+time.Minute)),   // the day before it
		ev(event.Critical, today.Add(-365*day+2*time.Minute)), //
	)
	sev := func(info, low, medium, high, critical int) map[string]int {
		return map[string]int{"info": info, "low": low, "medium": medium, "high": high, "critical": critical}
	}
	date := func(daysAgo int) string { return today.Add(-time.Duration(daysAgo) * day).Format(time.DateOnly) }
	tests := []struct {
		name  string
		days  int
		check map[int]TimelinePoint // by index
	}{
		{"one day is today", 1, map[int]TimelinePoint{
			0: {Date: date(0), Events: 1, BySeverity: sev(0, 0, 0, 0, 1), Weight: 10, Risk: 18}}},
		{"three days", 3, map[int]TimelinePoint{
			0: {Date: date(2), Events: 2, BySeverity: sev(0, 1, 0, 1, 0), Weight: 5.5, Risk: 10},
			1: {Date: date(1), Events: 0, BySeverity: sev(0, 0, 0, 0, 0), Risk: 0},
			2: {Date: date(0), Events: 1, BySeverity: sev(0, 0, 0, 0, 1), Weight: 10, Risk: 18}}},
		{"the longest", MaxTimelineDays, map[int]TimelinePoint{
			0:   {Date: date(364), Events: 1, BySeverity: sev(1, 0, 0, 0, 0), Risk: 0},
			362: {Date: date(2), Events: 2, BySeverity: sev(0, 1, 0, 1, 0), Weight: 5.5, Risk: 10},
			364: {Date: date(0), Events: 1, BySeverity: sev(0, 0, 0, 0, 1), Weight: 10, Risk: 18}}},
	}
	b := newBoard(st, now)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl, err := b.Timeline(context.Background(), org, tc.days)
			if err != nil {
				t.Fatal(err)
			}
			if tl.Days != tc.days || len(tl.Points) != tc.days {
				t.Fatalf("%d days, %d points; want %d", tl.Days, len(tl.Points), tc.days)
			}
			for i, p := range tl.Points {
				want, ok := tc.check[i]
				if !ok {
					want = TimelinePoint{Date: date(tc.days - 1 - i), BySeverity: sev(0, 0, 0, 0, 0)}
				}
				if !reflect.DeepEqual(p, want) {
					t.Errorf("point %d: %+v, want %+v", i, p, want)
				}
			}
		})
	}
}

// TestDayWeightIsDayRisksInput: the timeline's weight is the measure the
// day's risk saturates, risk = round(100·(1 − e^(−weight/50))), for quiet
// days, busy ones and each severity alone; a busy day's weight keeps
// growing where its risk has stopped at 100.
func TestDayWeightIsDayRisksInput(t *testing.T) {
	cases := []event.Counts{{}, {event.Info: 1000}}
	for _, n := range []int{1, 2, 3, 7, 40, 500, 20000} {
		for _, sev := range []event.Severity{event.Low, event.Medium, event.High, event.Critical} {
			var c event.Counts
			c[sev] = n
			cases = append(cases, c)
		}
		cases = append(cases, event.Counts{event.Info: n, event.Low: 3 * n, event.Medium: n, event.High: n / 2, event.Critical: n / 7})
	}
	for _, c := range cases {
		w := posture.DayWeight(c)
		if want := int(math.Round(100 * (1 - math.Exp(-w/50)))); posture.DayRisk(c) != want {
			t.Errorf("%v: weight %v gives risk %d, posture.DayRisk says %d", c, w, want, posture.DayRisk(c))
		}
	}
	quiet, busy := event.Counts{event.Low: 600}, event.Counts{event.Low: 6000}
	if posture.DayRisk(quiet) != 100 || posture.DayRisk(busy) != 100 || posture.DayWeight(quiet) != 300 || posture.DayWeight(busy) != 3000 {
		t.Errorf("600 and 6000 low events: risk %d and %d, weight %v and %v; want 100, 100, 300, 3000",
			posture.DayRisk(quiet), posture.DayRisk(busy), posture.DayWeight(quiet), posture.DayWeight(busy))
	}
}
