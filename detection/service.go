package detection

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"garrison/actor"
	"garrison/fault"
	"garrison/sigma"
	"garrison/store"
	"garrison/valid"
)

// Service is detection for the API and for ingest: each organization's
// rules and choices, and its Detector, kept until a choice or a rule of
// any organization changes (a provider's reach its clients).
type Service struct {
	store *store.Store
	now   func() time.Time

	custom customCache // organizations' own rules, compiled once

	mu     sync.Mutex
	cached map[string]*Detector
	// gen counts changes: a detector built from a config read before a
	// change is not kept after it.
	gen uint64
}

// maxCachedDetectors bounds the detectors kept; past it all are dropped
// and rebuilt on use (a detector without custom rules is a few maps).
const maxCachedDetectors = 10_000

// NewService builds the service; the shipped rules compile on first use.
func NewService(st *store.Store, now func() time.Time) *Service {
	s := &Service{store: st, now: now, cached: map[string]*Detector{}}
	if st != nil {
		// The store tells of every change to the rules once committed,
		// this node's and (on a cluster) the other nodes'.
		st.OnChange(store.TopicDetection, s.changed)
	}
	return s
}

// For returns the organization's detector, built from its config when
// not kept; it waits for the shipped rules to compile on first use.
func (s *Service) For(ctx context.Context, orgID string) (*Detector, error) {
	s.mu.Lock()
	d, gen := s.cached[orgID], s.gen
	s.mu.Unlock()
	if d != nil {
		return d, nil
	}
	cat, err := Shipped()
	if err != nil {
		return nil, err
	}
	cfg, err := s.store.Detection(ctx, orgID)
	if err != nil {
		return nil, err
	}
	d = newDetector(cat, cfg, &s.custom)
	s.mu.Lock()
	if len(s.cached) >= maxCachedDetectors {
		clear(s.cached)
	}
	if s.gen == gen {
		s.cached[orgID] = d
	}
	s.mu.Unlock()
	return d, nil
}

// changed drops every kept detector: the next ingest of each
// organization reads its config again.
func (s *Service) changed() {
	s.mu.Lock()
	clear(s.cached)
	s.gen++
	s.mu.Unlock()
}

func newDetector(cat *Catalog, cfg store.DetectionConfig, custom *customCache) *Detector {
	p := NewPolicy(cfg)
	d := &Detector{shipped: cat.engine, alerts: cat.alerts, order: cat.order, disabled: map[*sigma.Rule]bool{}, shippedRules: len(cat.Rules)}
	for _, r := range cat.Rules {
		if on, _ := p.Enabled(r.ID, r.Set); !on {
			d.disabled[r.Rule] = true
		}
	}
	var run []*store.CustomRule
	for i := range cfg.Rules {
		if on, _ := p.Enabled(cfg.Rules[i].ID, CustomSet); on {
			run = append(run, &cfg.Rules[i])
		}
	}
	if e := custom.engine(run); e != nil {
		d.custom, d.customAlerts = e.engine, e.alerts
	}
	return d
}

// RuleState is a rule with whether it runs for an organization, and why.
type RuleState struct {
	*Rule
	Enabled bool
	From    string // FromOwnRule …
	// Custom is set for a rule an organization wrote: its own, or (Owner
	// the provider's id) its provider's.
	Custom *store.CustomRule
}

// SetState is a shipped rule set for an organization.
type SetState struct {
	Name    string
	Rules   int
	Enabled bool
	From    string
}

// Query selects rules: by set, level, state, where they come from and a
// text in their title, id, author or tags.
type Query struct {
	Set, Level, Origin, Text string
	Enabled                  *bool
	Limit, Offset            int
}

// Origins of a rule.
const (
	OriginShipped = "sigmahq"
	OriginCustom  = "custom"
)

