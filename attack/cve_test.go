package attack

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestCVEDataLoads(t *testing.T) {
	idx := loadCVEs()
	for _, p := range idx.problems {
		t.Errorf("embedded mappings: %s", p)
	}
	// The published attack_to_cve ids that cannot be read without guessing
	// what was meant. Pinned so a data refresh that changes them is seen.
	wantDropped := []string{
		"CVE-2015-7912 T11190", "CVE-2018-8337 TT1565", "CVE-2017-14487 T880", "CVE-2018-14847 T812",
		"CVE-2018-17877 T828", "CVE-2018-18665 T828", "CVE-2018-18667 T828", "CVE-2018-19830 T828",
		"CVE-2018-19831 T828", "CVE-2018-19833 T828", "CVE-2019-10980 T873", "CVE-2019-13533 T842",
		"CVE-2019-13533 T855",
	}
	got := slices.Clone(idx.dropped)
	slices.Sort(got)
	slices.Sort(wantDropped)
	if !slices.Equal(got, wantDropped) {
		t.Errorf("dropped ids\n got %q\nwant %q", got, wantDropped)
	}
	// 424 KEV CVEs + 836 attack_to_cve CVEs, 27 in both; 11 attack_to_cve
	// rows name no usable id (9 are empty).
	if n, want := len(idx.byCVE), 424+836-27-11; n != want {
		t.Errorf("%d CVEs; want %d", n, want)
	}
	for cve, ms := range idx.byCVE {
		seen := map[string]bool{}
		for _, m := range ms {
			tech := m.Technique
			if _, ok := roleRank[m.Role]; !ok || seen[tech.ID] || !techniqueIDRe.MatchString(tech.ID) ||
				tech.URL != techniqueURL(tech.ID) || tech.Tactics == nil {
				t.Errorf("%s: bad mapping %+v", cve, m)
			}
			seen[tech.ID] = true
			if c, ok := Lookup(tech.ID); ok && !equalTechnique(c, tech) {
				t.Errorf("%s: %+v differs from catalog %+v", cve, tech, c)
			}
		}
	}
}

// mappingsString renders mappings compactly for comparison:
// "T1190 exploitation|T1059 primary_impact".
func mappingsString(ms []CVEMapping) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, m.Technique.ID+" "+m.Role)
	}
	return strings.Join(parts, "|")
}

func TestForCVE(t *testing.T) {
	tests := []struct {
		cve, want string
	}{
		// KEV (Mappings Explorer) only.
		{"CVE-2024-34102", "T1190 exploitation|T1059 primary_impact|T1005 secondary_impact"},
		{"cve-2024-34102 ", "T1190 exploitation|T1059 primary_impact|T1005 secondary_impact"},
		// KEV lists T1087.002 as primary and secondary, T1133 as
		// exploitation and secondary: each once, in its strongest role.
		{"CVE-2020-1472", "T1110 exploitation|T1133 exploitation|T1021 primary_impact|T1068 primary_impact|T1087.002 primary_impact|T1486 secondary_impact"},
		// attack_to_cve only.
		{"CVE-2019-15976", "T1190 exploitation|T1068 primary_impact|T1059 secondary_impact"},
		// Both: attack_to_cve's "uncategorized" yields to KEV's roles.
		{"CVE-2014-6271", "T1133 exploitation|T1190 exploitation|T1059.004 primary_impact"},
		// Published as "T1190. T1005; T1565; T1499.004".
		{"CVE-2013-4335", "T1005 uncategorized|T1190 uncategorized|T1499.004 uncategorized|T1565 uncategorized"},
		// "T11190; T1059" and "T1211; TT1565; T1485": the typos are dropped.
		{"CVE-2015-7912", "T1059 uncategorized"},
		{"CVE-2018-8337", "T1211 uncategorized|T1485 uncategorized"},
		// ATT&CK for Mobile (KEV) and ICS / revoked ids (attack_to_cve).
		{"CVE-2023-4863", "T1456 exploitation|T1658 primary_impact"},
		{"CVE-2019-10990", "T1078.001 primary_impact|T1066 secondary_impact"},
		{"CVE-2019-3791", ""},  // a row with every column empty
		{"CVE-2018-18665", ""}, // only "T828"
		{"CVE-1999-0000", ""},
		{"", ""},
		{"T1190", ""},
	}
	for _, tt := range tests {
		got := ForCVE(tt.cve)
		if s := mappingsString(got); s != tt.want {
			t.Errorf("ForCVE(%q) = %s\nwant %s", tt.cve, s, tt.want)
		}
		if tt.want == "" && got != nil {
			t.Errorf("ForCVE(%q) = %#v; want nil", tt.cve, got)
		}
	}
}

