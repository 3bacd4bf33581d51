package agents

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"garrison/account"
	"garrison/intel"
	"garrison/outreach"
	"garrison/store"
	"garrison/valid"
)

func TestRegistry(t *testing.T) {
	want := []string{"msp-hunter", "threat-researcher", "tech-support", "compliance", "account-manager", "onboarding"}
	if got := Slugs(); !slices.Equal(got, want) {
		t.Fatalf("slugs %v, want %v", got, want)
	}
	tests := []struct {
		slug                string
		starter, pro, ultim bool
	}{
		{"msp-hunter", false, true, true},
		{"threat-researcher", true, true, true},
		{"tech-support", true, true, true},
		{"compliance", true, true, true},
		{"account-manager", true, true, true},
		{"onboarding", true, true, true},
	}
	for i, tc := range tests {
		t.Run(tc.slug, func(t *testing.T) {
			a, ok := Lookup(tc.slug)
			if !ok || a.Slug != tc.slug || All()[i].Slug != tc.slug || a.Name == "" || a.Description == "" {
				t.Fatalf("Lookup(%s) = %+v, %v", tc.slug, a, ok)
			}
			got := []bool{a.AllowedOn(account.PlanStarter), a.AllowedOn(account.PlanPro), a.AllowedOn(account.PlanUltimate), a.AllowedOn("free")}
			if wantOn := []bool{tc.starter, tc.pro, tc.ultim, false}; !slices.Equal(got, wantOn) {
				t.Errorf("allowed on starter, pro, ultimate, an unknown plan: %v, want %v", got, wantOn)
			}
			if (a.Permit(account.PlanStarter) == nil) != tc.starter {
				t.Errorf("Permit(starter) = %v", a.Permit(account.PlanStarter))
			}
			if a.NewParams() == nil {
				t.Error("no parameters")
			}
		})
	}
	if _, ok := Lookup("Onboarding"); ok {
		t.Error("slugs are case-sensitive")
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		name, slug, want string
	}{
		{"known", "onboarding", ""},
		{"unknown", "hacker", `names no agent (got "hacker"). Valid agents: msp-hunter, threat-researcher, tech-support, compliance, account-manager, onboarding`},
		{"long names are cut", strings.Repeat("x", 70), `names no agent (got "` + strings.Repeat("x", 64) + `…"). Valid agents: ` +
			"msp-hunter, threat-researcher, tech-support, compliance, account-manager, onboarding"},
		{"invalid UTF-8 dropped", "a\xffb", `names no agent (got "ab"). Valid agents: msp-hunter, threat-researcher, tech-support, compliance, account-manager, onboarding`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Find(tc.slug, "id")
			if tc.want == "" {
				if err != nil || a.Slug != tc.slug {
					t.Fatalf("Find = %+v, %v", a, err)
				}
				return
			}
			if got := problemMap(err); !reflect.DeepEqual(got, map[string]string{"id": tc.want}) {
				t.Errorf("problems %v, want id %q", got, tc.want)
			}
		})
	}
}

func TestHunterParamsValidate(t *testing.T) {
	n := func(v int) *int { return &v }
	tests := []struct {
		name string
		p    hunterParams
		want map[string]string
	}{
		{"nothing: defaults", hunterParams{}, nil},
		{"a vertical", hunterParams{Vertical: "dental"}, nil},
		{"an unknown vertical", hunterParams{Vertical: "space"}, map[string]string{"vertical": "must be one of " + strings.Join(outreach.Verticals, ", ")}},
		{"employees from 0", hunterParams{MinEmployees: n(0), MaxEmployees: n(0)}, nil},
		{"negative minimum", hunterParams{MinEmployees: n(-1)}, map[string]string{"min_employees": "must be 0 or more"}},
		{"negative maximum", hunterParams{MaxEmployees: n(-1)}, map[string]string{"max_employees": "must be 0 or more, and at least min_employees"}},
		{"maximum below minimum", hunterParams{MinEmployees: n(50), MaxEmployees: n(49)},
			map[string]string{"max_employees": "must be 0 or more, and at least min_employees"}},
		{"maximum equal to minimum", hunterParams{MinEmployees: n(50), MaxEmployees: n(50)}, nil},
		{"limit 0", hunterParams{Limit: n(0)}, map[string]string{"limit": "must be from 1 to 10000"}},
		{"limit 1", hunterParams{Limit: n(1)}, nil},
		{"limit 10000", hunterParams{Limit: n(maxHuntLimit)}, nil},
		{"limit 10001", hunterParams{Limit: n(maxHuntLimit + 1)}, map[string]string{"limit": "must be from 1 to 10000"}},
		{"region over the limit", hunterParams{Region: strings.Repeat("r", 101)}, map[string]string{"region": "must be at most 100 bytes (it has 101)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p valid.Problems
			tc.p.Validate(&p)
			if got := problemMap(p.Err()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems %v, want %v", got, tc.want)
			}
		})
	}
}

