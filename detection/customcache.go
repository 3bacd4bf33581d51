package detection

import (
	"strconv"
	"strings"
	"sync"

	"garrison/alerting"
	"garrison/sigma"
	"garrison/store"
)

// customCache keeps organizations' own rules compiled, and the engines of
// the sets of them that run, across detectors and listings: a rule is
// compiled once, not once per call of GET /detection-rules or once per
// client of the provider that wrote it, and clients that run the same
// rules (a provider's, with no rules of their own) share one engine.
// Stored rules never change (a rule is added or deleted, not edited), so
// a rule's key (owner, id, creation time) names its text for good.
type customCache struct {
	mu      sync.Mutex
	rules   map[string]*compiledRule
	engines map[string]*customEngine
}

// compiledRule is a stored rule compiled, or why this release cannot.
type compiledRule struct {
	rule  *sigma.Rule
	alert *alerting.Rule
	err   error
}

// customEngine is an engine of custom rules with what their alerts say.
type customEngine struct {
	engine *Engine
	alerts map[*sigma.Rule]*alerting.Rule
}

// Bounds of the cache: past either, it is dropped and refilled on use.
const (
	maxCachedRules   = 50_000
	maxCachedEngines = 10_000
)

func customKey(cr *store.CustomRule) string {
	return cr.OrgID + "/" + cr.ID + "/" + strconv.FormatInt(cr.CreatedAt.UnixNano(), 10)
}

// compile returns a stored rule compiled.
func (c *customCache) compile(cr *store.CustomRule) *compiledRule {
	key := customKey(cr)
	c.mu.Lock()
	got := c.rules[key]
	c.mu.Unlock()
	if got != nil {
		return got
	}
	got = &compiledRule{}
	got.rule, got.err = sigma.Parse([]byte(cr.YAML))
	if got.err == nil {
		got.alert = alertRule(&Rule{Rule: got.rule, Set: CustomSet})
	}
	c.mu.Lock()
	if c.rules == nil || len(c.rules) >= maxCachedRules {
		c.rules = map[string]*compiledRule{}
	}
	c.rules[key] = got
	c.mu.Unlock()
	return got
}

// engine returns the engine of the rules that run (nil for none); a rule
// this release cannot read is left out, never stopping ingest.
func (c *customCache) engine(run []*store.CustomRule) *customEngine {
	if len(run) == 0 {
		return nil
	}
	keys := make([]string, len(run))
	for i, cr := range run {
		keys[i] = customKey(cr)
	}
	key := strings.Join(keys, "\x00")
	c.mu.Lock()
	got := c.engines[key]
	c.mu.Unlock()
	if got != nil {
		return got
	}
	got = &customEngine{alerts: map[*sigma.Rule]*alerting.Rule{}}
	var rules []*sigma.Rule
	for _, cr := range run {
		if r := c.compile(cr); r.err == nil {
			rules = append(rules, r.rule)
			got.alerts[r.rule] = r.alert
		}
	}
	if len(rules) == 0 {
		return nil
	}
	got.engine = NewEngine(rules)
	c.mu.Lock()
	if c.engines == nil || len(c.engines) >= maxCachedEngines {
		c.engines = map[string]*customEngine{}
	}
	c.engines[key] = got
	c.mu.Unlock()
	return got
}