func TestForCVETechniqueDetails(t *testing.T) {
	ms := ForCVE("CVE-2024-34102")
	b, err := json.Marshal(ms[0])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"technique":{"id":"T1190","name":"Exploit Public-Facing Application","tactics":["Initial Access"],"url":"https://attack.mitre.org/techniques/T1190/"},"role":"exploitation"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}

	// Outside the Enterprise catalog: the mapping's own name, no tactics.
	mobile := ForCVE("CVE-2023-4863")
	if got := mobile[0].Technique; got.Name != "Drive-By Compromise" || len(got.Tactics) != 0 ||
		got.URL != "https://attack.mitre.org/techniques/T1456/" {
		t.Errorf("mobile technique %+v", got)
	}
	ics := ForCVE("CVE-2018-5459")
	if i := slices.IndexFunc(ics, func(m CVEMapping) bool { return m.Technique.ID == "T0855" }); i < 0 ||
		ics[i].Technique.Name != "" || ics[i].Role != rolePrimaryImpact {
		t.Errorf("ICS mapping missing or wrong: %+v", ics)
	}

	// Callers get their own copy.
	ms[0].Technique.Tactics[0] = "changed"
	ms[1] = CVEMapping{}
	if again := ForCVE("CVE-2024-34102"); again[0].Technique.Tactics[0] != "Initial Access" || again[1].Technique.ID != "T1059" {
		t.Errorf("caller changed the index: %+v", again)
	}
}

// Malformed rows are reported and skipped, never a panic; good rows stay.
func TestParseCVEsReportsBadRows(t *testing.T) {
	cat := loadCatalog()
	const kevHead = "cve_id,attack_domain,mapping_type,attack_technique_id,attack_technique_name,capability_group,status\n"
	const kevGood = "CVE-2024-0001,enterprise,exploitation_technique,T1190,Exploit Public-Facing Application,x,complete\n"
	const a2cHead = "CVE ID,Primary Impact,Secondary Impact,Exploitation Technique,Uncategorized,Phase\n"
	const a2cGood = "CVE-2024-0002,T1059,,T1190,,Phase 1\n"
	const (
		k = "CVE-2024-0001" // kevGood
		a = "CVE-2024-0002" // a2cGood
	)
	tests := []struct {
		name, kev, a2c, problem string
		keep                    []string // CVEs still mapped
	}{
		{"kev bad cve", kevHead + kevGood + "CVE-24-1,enterprise,primary_impact,T1059,x,x,complete\n", a2cHead + a2cGood, "bad CVE id", []string{k, a}},
		{"kev mapping type", kevHead + kevGood + "CVE-2024-0003,enterprise,impact,T1059,x,x,complete\n", a2cHead + a2cGood, "unknown mapping_type", []string{k, a}},
		{"kev technique", kevHead + kevGood + "CVE-2024-0003,enterprise,primary_impact,T59,x,x,complete\n", a2cHead + a2cGood, "bad technique id", []string{k, a}},
		// Reported, yet kept: the id is well formed.
		{"kev not in catalog", kevHead + kevGood + "CVE-2024-0003,enterprise,primary_impact,T1999,x,x,complete\n", a2cHead + a2cGood, "not in catalog", []string{k, a, "CVE-2024-0003"}},
		{"kev field count", kevHead + kevGood + "CVE-2024-0003,enterprise\n" + "CVE-2024-0004,enterprise,primary_impact,T1059,x,x,complete\n", a2cHead + a2cGood, "wrong number of fields", []string{k, a, "CVE-2024-0004"}},
		{"kev quote", kevHead + kevGood + "CVE-2024-0003,\"enter\"prise,primary_impact,T1059,x,x,complete\n" + "CVE-2024-0004,enterprise,primary_impact,T1059,x,x,complete\n", a2cHead + a2cGood, "quote", []string{k, a, "CVE-2024-0004"}},
		{"kev header", "cve,domain\n" + kevGood, a2cHead + a2cGood, "header lacks column", []string{a}},
		{"kev empty", "", a2cHead + a2cGood, "header", []string{a}},
		{"a2c bad cve", kevHead + kevGood, a2cHead + a2cGood + "CVE 2024 1,T1059,,,,Phase 1\n", "bad CVE id", []string{k, a}},
		{"a2c header", kevHead + kevGood, "CVE,Primary\n" + a2cGood, "header lacks column", []string{k}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := parseCVEs(cat, []byte(tt.kev), []byte(tt.a2c))
			if len(idx.problems) != 1 || !strings.Contains(idx.problems[0], tt.problem) {
				t.Errorf("problems %q; want one containing %q", idx.problems, tt.problem)
			}
			if len(idx.byCVE) != len(tt.keep) {
				t.Errorf("%d CVEs mapped; want %v", len(idx.byCVE), tt.keep)
			}
			for _, cve := range tt.keep {
				if len(idx.byCVE[cve]) == 0 {
					t.Errorf("good row %s lost", cve)
				}
			}
		})
	}
}
