package compliance

import (
	"strings"
	"testing"
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
