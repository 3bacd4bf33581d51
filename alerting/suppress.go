package alerting

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"garrison/actor"
	"garrison/valid"
)

// Bounds of suppressions.
const (
	MaxSuppressionFor = 90 * 24 * time.Hour // the longest a suppression lasts
	MaxSuppressions   = 200                 // active at once, per organization
	MaxReason         = 500
)

// Suppression mutes the alerts of matching events for a while: every
// field given must equal the event's (the signature is the event's
// message, which is the sensor's rule name). Matching events are stored
// and counted, and open or join no alert.
type Suppression struct {
	ID, Signature, Asset, Indicator, Source string
	Reason, CreatedBy                       string
	CreatedAt, ExpiresAt                    time.Time
	EndedAt                                 *time.Time // ended early
	Hits                                    int64      // events it kept from alerting
}

// Matches says whether the suppression mutes the event from source.
func (s Suppression) Matches(e Event, source string) bool {
	eq := func(want, got string) bool { return want == "" || want == got }
	return eq(s.Signature, e.Message) && eq(s.Asset, e.Asset) && eq(s.Indicator, e.Indicator) && eq(s.Source, source)
}

// Active says whether the suppression mutes events at now.
func (s Suppression) Active(now time.Time) bool { return s.EndedAt == nil && now.Before(s.ExpiresAt) }

// NewSuppression is a suppression as someone asks for it.
type NewSuppression struct {
	Signature, Asset, Indicator, Source, Reason string
	For                                         time.Duration
}

// Check judges a new suppression: at least one field to match, a reason,
// and a period up to MaxSuppressionFor.
func (n NewSuppression) Check() error {
	var p valid.Problems
	p.Check(n.Signature != "" || n.Asset != "" || n.Indicator != "" || n.Source != "", "signature",
		"or asset, indicator or source must name what to mute")
	for field, v := range map[string]string{"signature": n.Signature, "asset": n.Asset, "indicator": n.Indicator, "source": n.Source} {
		if v != "" {
			p.CheckText(field, v, valid.TextRule{Max: 500, OneLine: true})
		}
	}
	p.CheckText("reason", n.Reason, valid.TextRule{Max: MaxReason, Required: true})
	p.Check(n.For >= time.Minute && n.For <= MaxSuppressionFor, "duration",
		fmt.Sprintf("must be a period from 1m to %dd, such as 8h or 7d", int(MaxSuppressionFor/(24*time.Hour))))
	return p.Err()
}

// ParsePeriod reads a period as "90m", "8h" or "7d".
func ParsePeriod(s string) (time.Duration, bool) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 || days > 3650 {
			return 0, false
		}
		return time.Duration(days) * 24 * time.Hour, true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

// SuppressionStore is what suppressions need of the store.
type SuppressionStore interface {
	Suppressions(ctx context.Context, orgID string, limit, offset int) ([]Suppression, int, error)
	Suppression(ctx context.Context, orgID, id string) (Suppression, error)
	AddSuppression(ctx context.Context, orgID string, s Suppression) (Suppression, error)
	EndSuppression(ctx context.Context, orgID, id string) (Suppression, error)
}

// Suppress mutes matching alerts for a period, in who's name.
func Suppress(ctx context.Context, st SuppressionStore, who actor.Actor, n NewSuppression, now time.Time) (Suppression, error) {
	if err := n.Check(); err != nil {
		return Suppression{}, err
	}
	return st.AddSuppression(ctx, who.OrgID, Suppression{Signature: n.Signature, Asset: n.Asset, Indicator: n.Indicator, Source: n.Source,
		Reason: n.Reason, CreatedBy: who.ID, ExpiresAt: now.Add(n.For)})
}