func TestComplianceParams(t *testing.T) {
	tests := []struct {
		name       string
		p          complianceParams
		want       map[string]string
		frameworks []string
	}{
		{"all frameworks", complianceParams{}, nil, []string{"soc2", "hipaa", "nist", "cis"}},
		{"one framework", complianceParams{Framework: "hipaa"}, nil, []string{"hipaa"}},
		{"an unknown framework", complianceParams{Framework: "iso27001"}, map[string]string{"framework": "must be one of soc2, hipaa, nist, cis"}, nil},
		{"a framework in capitals", complianceParams{Framework: "SOC2"}, map[string]string{"framework": "must be one of soc2, hipaa, nist, cis"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p valid.Problems
			tc.p.Validate(&p)
			if got := problemMap(p.Err()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems %v, want %v", got, tc.want)
			}
			if tc.want == nil && !slices.Equal(tc.p.AuditFrameworks(), tc.frameworks) {
				t.Errorf("audits %v, want %v", tc.p.AuditFrameworks(), tc.frameworks)
			}
		})
	}
}

func TestPromptOnly(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		want   map[string]string
	}{
		{"none", "", nil},
		{"at the limit", strings.Repeat("p", promptLimit), nil},
		{"over the limit", strings.Repeat("p", promptLimit+1), map[string]string{"prompt": "must be at most 4000 bytes (it has 4001)"}},
		{"a control character", "a\x1bb", map[string]string{"prompt": "must be UTF-8 text without control characters other than newline and tab"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p valid.Problems
			(&promptOnly{Prompt: tc.prompt}).Validate(&p)
			if got := problemMap(p.Err()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems %v, want %v", got, tc.want)
			}
		})
	}
}

func TestJoinList(t *testing.T) {
	tests := []struct {
		name  string
		items []string
		want  string
	}{
		{"none", nil, ""},
		{"one", []string{"a"}, "a"},
		{"two", []string{"a", "b"}, "a and b"},
		{"three", []string{"a", "b", "c"}, "a, b and c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := joinList(tc.items); got != tc.want {
				t.Errorf("joinList(%q) = %q, want %q", tc.items, got, tc.want)
			}
		})
	}
}

func TestFrameworkName(t *testing.T) {
	tests := []struct{ id, want string }{
		{"soc2", "SOC 2"}, {"hipaa", "HIPAA Security Rule"}, {"nist", "NIST Cybersecurity Framework"},
		{"cis", "CIS Critical Security Controls"}, {"iso27001", "iso27001"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			if got := frameworkName(tc.id); got != tc.want {
				t.Errorf("frameworkName(%s) = %q, want %q", tc.id, got, tc.want)
			}
		})
	}
}

func TestChangeText(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name string
		c    store.IntelChange
		want string
	}{
		{"intelligence arrived", store.IntelChange{Field: "record", After: s("NVD")}, "Intelligence arrived: NVD"},
		{"a score changed", store.IntelChange{Field: "cvss_score", Before: s("7.5"), After: s("9.8")}, "CVSS score: 7.5 → 9.8"},
		{"a listing removed", store.IntelChange{Field: "kev", Before: s("listed")}, "CISA KEV: listed → none"},
		{"neither side", store.IntelChange{Field: "severity"}, "Severity"},
		{"an unnamed field", store.IntelChange{Field: "epss", Before: s("0.1"), After: s("0.9")}, "epss: 0.1 → 0.9"},
		{"patch status", store.IntelChange{Field: "patch_status", After: s("patched")}, "Patch status: patched"},
		{"exploit references", store.IntelChange{Field: "exploit_references", Before: s("1"), After: s("3")}, "Exploit references: 1 → 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := changeText(tc.c); got != tc.want {
				t.Errorf("changeText = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAffecting(t *testing.T) {
	tests := []struct {
		name    string
		watched []intel.ExposureItem
		want    int
	}{
		{"none", nil, 0},
		{"none affecting", []intel.ExposureItem{{Affected: 0}, {Affected: 0}}, 0},
		{"counted once each", []intel.ExposureItem{{Affected: 3}, {Affected: 0}, {Affected: 1}}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := affecting(tc.watched); got != tc.want {
				t.Errorf("affecting = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestEnabled(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		b    *bool
		want bool
	}{
		{"left out", nil, true}, {"true", &yes, true}, {"false", &no, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := enabled(tc.b); got != tc.want {
				t.Errorf("enabled = %v, want %v", got, tc.want)
			}
		})
	}
}
