package detection

import (
	"cmp"
	"slices"

	"garrison/alerting"
	"garrison/sigma"
	"garrison/store"
	"garrison/telemetry"
)

// Where a rule's state comes from, from the strongest: the organization's
// own choice of the rule, then of its set, then its provider's choice of
// the rule and of the set; otherwise every rule is on.
const (
	FromOwnRule      = "rule"
	FromOwnSet       = "set"
	FromProviderRule = "provider_rule"
	FromProviderSet  = "provider_set"
	FromDefault      = "default"
)

// Policy is an organization's choices and its provider's, resolved.
type Policy struct {
	own, provider map[choiceKey]bool
}

type choiceKey struct{ kind, name string }

// NewPolicy resolves an organization's detection config.
func NewPolicy(c store.DetectionConfig) Policy {
	p := Policy{own: map[choiceKey]bool{}, provider: map[choiceKey]bool{}}
	for _, ch := range c.Own {
		p.own[choiceKey{ch.Kind, ch.Name}] = ch.Enabled
	}
	for _, ch := range c.Provider {
		p.provider[choiceKey{ch.Kind, ch.Name}] = ch.Enabled
	}
	return p
}

// Enabled reports whether a rule of the set runs, and which choice says so.
func (p Policy) Enabled(id, set string) (bool, string) {
	if on, ok := p.own[choiceKey{"rule", id}]; ok {
		return on, FromOwnRule
	}
	if on, ok := p.own[choiceKey{"set", set}]; ok {
		return on, FromOwnSet
	}
	if on, ok := p.provider[choiceKey{"rule", id}]; ok {
		return on, FromProviderRule
	}
	if on, ok := p.provider[choiceKey{"set", set}]; ok {
		return on, FromProviderSet
	}
	return true, FromDefault
}

// SetEnabled reports whether a set runs, and which choice says so.
func (p Policy) SetEnabled(set string) (bool, string) {
	if on, ok := p.own[choiceKey{"set", set}]; ok {
		return on, FromOwnSet
	}
	if on, ok := p.provider[choiceKey{"set", set}]; ok {
		return on, FromProviderSet
	}
	return true, FromDefault
}

// Detector runs an organization's enabled rules on its records.
type Detector struct {
	shipped      *Engine
	custom       *Engine              // the enabled custom rules, nil for none
	disabled     map[*sigma.Rule]bool // shipped rules the organization turned off
	shippedRules int
	alerts       map[*sigma.Rule]*alerting.Rule // the shipped rules', shared
	order        map[*alerting.Rule]int         // the shipped rules' places in the catalog, shared
	customAlerts map[*sigma.Rule]*alerting.Rule
}

// Empty reports whether no rule runs: every shipped one turned off and
// no custom one on.
func (d *Detector) Empty() bool { return d.custom == nil && len(d.disabled) == d.shippedRules }

// Match returns the enabled rules a record fires, as its alerts name them.
func (d *Detector) Match(raw *telemetry.Raw) []*alerting.Rule {
	ev, sources := Input(raw)
	if ev == nil {
		return nil
	}
	var out []*alerting.Rule
	var buf [8]*sigma.Rule
	if len(d.disabled) < d.shippedRules {
		for _, r := range d.shipped.Match(ev, sources, buf[:0]) {
			if !d.disabled[r] {
				out = append(out, d.alerts[r])
			}
		}
	}
	if d.custom != nil {
		for _, r := range d.custom.Match(ev, sources, buf[:0]) {
			out = append(out, d.customAlerts[r])
		}
	}
	// In the catalog's order (set, then title; custom rules after), not the
	// order the event's fields were scanned: the strongest of equals, whose
	// alert the event joins, is the same on every run.
	slices.SortStableFunc(out, func(a, b *alerting.Rule) int { return cmp.Compare(d.rank(a), d.rank(b)) })
	return out
}

// rank is a matched rule's place: the shipped catalog's order, then the
// custom rules by id.
func (d *Detector) rank(r *alerting.Rule) int {
	if i, ok := d.order[r]; ok {
		return i
	}
	return len(d.order)
}

// alertRule is what an alert a rule opens says of it.
func alertRule(r *Rule) *alerting.Rule {
	tags := r.Tags
	if tags == nil {
		tags = []string{}
	}
	return &alerting.Rule{ID: r.ID, Title: r.Title, Author: r.Author, Level: r.Level, Link: r.Link, Tags: tags,
		FalsePositives: r.FalsePositives}
}
