package compliance

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"garrison/event"
	"garrison/store"
)

func TestCSSStringCannotEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Demo MSP", `"Demo\000020MSP"`},
		{`a"b`, `"a\000022b"`},
		{"</style>", `"\00003c\00002fstyle\00003e"`},
		{`\`, `"\00005c"`},
		{"Zürich · 1", `"Z\0000fcrich\000020\0000b7\0000201"`},
		{"", `""`},
	} {
		if got := string(cssString(tc.in)); got != tc.want {
			t.Errorf("cssString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// A hostile organization name stays text everywhere the report shows it:
// the page, the title and the printed footer.
func TestAuditHTMLEscapesTheOrganization(t *testing.T) {
	org := `Acme"; } body { display:none } </style><script>alert(1)</script>`
	page, err := auditHTML(AuditDocument{AuditHeader: AuditHeader{ReportID: "rpt_x"}, Organization: org, Gaps: []GapView{}})
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	style := s[strings.Index(s, "<style>"):strings.Index(s, "</style>")]
	if strings.Contains(s, "<script") || strings.Count(s, "</style>") != 1 || strings.Contains(style, "display:none") {
		t.Fatalf("the organization's name escaped its context:\n%s", s)
	}
	if !strings.Contains(s, "<h1>Acme&#34;; } body { display:none } &lt;/style&gt;&lt;script&gt;alert(1)&lt;/script&gt;</h1>") {
		t.Fatalf("the organization's name is not shown as text:\n%s", s)
	}
}

// textForPeople finds what a person should not have to read in compliance
// texts: API paths and methods, route placeholders, and raw record ids
// (the report's own number, rpt_…, is its reference and allowed).
var textForPeople = regexp.MustCompile(`/api/|\b(GET|POST|PUT|PATCH|DELETE) /|:id\b|\{id\}|\b(usr|key|gap|alr|tkt|rem|run|org|ast|cvw|evt)_[0-9a-z]+`)

func sampleDocument() AuditDocument {
	closed := "2026-03-12T08:00:00Z"
	note := "Board minutes approve the program."
	s := sum(4, 1, 1, 1, 1, 33)
	controls := []ControlResult{
		{ControlID: "CC1.2", Title: "Board oversight", Result: Pass, Basis: "attestation", Findings: []Finding{},
			Attestation: &AttestationView{Status: Pass, Note: note, AttestedBy: "usr_ann", AttestedAt: "2026-03-09T12:00:00Z"}},
		{ControlID: "CC1.3", Title: "Structures", Result: Pass, Basis: "attestation", Findings: []Finding{},
			Attestation: &AttestationView{Status: Pass, AttestedBy: "key_ci", AttestedAt: "2026-03-09T12:00:00Z"}},
		{ControlID: "CC1.4", Title: "Competence", Result: Manual, Basis: "none", Findings: []Finding{}},
		{ControlID: "CC6.1", Title: "Logical access", Result: Fail, Basis: "checks", GapID: ptr("gap_01"),
			Findings: []Finding{{CheckID: "key_expiry", Title: "API keys expire", Result: Fail, Evidence: "1 of 1 active API key never expires."}}},
	}
	return AuditDocument{
		AuditHeader: AuditHeader{ReportID: "rpt_01", Status: "completed", Frameworks: []string{"soc2"}, RequestedBy: "usr_ann",
			CompletedAt: ptr("2026-03-10T12:00:00Z"), Summary: map[string]Summary{"soc2": s}},
		Organization: "Acme", Scope: scopeText, Method: methodText,
		Results: []FrameworkResult{{Framework: "soc2", Name: "SOC 2", Version: "2017", Summary: s, Controls: controls}},
		Gaps: []GapView{{AuditGap: AuditGap{GapID: "gap_01", GapDetail: GapDetail{Framework: "soc2", ControlID: "CC6.1", ControlTitle: "Logical access",
			Severity: event.Medium, Failed: controls[3].Findings, RemediationSteps: checkByID("key_expiry").Steps, AutoRemediable: true}},
			Status: "closed", ClosedAt: &closed, ClosedByAudit: ptr("rpt_02")}},
		RequesterLabel: "Ann Lee <ann@acme.test>",
		people: newPeople([]store.User{{ID: "usr_ann", Name: "Ann Lee", Email: "ann@acme.test"}},
			[]store.APIKey{{ID: "key_ci", Name: "CI deploy"}}),
	}
}

