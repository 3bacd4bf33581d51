package attack

import (
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Version is the ATT&CK version of the embedded catalog; a test checks it
// against the data's own attack_version.
const Version = "18.1"

// NOTICE.md is embedded with the data so ATT&CK's terms travel with every
// copy of it, as they require.
//
//go:embed data/attack_enterprise_techniques.json data/kev_attack_mappings.csv data/attack_to_cve_mappings.csv data/capec_cwe_attack.csv data/NOTICE.md
var dataFS embed.FS

// Technique is one ATT&CK Enterprise technique or sub-technique.
type Technique struct {
	ID      string   `json:"id"`      // "T1190" or "T1071.004"
	Name    string   `json:"name"`    // "Exploit Public-Facing Application"
	Tactics []string `json:"tactics"` // tactic names in matrix order, e.g. "Initial Access"
	URL     string   `json:"url"`     // https://attack.mitre.org/techniques/T1071/004/
}

// techniqueIDRe is the shape of every ATT&CK technique id (all domains).
var techniqueIDRe = regexp.MustCompile(`^T[0-9]{4}(\.[0-9]{3})?$`)

// techniqueURL is the canonical page of a technique; sub-technique ids use a
// slash on the site ("T1071.004" → /T1071/004/).
func techniqueURL(id string) string {
	return "https://attack.mitre.org/techniques/" + strings.Replace(id, ".", "/", 1) + "/"
}

// catalog is the parsed technique file. problems lists what was skipped;
// it is empty for good data (a test insists).
type catalog struct {
	version    string
	techniques map[string]Technique
	problems   []string
}

var loadCatalog = sync.OnceValue(func() *catalog {
	b, err := dataFS.ReadFile("data/attack_enterprise_techniques.json")
	if err != nil {
		return &catalog{techniques: map[string]Technique{}, problems: []string{err.Error()}}
	}
	return parseCatalog(b)
})

// parseCatalog checks every record rather than trusting the extract, so a
// bad refresh of the data shows up in tests instead of in an agent's answer.
func parseCatalog(b []byte) *catalog {
	c := &catalog{techniques: map[string]Technique{}}
	var raw struct {
		Version string `json:"attack_version"`
		Tactics []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"tactics"`
		Techniques []struct {
			ID       string   `json:"id"`
			Name     string   `json:"name"`
			Tactics  []string `json:"tactics"`
			IsSub    bool     `json:"is_subtechnique"`
			ParentID *string  `json:"parent_id"`
			URL      string   `json:"url"`
		} `json:"techniques"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		c.problems = append(c.problems, "decode: "+err.Error())
		return c
	}
	c.version = raw.Version
	tacticOrder := map[string]int{}
	for i, t := range raw.Tactics {
		tacticOrder[t.Name] = i
	}
	for i, r := range raw.Techniques {
		bad := func(format string, args ...any) {
			c.problems = append(c.problems, fmt.Sprintf("technique %d (%q): ", i, r.ID)+fmt.Sprintf(format, args...))
		}
		switch {
		case !techniqueIDRe.MatchString(r.ID):
			bad("bad id")
			continue
		case strings.TrimSpace(r.Name) == "":
			bad("no name")
			continue
		case len(r.Tactics) == 0:
			bad("no tactics")
			continue
		case strings.TrimSuffix(techniqueURL(r.ID), "/") != r.URL:
			bad("url %q does not match the id", r.URL)
			continue
		case r.IsSub != strings.Contains(r.ID, "."):
			bad("is_subtechnique %v does not match the id", r.IsSub)
			continue
		case r.IsSub && (r.ParentID == nil || *r.ParentID != r.ID[:5]):
			bad("parent_id does not match the id")
			continue
		}
		if _, dup := c.techniques[r.ID]; dup {
			bad("duplicate id")
			continue
		}
		tactics := slices.Clone(r.Tactics)
		if j := slices.IndexFunc(tactics, func(t string) bool { _, ok := tacticOrder[t]; return !ok }); j >= 0 {
			bad("unknown tactic %q", tactics[j])
			continue
		}
		// The extract lists some tactics out of matrix order; sort for a
		// stable, kill-chain-shaped answer.
		slices.SortStableFunc(tactics, func(a, b string) int { return cmp.Compare(tacticOrder[a], tacticOrder[b]) })
		c.techniques[r.ID] = Technique{ID: r.ID, Name: r.Name, Tactics: tactics, URL: techniqueURL(r.ID)}
	}
	// Every sub-technique's parent must itself be in the catalog.
	for id := range c.techniques {
		if p, _, ok := strings.Cut(id, "."); ok {
			if _, found := c.techniques[p]; !found {
				c.problems = append(c.problems, fmt.Sprintf("technique %q: parent %q missing", id, p))
			}
		}
	}
	slices.Sort(c.problems) // map order above
	return c
}

// normalizeID upper-cases and trims an id typed by a person or a model.
func normalizeID(id string) string {
	return strings.ToUpper(strings.TrimSpace(id))
}

// get returns a catalog technique with its own Tactics slice, so callers
// cannot change the shared catalog.
func (c *catalog) get(id string) (Technique, bool) {
	t, ok := c.techniques[id]
	if !ok {
		return Technique{}, false
	}
	t.Tactics = slices.Clone(t.Tactics)
	return t, true
}

// Lookup returns the Enterprise technique or sub-technique with the given id
// ("T1190", "t1071.004"); ids outside the v18.1 Enterprise catalog (mobile,
// ICS, revoked or deprecated) are not found.
func Lookup(id string) (Technique, bool) {
	return loadCatalog().get(normalizeID(id))
}