// Check judges a query.
func (q Query) Check() error {
	var p valid.Problems
	if q.Level != "" && !contains(sigma.Levels, q.Level) {
		p.Add("level", "must be one of "+strings.Join(sigma.Levels, ", "))
	}
	if q.Origin != "" && q.Origin != OriginShipped && q.Origin != OriginCustom {
		p.Add("origin", "must be sigmahq or custom")
	}
	return p.Err()
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// states is every rule of an organization, shipped then custom, with
// its state.
func (s *Service) states(ctx context.Context, orgID string) ([]RuleState, *Catalog, store.DetectionConfig, error) {
	cat, err := Shipped()
	if err != nil {
		return nil, nil, store.DetectionConfig{}, err
	}
	cfg, err := s.store.Detection(ctx, orgID)
	if err != nil {
		return nil, nil, cfg, err
	}
	p := NewPolicy(cfg)
	out := make([]RuleState, 0, len(cat.Rules)+len(cfg.Rules))
	for _, r := range cat.Rules {
		on, from := p.Enabled(r.ID, r.Set)
		out = append(out, RuleState{Rule: r, Enabled: on, From: from})
	}
	for i := range cfg.Rules {
		cr := &cfg.Rules[i]
		c := s.custom.compile(cr)
		compiled := c.rule
		if c.err != nil { // listed by what was stored, so that it can be deleted
			compiled = &sigma.Rule{ID: cr.ID, Title: cr.Title, Level: cr.Level, Description: "This release cannot read the rule: " + c.err.Error()}
		}
		on, from := p.Enabled(cr.ID, CustomSet)
		out = append(out, RuleState{Rule: &Rule{Rule: compiled, Set: CustomSet}, Enabled: on, From: from, Custom: cr})
	}
	return out, cat, cfg, nil
}

// List returns a page of the organization's rules the query selects, and
// how many it selects.
func (s *Service) List(ctx context.Context, who actor.Actor, q Query) ([]RuleState, int, error) {
	if err := q.Check(); err != nil {
		return nil, 0, err
	}
	all, _, _, err := s.states(ctx, who.OrgID)
	if err != nil {
		return nil, 0, err
	}
	text := strings.ToLower(q.Text)
	var picked []RuleState
	for _, r := range all {
		if q.Set != "" && r.Set != q.Set || q.Level != "" && r.Level != q.Level ||
			q.Enabled != nil && r.Enabled != *q.Enabled ||
			q.Origin == OriginShipped && r.Custom != nil || q.Origin == OriginCustom && r.Custom == nil ||
			text != "" && !r.mentions(text) {
			continue
		}
		picked = append(picked, r)
	}
	total := len(picked)
	lo := min(q.Offset, total)
	return picked[lo:min(lo+q.Limit, total)], total, nil
}

// mentions reports whether a rule's title, id, author or a tag holds text
// (lower case).
func (r *Rule) mentions(text string) bool {
	if strings.Contains(strings.ToLower(r.Title), text) || strings.Contains(r.ID, text) ||
		strings.Contains(strings.ToLower(r.Author), text) {
		return true
	}
	for _, t := range r.Tags {
		if strings.Contains(t, text) {
			return true
		}
	}
	return false
}

// Get returns one of the organization's rules with its YAML.
func (s *Service) Get(ctx context.Context, who actor.Actor, id string) (RuleState, []byte, error) {
	r, cat, err := s.find(ctx, who, id)
	if err != nil {
		return RuleState{}, nil, err
	}
	if r.Custom != nil {
		return r, []byte(r.Custom.YAML), nil
	}
	text, err := cat.Text(r.Rule)
	return r, text, err
}

// find returns one of the organization's rules with its state.
func (s *Service) find(ctx context.Context, who actor.Actor, id string) (RuleState, *Catalog, error) {
	all, cat, _, err := s.states(ctx, who.OrgID)
	if err != nil {
		return RuleState{}, nil, err
	}
	for _, r := range all {
		if r.ID == id {
			return r, cat, nil
		}
	}
	return RuleState{}, nil, store.ErrNotFound
}

// Sets returns the shipped rule sets and the custom set, with their states.
func (s *Service) Sets(ctx context.Context, who actor.Actor) ([]SetState, error) {
	all, cat, cfg, err := s.states(ctx, who.OrgID)
	if err != nil {
		return nil, err
	}
	p := NewPolicy(cfg)
	counts := map[string]int{}
	for _, r := range all {
		counts[r.Set]++
	}
	out := make([]SetState, 0, len(cat.Sets)+1)
	for _, name := range append(append([]string{}, cat.Sets...), CustomSet) {
		on, from := p.SetEnabled(name)
		out = append(out, SetState{Name: name, Rules: counts[name], Enabled: on, From: from})
	}
	return out, nil
}

// ErrUnknownSet: no shipped set has that name.
var ErrUnknownSet = fault.New(fault.NotFound, "No rule set has that name")

// ChooseSet turns a set on or off for the organization (and, on a
// provider, for its clients that made no choice of their own); nil
// forgets the organization's choice.
func (s *Service) ChooseSet(ctx context.Context, who actor.Actor, set string, enabled *bool) (SetState, error) {
	cat, err := Shipped()
	if err != nil {
		return SetState{}, err
	}
	if set != CustomSet && !contains(cat.Sets, set) {
		return SetState{}, ErrUnknownSet
	}
	if err := s.choose(ctx, who, "set", set, enabled); err != nil {
		return SetState{}, err
	}
	sets, err := s.Sets(ctx, who)
	if err != nil {
		return SetState{}, err
	}
	for _, st := range sets {
		if st.Name == set {
			return st, nil
		}
	}
	return SetState{}, store.ErrNotFound
}

// ChooseRule turns one rule on or off for the organization; nil forgets
// the choice.
func (s *Service) ChooseRule(ctx context.Context, who actor.Actor, id string, enabled *bool) (RuleState, error) {
	if _, _, err := s.find(ctx, who, id); err != nil {
		return RuleState{}, err
	}
	if err := s.choose(ctx, who, "rule", id, enabled); err != nil {
		return RuleState{}, err
	}
	r, _, err := s.find(ctx, who, id)
	return r, err
}

func (s *Service) choose(ctx context.Context, who actor.Actor, kind, name string, enabled *bool) error {
	ch := store.DetectionChoice{Kind: kind, Name: name, Enabled: enabled != nil && *enabled, UpdatedAt: s.now(), UpdatedBy: who.ID}
	return s.store.SetDetectionChoice(ctx, who.OrgID, ch, enabled == nil)
}

// AddRule validates a rule's YAML and stores it as the organization's
// own; a rule Garrison ships or one of the organization's (or its
// provider's, or its clients') already has its id is refused.
func (s *Service) AddRule(ctx context.Context, who actor.Actor, text string) (RuleState, error) {
	r, err := Validate(text)
	if err != nil {
		return RuleState{}, err
	}
	cat, err := Shipped()
	if err != nil {
		return RuleState{}, err
	}
	if _, ok := cat.Rule(r.ID); ok {
		return RuleState{}, fault.New(fault.Conflict, "A rule Garrison ships has that id; give yours its own")
	}
	now := s.now()
	if err := s.store.AddCustomRule(ctx, who.OrgID, store.CustomRule{ID: r.ID, Title: r.Title, Level: r.Level, YAML: text,
		CreatedAt: now, CreatedBy: who.ID, UpdatedAt: now}); err != nil {
		return RuleState{}, err
	}
	got, _, err := s.find(ctx, who, r.ID)
	return got, err
}

// DeleteRule deletes one of the organization's own rules.
func (s *Service) DeleteRule(ctx context.Context, who actor.Actor, id string) error {
	return s.store.DeleteCustomRule(ctx, who.OrgID, id)
}

// MaxCustomRuleBytes caps one of an organization's own rules (SigmaHQ's
// largest is 290 KiB of driver hashes; store.MaxCustomText caps them all).
const (
	MaxCustomRuleBytes = 256 << 10
)

// Validate compiles an organization's rule, refusing it with the line
// its fault is on; a rule of its own must say its id, title and level.
func Validate(text string) (*sigma.Rule, error) {
	if strings.TrimSpace(text) == "" {
		return nil, valid.Field("yaml", "must be a Sigma rule")
	}
	if len(text) > MaxCustomRuleBytes {
		return nil, valid.Field("yaml", fmt.Sprintf("must be at most %d KiB", MaxCustomRuleBytes>>10))
	}
	r, err := sigma.Parse([]byte(text))
	if err != nil {
		f := &fault.Error{Code: fault.Invalid, Message: "Invalid rule: " + err.Error(), Fields: []string{"yaml"}}
		if se, ok := err.(*sigma.Error); ok {
			f.Line = se.Line
		}
		return nil, f
	}
	r.ID = strings.ToLower(r.ID) // ids are compared as SigmaHQ writes them
	var p valid.Problems
	if r.ID == "" || !uuidLike(r.ID) {
		p.Add("yaml", "the rule's id must be a UUID (Sigma rules are named by one)")
	}
	if r.Title == "" {
		p.Add("yaml", "the rule must have a title")
	}
	if !contains(sigma.Levels, r.Level) {
		p.Add("yaml", "the rule's level must be one of "+strings.Join(sigma.Levels, ", "))
	}
	return r, p.Err()
}

// uuidLike reports an id of Sigma's form: 8-4-4-4-12 hexadecimal digits.
func uuidLike(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i, c := range id {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
