package attack

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// CWEMapping is a technique reached from a weakness through a CAPEC attack
// pattern: a derived mapping, weaker than a CTID mapping of the CVE itself.
type CWEMapping struct {
	Technique Technique `json:"technique"`
	CWE       string    `json:"cwe"`        // "CWE-89"
	CAPEC     string    `json:"capec"`      // "CAPEC-66"
	CAPECName string    `json:"capec_name"` // "SQL Injection"
}

type cweIndex struct {
	byCWE    map[string][]CWEMapping
	problems []string
}

var loadCWEs = sync.OnceValue(func() *cweIndex {
	b, err := dataFS.ReadFile("data/capec_cwe_attack.csv")
	if err != nil {
		panic(fmt.Sprintf("attack: embedded CAPEC data: %v", err))
	}
	return parseCWEs(loadCatalog(), b)
})

// parseCWEs reads CAPEC rows (capec_id, name, …, cwe_ids, attack_technique_ids),
// keeping only patterns with both weaknesses and techniques, and only
// techniques of the Enterprise catalog: a Mobile id reached through a
// generic weakness would mislead more than it tells.
func parseCWEs(cat *catalog, data []byte) *cweIndex {
	idx := &cweIndex{byCWE: map[string][]CWEMapping{}}
	want := []string{"capec_id", "name", "abstraction", "typical_severity", "likelihood", "status", "cwe_ids", "attack_technique_ids"}
	readCSV(data, "capec_cwe_attack.csv", want, &idx.problems, func(at string, get func(string) string) {
		if get("status") == "Deprecated" || get("cwe_ids") == "" || get("attack_technique_ids") == "" {
			return
		}
		for _, tid := range strings.Split(get("attack_technique_ids"), ";") {
			t, ok := cat.get(strings.TrimSpace(tid))
			if !ok {
				continue
			}
			for _, cwe := range strings.Split(get("cwe_ids"), ";") {
				cwe = strings.ToUpper(strings.TrimSpace(cwe))
				idx.byCWE[cwe] = append(idx.byCWE[cwe], CWEMapping{Technique: t, CWE: cwe, CAPEC: get("capec_id"), CAPECName: get("name")})
			}
		}
	})
	for cwe, ms := range idx.byCWE {
		slices.SortFunc(ms, func(a, b CWEMapping) int {
			if c := strings.Compare(a.Technique.ID, b.Technique.ID); c != 0 {
				return c
			}
			return strings.Compare(a.CAPEC, b.CAPEC)
		})
		// One mapping per technique: the first CAPEC pattern that reaches it.
		idx.byCWE[cwe] = slices.CompactFunc(ms, func(a, b CWEMapping) bool { return a.Technique.ID == b.Technique.ID })
	}
	return idx
}

// ForCWE returns the Enterprise techniques CAPEC attack patterns link to the
// weakness ("CWE-89", case-insensitive), one per technique, by technique id.
func ForCWE(cwe string) []CWEMapping {
	ms := loadCWEs().byCWE[strings.ToUpper(strings.TrimSpace(cwe))]
	out := slices.Clone(ms)
	for i := range out {
		out[i].Technique.Tactics = slices.Clone(out[i].Technique.Tactics)
	}
	return out
}