func ptr(s string) *string { return &s }

// TestReportNamesPeopleAndCountsEveryControl: the printable report names
// the requester and the attesters (a person by name and address, a key by
// its name), shows no record id but its own number, and states the counts
// completion rests on.
func TestReportNamesPeopleAndCountsEveryControl(t *testing.T) {
	d := sampleDocument()
	page, err := auditHTML(d)
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{
		"<dt>Requested by</dt><dd>Ann Lee &lt;ann@acme.test&gt;</dd>",
		"Attested pass by Ann Lee &lt;ann@acme.test&gt; on 9 March 2026: Board minutes approve the program.",
		"Attested pass by the API key “CI deploy” on 9 March 2026",
		"<th class=\"num\">Applicable</th><th class=\"num\">Assessed</th><th class=\"num\">Passing</th><th class=\"num\">Failing</th><th class=\"num\">Not assessed</th>",
		`<td class="num">4</td><td class="num">1</td><td class="num">3</td>` + "\n    " +
			`<td class="num">2</td><td class="num">1</td><td class="num">1</td>` + "\n    " + `<td class="num">1</td>`,
		"33% <div class=\"bar\">",
		"Completion is the share of applicable controls that pass",
		"Closed on 12 March 2026 by a later audit",
		`<span class="badge manual">not assessed</span>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if m := textForPeople.FindAllString(html, -1); m != nil {
		t.Errorf("the report shows %q", m)
	}

	body, err := auditCSV(d)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"soc2", "", "Summary of SOC 2", "",
		"Completion 33%: 1 of 3 applicable controls pass. 2 assessed (1 passing, 1 failing), 1 not assessed, 1 not applicable; 4 controls in all.", "", ""}
	if len(rows) != 2+len(d.Results[0].Controls) || !slices.Equal(rows[1], want) {
		t.Fatalf("csv rows %q, want the summary row %q first", rows, want)
	}
	if got := rows[2][4]; got != "Attested pass by Ann Lee <ann@acme.test> on 9 March 2026: Board minutes approve the program." {
		t.Errorf("csv evidence of an attested control: %q", got)
	}
	for _, row := range rows[1:] {
		if m := textForPeople.FindAllString(row[4], -1); m != nil {
			t.Errorf("csv evidence shows %q: %q", m, row[4])
		}
	}
}

// TestComplianceTextsForPeople: the steps of every check and gap, and
// every check's evidence passing and failing, name pages and actions in
// words: no API path, no raw id.
func TestComplianceTextsForPeople(t *testing.T) {
	var texts []string
	for _, c := range Checks() {
		texts = append(texts, c.Steps...)
	}
	failing := passingFacts()
	failing.Users = users(5, 2, 1)
	failing.Keys = []store.APIKey{key("key_a", "admin", -200*day, nil, nil)}
	failing.OverdueAlerts = store.Overdue{Count: 1, Oldest: []store.OverdueItem{{ID: "alr_1"}}}
	failing.OverdueTickets = store.Overdue{Count: 1, Oldest: []store.OverdueItem{{ID: "tkt_1"}}}
	failing.Sources, failing.DNS, failing.Adopted = nil, nil, map[string]store.PolicyAdoption{}
	failing.Settings = Settings{PasswordMinLength: 8, SessionTTL: 48 * time.Hour, EventRetention: day}
	passing := passingFacts()
	for _, f := range []*Facts{&passing, &failing} {
		for _, c := range Checks() {
			texts = append(texts, c.run(f).Evidence)
		}
		for _, fw := range Frameworks() {
			for _, c := range fw.Controls {
				if _, gap := (&evaluation{facts: f, findings: map[string]Finding{}}).control(fw, c); gap != nil {
					texts = append(texts, gap.RemediationSteps...)
				}
			}
		}
	}
	attested := passingFacts()
	attested.Attestations = map[string]store.Attestation{"soc2/CC1.2": {Status: Fail}}
	fw, _ := LookupFramework("soc2")
	c, _ := fw.Control("CC1.2")
	_, gap := (&evaluation{facts: &attested, findings: map[string]Finding{}}).control(fw, c)
	texts = append(texts, gap.RemediationSteps...)
	for _, text := range texts {
		if m := textForPeople.FindAllString(text, -1); m != nil {
			t.Errorf("%q shows %q", text, m)
		}
	}
}
