package attack

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestCatalogLoads(t *testing.T) {
	c := loadCatalog()
	for _, p := range c.problems {
		t.Errorf("embedded catalog: %s", p)
	}
	if c.version != Version {
		t.Errorf("data attack_version %q, Version %q", c.version, Version)
	}
	subs := 0
	for id := range c.techniques {
		if strings.Contains(id, ".") {
			subs++
		}
	}
	// 216 techniques + 475 sub-techniques, per SOURCES.md.
	if len(c.techniques) != 691 || subs != 475 {
		t.Errorf("%d techniques, %d sub-techniques; want 691, 475", len(c.techniques), subs)
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		in   string
		want Technique
		ok   bool
	}{
		{"T1190", Technique{"T1190", "Exploit Public-Facing Application", []string{"Initial Access"},
			"https://attack.mitre.org/techniques/T1190/"}, true},
		{"t1071.004", Technique{"T1071.004", "DNS", []string{"Command and Control"},
			"https://attack.mitre.org/techniques/T1071/004/"}, true},
		{" T1059.001\n", Technique{"T1059.001", "PowerShell", []string{"Execution"},
			"https://attack.mitre.org/techniques/T1059/001/"}, true},
		// The extract lists Defense Evasion first; matrix order puts
		// Privilege Escalation first.
		{"T1055", Technique{"T1055", "Process Injection", []string{"Privilege Escalation", "Defense Evasion"},
			"https://attack.mitre.org/techniques/T1055/"}, true},
		{"T1053", Technique{"T1053", "Scheduled Task/Job", []string{"Execution", "Persistence", "Privilege Escalation"},
			"https://attack.mitre.org/techniques/T1053/"}, true},
		{"T9999", Technique{}, false},
		{"T1660", Technique{}, false}, // ATT&CK for Mobile "Phishing"
		{"T1066", Technique{}, false}, // revoked Enterprise id
		{"T0855", Technique{}, false}, // ICS
		{"T1190.", Technique{}, false},
		{"T1071/004", Technique{}, false},
		{"", Technique{}, false},
	}
	for _, tt := range tests {
		got, ok := Lookup(tt.in)
		if ok != tt.ok || !equalTechnique(got, tt.want) {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func equalTechnique(a, b Technique) bool {
	return a.ID == b.ID && a.Name == b.Name && a.URL == b.URL && slices.Equal(a.Tactics, b.Tactics)
}

func TestLookupReturnsCopy(t *testing.T) {
	a, _ := Lookup("T1190")
	a.Tactics[0] = "changed"
	if b, _ := Lookup("T1190"); b.Tactics[0] != "Initial Access" {
		t.Fatalf("caller changed the catalog: %v", b.Tactics)
	}
}

func TestTechniqueJSON(t *testing.T) {
	tech, _ := Lookup("T1071.004")
	b, err := json.Marshal(tech)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"T1071.004","name":"DNS","tactics":["Command and Control"],"url":"https://attack.mitre.org/techniques/T1071/004/"}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

// Bad data must be reported, never panic, and keep the good records.
func TestParseCatalogReportsBadRecords(t *testing.T) {
	const head = `{"attack_version":"x","tactics":[{"id":"TA0001","name":"Initial Access"}],"techniques":[`
	good := `{"id":"T1190","name":"Exploit","tactics":["Initial Access"],"is_subtechnique":false,"parent_id":null,"url":"https://attack.mitre.org/techniques/T1190"}`
	tests := []struct {
		name, record string
		problem      string
	}{
		{"bad id", `{"id":"T11","name":"a","tactics":["Initial Access"],"url":"https://attack.mitre.org/techniques/T11"}`, "bad id"},
		{"no name", `{"id":"T1001","name":" ","tactics":["Initial Access"],"url":"https://attack.mitre.org/techniques/T1001"}`, "no name"},
		{"no tactics", `{"id":"T1001","name":"a","tactics":[],"url":"https://attack.mitre.org/techniques/T1001"}`, "no tactics"},
		{"url", `{"id":"T1001","name":"a","tactics":["Initial Access"],"url":"https://example.com/"}`, "url"},
		{"unknown tactic", `{"id":"T1001","name":"a","tactics":["Nope"],"url":"https://attack.mitre.org/techniques/T1001"}`, "unknown tactic"},
		{"sub flag", `{"id":"T1190.001","name":"a","tactics":["Initial Access"],"is_subtechnique":false,"url":"https://attack.mitre.org/techniques/T1190/001"}`, "is_subtechnique"},
		{"parent", `{"id":"T1190.001","name":"a","tactics":["Initial Access"],"is_subtechnique":true,"parent_id":"T1001","url":"https://attack.mitre.org/techniques/T1190/001"}`, "parent_id"},
		{"orphan", `{"id":"T1002.001","name":"a","tactics":["Initial Access"],"is_subtechnique":true,"parent_id":"T1002","url":"https://attack.mitre.org/techniques/T1002/001"}`, "parent \"T1002\" missing"},
		{"duplicate", good, "duplicate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parseCatalog([]byte(head + good + "," + tt.record + "]}"))
			if len(c.problems) != 1 || !strings.Contains(c.problems[0], tt.problem) {
				t.Errorf("problems %q; want one containing %q", c.problems, tt.problem)
			}
			if _, ok := c.get("T1190"); !ok {
				t.Error("good record lost")
			}
		})
	}
	for _, in := range []string{"", "{", "[]", `{"techniques":{}}`} {
		if c := parseCatalog([]byte(in)); len(c.problems) == 0 || len(c.techniques) != 0 {
			t.Errorf("parseCatalog(%q): problems %q, %d techniques", in, c.problems, len(c.techniques))
		}
	}
}
