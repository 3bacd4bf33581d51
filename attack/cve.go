package attack

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// CVEMapping is a technique the CTID mappings associate with a CVE and the
// part it plays.
type CVEMapping struct {
	Technique Technique `json:"technique"`
	Role      string    `json:"role"` // "exploitation", "primary_impact", "secondary_impact", "uncategorized"
}

// Roles, strongest first: a technique mapped to one CVE in several roles is
// reported once, in its strongest.
const (
	roleExploitation    = "exploitation"
	rolePrimaryImpact   = "primary_impact"
	roleSecondaryImpact = "secondary_impact"
	roleUncategorized   = "uncategorized"
)

var roleRank = map[string]int{roleExploitation: 0, rolePrimaryImpact: 1, roleSecondaryImpact: 2, roleUncategorized: 3}

var cveIDRe = regexp.MustCompile(`^CVE-[0-9]{4}-[0-9]{4,}$`)

// cveIndex holds both mapping files merged per CVE. problems are malformed
// rows (a test insists there are none); dropped are technique ids the
// published attack_to_cve data spells so badly that guessing would be
// unsafe ("T11190", "TT1565", "T812"); a test pins that list.
type cveIndex struct {
	byCVE    map[string][]CVEMapping
	problems []string
	dropped  []string
}

var loadCVEs = sync.OnceValue(func() *cveIndex {
	kev, err1 := dataFS.ReadFile("data/kev_attack_mappings.csv")
	a2c, err2 := dataFS.ReadFile("data/attack_to_cve_mappings.csv")
	idx := parseCVEs(loadCatalog(), kev, a2c)
	for _, err := range []error{err1, err2} {
		if err != nil {
			idx.problems = append(idx.problems, err.Error())
		}
	}
	return idx
})

// ForCVE returns the techniques the CTID mappings (CISA KEV mappings from
// Mappings Explorer, and attack_to_cve) associate with cveID, one entry per
// technique, strongest role first, then by technique id. cveID is
// case-insensitive; the result is nil for a CVE neither set maps.
//
// Techniques outside the Enterprise v18.1 catalog (ATT&CK for Mobile or ICS
// ids, ids revoked since the mapping was made) keep their id and URL and the
// name the mapping gives, if any, with no tactics.
func ForCVE(cveID string) []CVEMapping {
	ms := loadCVEs().byCVE[normalizeID(cveID)]
	if ms == nil {
		return nil
	}
	out := slices.Clone(ms)
	for i := range out {
		out[i].Technique.Tactics = slices.Clone(out[i].Technique.Tactics)
	}
	return out
}

// cveBuilder merges rows from both files before anything is resolved, so
// the strongest role wins whichever file names it.
type cveBuilder struct {
	cat      *catalog
	roles    map[string]map[string]int // CVE → technique id → best role rank
	names    map[string]string         // names the KEV file gives ids the catalog lacks
	problems []string
	dropped  []string
}

func (b *cveBuilder) add(cve, id, role string) {
	m := b.roles[cve]
	if m == nil {
		m = map[string]int{}
		b.roles[cve] = m
	}
	if r, ok := m[id]; !ok || roleRank[role] < r {
		m[id] = roleRank[role]
	}
}

func parseCVEs(cat *catalog, kev, a2c []byte) *cveIndex {
	b := &cveBuilder{cat: cat, roles: map[string]map[string]int{}, names: map[string]string{}}
	b.parseKEV(kev)
	b.parseA2C(a2c)
	roleNames := make([]string, len(roleRank))
	for name, r := range roleRank {
		roleNames[r] = name
	}
	idx := &cveIndex{byCVE: make(map[string][]CVEMapping, len(b.roles)), problems: b.problems, dropped: b.dropped}
	for cve, m := range b.roles {
		ms := make([]CVEMapping, 0, len(m))
		for id, r := range m {
			t, ok := cat.techniques[id]
			if !ok {
				t = Technique{ID: id, Name: b.names[id], Tactics: []string{}, URL: techniqueURL(id)}
			}
			ms = append(ms, CVEMapping{Technique: t, Role: roleNames[r]})
		}
		slices.SortFunc(ms, func(x, y CVEMapping) int {
			return cmp.Or(cmp.Compare(roleRank[x.Role], roleRank[y.Role]), cmp.Compare(x.Technique.ID, y.Technique.ID))
		})
		idx.byCVE[cve] = ms
	}
	return idx
}

