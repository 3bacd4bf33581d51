package detection

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync"

	"garrison/alerting"
	"garrison/sigma"
)

// SigmaHQ's rules of the sources Garrison reads, as published (sigmahq/README.md): the Detection
// Rule License 1.1 asks that each keeps its author and a link.
//
//go:embed sigmahq/rules.tar.gz
var shippedArchive []byte

// sigmaHQCommit is the SigmaHQ/sigma commit the shipped rules are from.
const sigmaHQCommit = "8eaafff1f2845a696050e05e72ba1140ee190698"

// License is the licence of the shipped rules, shown with them.
const License = "Detection Rule License 1.1, https://github.com/SigmaHQ/Detection-Rule-License"

// CustomSet is the set of an organization's own rules.
const CustomSet = "custom"

// Rule is a compiled rule as Garrison offers it: its set (the SigmaHQ
// folder it is published in, "windows.process_creation", or CustomSet)
// and where it is published.
type Rule struct {
	*sigma.Rule
	Set  string
	Link string
	path string // in the archive; "" for a custom rule
}

// Catalog is the shipped rules, compiled and indexed.
type Catalog struct {
	Rules  []*Rule // by set, then title
	Sets   []string
	byID   map[string]*Rule
	alerts map[*sigma.Rule]*alerting.Rule // what an alert says of each
	order  map[*alerting.Rule]int         // each one's place in Rules
	engine *Engine
}

// Rule returns a shipped rule by id.
func (c *Catalog) Rule(id string) (*Rule, bool) {
	r, ok := c.byID[id]
	return r, ok
}

// Engine is the shipped rules' engine.
func (c *Catalog) Engine() *Engine { return c.engine }

// Text returns a shipped rule's YAML as SigmaHQ publishes it.
func (c *Catalog) Text(r *Rule) ([]byte, error) {
	var text []byte
	err := eachArchived(func(name string, body []byte) bool {
		if name == r.path {
			text = body
			return false
		}
		return true
	})
	if err == nil && text == nil {
		err = fmt.Errorf("rule %s not in the archive", r.path)
	}
	return text, err
}

var shipped struct {
	once    sync.Once
	catalog *Catalog
	err     error
}

// Shipped returns the shipped rules, compiled once per process when first
// asked for (most of a second, and some 20 MiB): by the first Windows
// ingest or rule listing, never on the start path, so an appliance that
// receives no Windows events never holds them.
func Shipped() (*Catalog, error) {
	shipped.once.Do(func() { shipped.catalog, shipped.err = loadCatalog() })
	return shipped.catalog, shipped.err
}

func loadCatalog() (*Catalog, error) {
	c := &Catalog{byID: map[string]*Rule{}, alerts: map[*sigma.Rule]*alerting.Rule{}}
	var errs []error
	sets := map[string]bool{}
	err := eachArchived(func(name string, body []byte) bool {
		compiled, err := sigma.Parse(body)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			return true
		}
		r := &Rule{Rule: compiled, Set: ruleSet(name), path: name,
			Link: "https://github.com/SigmaHQ/sigma/blob/" + sigmaHQCommit + "/" + name}
		if _, dup := c.byID[r.ID]; dup {
			errs = append(errs, fmt.Errorf("%s: id %s given twice", name, r.ID))
			return true
		}
		c.byID[r.ID], c.alerts[compiled] = r, alertRule(r)
		c.Rules = append(c.Rules, r)
		sets[r.Set] = true
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("read the shipped rules: %w", err)
	}
	if len(errs) > 0 { // the archive is checked by tests: a refusal is a build defect
		return nil, fmt.Errorf("shipped rules refused: %w", errors.Join(errs...))
	}
	sort.Slice(c.Rules, func(i, j int) bool {
		a, b := c.Rules[i], c.Rules[j]
		if a.Set != b.Set {
			return a.Set < b.Set
		}
		return a.Title < b.Title
	})
	compiled := make([]*sigma.Rule, len(c.Rules))
	c.order = make(map[*alerting.Rule]int, len(c.Rules))
	for i, r := range c.Rules {
		compiled[i] = r.Rule
		c.order[c.alerts[r.Rule]] = i
	}
	c.engine = NewEngine(compiled)
	for s := range sets {
		c.Sets = append(c.Sets, s)
	}
	sort.Strings(c.Sets)
	return c, nil
}

// ruleSet is the set of a rule at rules/<product>/<folder>/…:
// "windows.builtin" (a dot, so that a set's name is one path segment).
func ruleSet(name string) string {
	parts := strings.SplitN(strings.TrimPrefix(name, "rules/"), "/", 3)
	if len(parts) < 3 {
		return strings.ReplaceAll(path.Dir(strings.TrimPrefix(name, "rules/")), "/", ".")
	}
	return parts[0] + "." + parts[1]
}

// eachArchived calls f with each rule file of the archive until it says stop.
func eachArchived(f func(name string, body []byte) bool) error {
	zr, err := gzip.NewReader(bytes.NewReader(shippedArchive))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return fmt.Errorf("%s: %w", h.Name, err)
		}
		if !f(h.Name, body) {
			return nil
		}
	}
}
