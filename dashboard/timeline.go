package dashboard

import (
	"context"
	"time"

	"garrison/event"
	"garrison/posture"
	"garrison/valid"
)

// Timeline bounds, in days.
const (
	DefaultTimelineDays = 30
	MaxTimelineDays     = 365
)

// TimelinePoint is one day of the risk timeline. Weight is the day's
// severity-weighted event count, the measure its Risk is computed from:
// Risk saturates (a day of real sensor traffic is at or near 100), Weight
// does not, so a chart that must tell one busy day from another plots
// Weight.
type TimelinePoint struct {
	Date       string         `json:"date"`
	Events     int            `json:"events"`
	BySeverity map[string]int `json:"by_severity"`
	Weight     float64        `json:"weight"`
	Risk       int            `json:"risk"`
}

// Timeline is one point per day, oldest first, ending today.
type Timeline struct {
	Days   int             `json:"days"`
	Points []TimelinePoint `json:"points"`
}

// Timeline reads the last days days (1 to MaxTimelineDays).
func (b *Board) Timeline(ctx context.Context, orgID string, days int) (Timeline, error) {
	if days < 1 || days > MaxTimelineDays {
		return Timeline{}, valid.Field("days", "must be an integer from 1 to 365")
	}
	first := startOfDay(b.now()).Add(-time.Duration(days-1) * day)
	counts, err := b.store.DailyCounts(ctx, orgID, first)
	if err != nil {
		return Timeline{}, err
	}
	byDay := map[time.Time]event.Counts{}
	for _, c := range counts {
		byDay[c.Day] = c.BySeverity
	}
	t := Timeline{Days: days, Points: make([]TimelinePoint, days)}
	for i := range t.Points {
		d := first.Add(time.Duration(i) * day)
		sev := byDay[d]
		t.Points[i] = TimelinePoint{Date: d.Format(time.DateOnly), Events: sev.Total(), BySeverity: sev.ByName(), Weight: posture.DayWeight(sev),
			Risk: posture.DayRisk(sev)}
	}
	return t, nil
}