// kevRoles maps Mappings Explorer's mapping_type to a role.
var kevRoles = map[string]string{
	"exploitation_technique": roleExploitation,
	"primary_impact":         rolePrimaryImpact,
	"secondary_impact":       roleSecondaryImpact,
	"uncategorized":          roleUncategorized,
}

// parseKEV reads kev_attack_mappings.csv: one row per CVE, technique and
// mapping type, with ATT&CK 16.1 names.
func (b *cveBuilder) parseKEV(data []byte) {
	readCSV(data, "kev", []string{"cve_id", "attack_domain", "mapping_type", "attack_technique_id", "attack_technique_name"}, &b.problems,
		func(at string, get func(string) string) {
			cve, domain, id := strings.TrimSpace(get("cve_id")), get("attack_domain"), strings.TrimSpace(get("attack_technique_id"))
			role, ok := kevRoles[get("mapping_type")]
			switch {
			case !cveIDRe.MatchString(cve):
				b.problems = append(b.problems, at+": bad CVE id "+cve)
			case !ok:
				b.problems = append(b.problems, at+": unknown mapping_type "+get("mapping_type"))
			case !techniqueIDRe.MatchString(id):
				b.problems = append(b.problems, at+": bad technique id "+id)
			default:
				if _, known := b.cat.techniques[id]; !known {
					// Mobile ids are expected to be missing; an Enterprise
					// one means the catalog and mappings disagree.
					if domain == "enterprise" {
						b.problems = append(b.problems, at+": enterprise technique "+id+" not in catalog")
					}
					b.names[id] = strings.TrimSpace(get("attack_technique_name"))
				}
				b.add(cve, id, role)
			}
		})
}

// a2cColumns maps attack_to_cve's columns to roles.
var a2cColumns = []struct{ column, role string }{
	{"Primary Impact", rolePrimaryImpact},
	{"Secondary Impact", roleSecondaryImpact},
	{"Exploitation Technique", roleExploitation},
	{"Uncategorized", roleUncategorized},
}

// parseA2C reads attack_to_cve_mappings.csv: one row per CVE, each role
// column a "; "-separated id list as published, irregularities included.
func (b *cveBuilder) parseA2C(data []byte) {
	cols := []string{"CVE ID"}
	for _, c := range a2cColumns {
		cols = append(cols, c.column)
	}
	readCSV(data, "attack_to_cve", cols, &b.problems, func(at string, get func(string) string) {
		cve := strings.TrimSpace(get("CVE ID"))
		if !cveIDRe.MatchString(cve) {
			b.problems = append(b.problems, at+": bad CVE id "+cve)
			return
		}
		for _, c := range a2cColumns {
			// Split on spaces too: the data has "T1190. T1005" for two ids.
			for _, tok := range strings.FieldsFunc(get(c.column), func(r rune) bool { return r == ';' || unicode.IsSpace(r) }) {
				// A trailing dot ("T1036.", "T1134.001.") is a typo that
				// cannot change which technique is meant.
				id := strings.TrimRight(tok, ".")
				if !techniqueIDRe.MatchString(id) {
					b.dropped = append(b.dropped, cve+" "+tok)
					continue
				}
				b.add(cve, id, c.role)
			}
		}
	})
}

// readCSV calls row for each data row of a CSV file with a header that has
// at least the wanted columns; get returns a column's value by name. Bad
// rows are reported in problems and skipped.
func readCSV(data []byte, file string, want []string, problems *[]string, row func(at string, get func(string) string)) {
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err != nil {
		*problems = append(*problems, fmt.Sprintf("%s: header: %v", file, err))
		return
	}
	pos := map[string]int{}
	for i, h := range header {
		pos[h] = i
	}
	for _, w := range want {
		if _, ok := pos[w]; !ok {
			*problems = append(*problems, fmt.Sprintf("%s: header lacks column %q", file, w))
			return
		}
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return
		}
		if err != nil {
			*problems = append(*problems, fmt.Sprintf("%s: %v", file, err))
			if _, ok := errors.AsType[*csv.ParseError](err); ok {
				continue // the reader has moved past the bad line
			}
			return
		}
		line, _ := r.FieldPos(0)
		row(fmt.Sprintf("%s line %d", file, line), func(col string) string { return rec[pos[col]] })
	}
}
