package compliance

import (
	"strings"
	"testing"
)

func TestMarkdownText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Smith Dental", "Smith Dental"},
		{"Smith & <Jones> Dental", "Smith &amp; &lt;Jones&gt; Dental"},
		{`<img src=x onerror=alert(1)>`, `&lt;img src=x onerror=alert\(1\)&gt;`},
		{"[click](http://evil.test)", `\[click\]\(http://evil.test\)`},
		{"# Heading", `\# Heading`},
		{"- item", `\- item`},
		{"1. First", `1\. First`},
		{"2024) Ltd", `2024\) Ltd`},
		{"Acme Inc. 2.0", "Acme Inc. 2.0"},
		{"a|b *c* _d_ `e` ~f~ !g \\h", `a\|b \*c\* \_d\_ \` + "`" + `e\` + "`" + ` \~f\~ \!g \\h`},
		{"line\nbreak", "line break"},
		{"Café Zürich", "Café Zürich"},
	} {
		if got := markdownText(tc.in); got != tc.want {
			t.Errorf("markdownText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A filled template carries the name as text: no raw HTML, no link.
func TestFilledEscapesTheOrganization(t *testing.T) {
	tmpl, ok := LookupTemplate("password")
	if !ok {
		t.Fatal("no password template")
	}
	md := tmpl.Filled(`<img src=x onerror=alert(1)> [x](javascript:alert(1))`, "")
	if strings.Contains(md, "<img") || strings.Contains(md, "](javascript") || !strings.Contains(md, "&lt;img src=x onerror=alert\\(1\\)&gt;") {
		t.Fatalf("filled: %.400s", md)
	}
}
