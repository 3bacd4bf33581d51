package cpe

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Name
		str  string // String(); "" means in itself
	}{
		{
			in:   "cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*",
			want: Name{"a", "apache", "http_server", "2.4.49", "*", "*", "*", "*", "*", "*", "*"},
		},
		{
			in:   "cpe:2.3:h:cisco:asa_5505:-:*:*:*:*:*:*:*",
			want: Name{"h", "cisco", "asa_5505", "-", "*", "*", "*", "*", "*", "*", "*"},
		},
		{
			// Real NVD criteria: quoted colons inside vendor and product.
			in: `cpe:2.3:a:plack\:\:middleware\:\:xsrfblock_project:plack\:\:middleware\:\:xsrfblock:*:*:*:*:*:perl:*:*`,
			want: Name{"a", `plack\:\:middleware\:\:xsrfblock_project`, `plack\:\:middleware\:\:xsrfblock`,
				"*", "*", "*", "*", "*", "perl", "*", "*"},
		},
		{
			in:   `cpe:2.3:o:cisco:ios:12.2\(15\)zj3:*:*:*:*:*:*:*`,
			want: Name{"o", "cisco", "ios", `12.2\(15\)zj3`, "*", "*", "*", "*", "*", "*", "*"},
		},
		{
			in:   `cpe:2.3:a:joomla:joomla\!:3.6.5:-:*:en:-:wordpress:x64:beta`,
			want: Name{"a", "joomla", `joomla\!`, "3.6.5", "-", "*", "en", "-", "wordpress", "x64", "beta"},
		},
		{
			// A quoted backslash, then a quoted "*" that is a literal, not ANY.
			in:   `cpe:2.3:a:foo\\:bar\*:1.0:*:*:*:*:*:*:*`,
			want: Name{"a", `foo\\`, `bar\*`, "1.0", "*", "*", "*", "*", "*", "*", "*"},
		},
		{
			// Wildcards may open or close a value.
			in:   "cpe:2.3:a:microsoft:*office*:1?:*:*:*:*:*:*:*",
			want: Name{"a", "microsoft", "*office*", "1?", "*", "*", "*", "*", "*", "*", "*"},
		},
		{
			in:   "cpe:2.3:*:*:*:*:*:*:*:*:*:*:*",
			want: Name{"*", "*", "*", "*", "*", "*", "*", "*", "*", "*", "*"},
		},
		{
			// Unquoted punctuation is tolerated and kept as written.
			in:   "cpe:2.3:a:foo:bar!baz:1.0+build/2:*:*:*:*:*:*:*",
			want: Name{"a", "foo", "bar!baz", "1.0+build/2", "*", "*", "*", "*", "*", "*", "*"},
		},
		{
			in:   "CPE:2.3:A:Apache:HTTP_Server:2.4.49:*:*:*:*:*:*:*",
			want: Name{"A", "Apache", "HTTP_Server", "2.4.49", "*", "*", "*", "*", "*", "*", "*"},
			str:  "cpe:2.3:A:Apache:HTTP_Server:2.4.49:*:*:*:*:*:*:*",
		},
		// CPE 2.2 URIs.
		{
			in:   "cpe:/a:apache:http_server:2.4.49",
			want: Name{"a", "apache", "http_server", "2.4.49", "*", "*", "*", "*", "*", "*", "*"},
			str:  "cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*",
		},
		{
			in:   "cpe:/o:microsoft:windows_xp::sp2:professional:en-us",
			want: Name{"o", "microsoft", "windows_xp", "*", "sp2", "professional", "en-us", "*", "*", "*", "*"},
			str:  "cpe:2.3:o:microsoft:windows_xp:*:sp2:professional:en-us:*:*:*:*",
		},
		{
			in:   "cpe:/a:hp:insight_diagnostics:7.4.0.1570:-:~~online~win2003~x64~",
			want: Name{"a", "hp", "insight_diagnostics", "7.4.0.1570", "-", "*", "*", "online", "win2003", "x64", "*"},
			str:  "cpe:2.3:a:hp:insight_diagnostics:7.4.0.1570:-:*:*:online:win2003:x64:*",
		},
		{
			in:   "cpe:/a:tiki:tikiwiki_cms%2fgroupware:1.9.0:rc1",
			want: Name{"a", "tiki", `tikiwiki_cms\/groupware`, "1.9.0", "rc1", "*", "*", "*", "*", "*", "*"},
			str:  `cpe:2.3:a:tiki:tikiwiki_cms\/groupware:1.9.0:rc1:*:*:*:*:*:*`,
		},
		{
			in:   "cpe:/a:foo%3a%3abar:%02baz%01:%2d:-",
			want: Name{"a", `foo\:\:bar`, "*baz?", `\-`, "-", "*", "*", "*", "*", "*", "*"},
			str:  `cpe:2.3:a:foo\:\:bar:*baz?:\-:-:*:*:*:*:*:*`,
		},
		{
			in:   "cpe:/a",
			want: Name{"a", "*", "*", "*", "*", "*", "*", "*", "*", "*", "*"},
			str:  "cpe:2.3:a:*:*:*:*:*:*:*:*:*:*",
		},
		{
			in:   "cpe:/",
			want: Name{"*", "*", "*", "*", "*", "*", "*", "*", "*", "*", "*"},
			str:  "cpe:2.3:*:*:*:*:*:*:*:*:*:*:*",
		},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Parse(%q) =\n %#v, want\n %#v", tt.in, got, tt.want)
		}
		want := tt.str
		if want == "" {
			want = tt.in
		}
		s := got.String()
		if s != want {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, s, want)
		}
		again, err := Parse(s)
		if err != nil || again != got {
			t.Errorf("Parse(String()) of %q = %#v, %v; want %#v", tt.in, again, err, got)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, err string
	}{
		{"", `missing "cpe:2.3:" or "cpe:/" prefix`},
		{"apache:http_server:2.4.49", `missing "cpe:2.3:" or "cpe:/" prefix`},
		{"cpe:2.2:a:apache:http_server", `missing "cpe:2.3:" or "cpe:/" prefix`},
		{"cpe:a:apache:http_server", `missing "cpe:2.3:" or "cpe:/" prefix`},
		{"cpe:2.3:a:apache:http_server:2.4.49", "want 13 colon-separated components, got 6"},
		{"cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*:*", "want 13 colon-separated components, got 14"},
		{"cpe:2.3:", "want 13 colon-separated components, got 3"},
		// An escaped colon is not a separator, so one component goes missing.
		{`cpe:2.3:a:apache:http\:server:2.4.49:*:*:*:*:*:*`, "want 13 colon-separated components, got 12"},
		{"cpe:2.3:a::http_server:2.4.49:*:*:*:*:*:*:*", "vendor is empty (use * for ANY)"},
		{"cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:", "other is empty"},
		{"cpe:2.3:a:apache:http server:2.4.49:*:*:*:*:*:*:*", `invalid character ' ' in product`},
		{"cpe:2.3:a:apache:http_server:2.4.49\t:*:*:*:*:*:*:*", `invalid character byte 0x09 in version`},
		{"cpe:2.3:a:apaché:http_server:2.4.49:*:*:*:*:*:*:*", `invalid character byte 0xc3 in vendor`},
		{"cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:\x00", `invalid character byte 0x00 in other`},
		{`cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:x\`, "dangling backslash at the end of other"},
		{"cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:x\\\x01", `invalid character byte 0x01 in other`},
		{"cpe:2.3:a:apache:http_s*rver:2.4.49:*:*:*:*:*:*:*", `unquoted "*" inside product`},
		{"cpe:2.3:a:apache:http_server:2.*.49:*:*:*:*:*:*:*", `unquoted "*" inside version`},
		{"cpe:2.3:x:apache:http_server:2.4.49:*:*:*:*:*:*:*", `part "x" is not a, o, h or *`},
		{"cpe:2.3:-:apache:http_server:2.4.49:*:*:*:*:*:*:*", `part "-" is not a, o, h or *`},
		{"cpe:2.3:app:apache:http_server:2.4.49:*:*:*:*:*:*:*", `part "app" is not a, o, h or *`},
		{"cpe:2.3:a:apache:" + strings.Repeat("x", 1100) + ":2.4.49:*:*:*:*:*:*:*", "longer than the 1024 allowed"},
		// CPE 2.2 URIs.
		{"cpe:/a:apache:http_server:2.4.49:-:pro:en:extra", "a CPE 2.2 URI has at most 7 components, got 8"},
		{"cpe:/x:apache:http_server", `part "x" is not a, o, h or *`},
		{"cpe:/a:apache:http_server:2.4%2", "truncated percent-encoding in version"},
		{"cpe:/a:apache:http_server:2.4%zz", `invalid percent-encoding "%zz" in version`},
		{"cpe:/a:apache:http_server:2.4%20", `percent-encoding "%20" in version is not printable ASCII`},
		{"cpe:/a:apache:http server", `invalid character ' ' in product`},
		{"cpe:/a:apache:http_server:2.4:-:~~online~win2003~x64", "packed edition \"~~online~win2003~x64\" needs 5 ~-separated fields, got 4"},
		{"cpe:/a:apache:ht%02tp_server", `unquoted "*" inside product`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want error containing %q", tt.in, tt.err)
			continue
		}
		if !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Parse(%q) error = %q, want it to contain %q", tt.in, err, tt.err)
		}
		if !strings.HasPrefix(err.Error(), "cpe: ") {
			t.Errorf("Parse(%q) error = %q, want the cpe: prefix", tt.in, err)
		}
	}
}

func TestParseMaxLen(t *testing.T) {
	pad := func(n int) string {
		base := "cpe:2.3:a:v::1:*:*:*:*:*:*:*"
		return strings.Replace(base, "::", ":"+strings.Repeat("p", n-len(base))+":", 1)
	}
	if s := pad(MaxLen); len(s) != MaxLen {
		t.Fatalf("pad: len %d", len(s))
	} else if _, err := Parse(s); err != nil {
		t.Errorf("Parse of a %d-byte name: %v", len(s), err)
	}
	if _, err := Parse(pad(MaxLen + 1)); err == nil {
		t.Errorf("Parse of a %d-byte name succeeded", MaxLen+1)
	}
}

func TestStringEmptyFields(t *testing.T) {
	got := Name{Part: "a", Vendor: "apache", Product: "http_server"}.String()
	if want := "cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := (Name{}).String(); got != "cpe:2.3:*:*:*:*:*:*:*:*:*:*:*" {
		t.Errorf("Name{}.String() = %q", got)
	}
}

func TestParseAllocs(t *testing.T) {
	s := `cpe:2.3:a:plack\:\:middleware\:\:xsrfblock_project:plack\:\:middleware\:\:xsrfblock:*:*:*:*:*:perl:*:*`
	if n := testing.AllocsPerRun(100, func() { _, _ = Parse(s) }); n != 0 {
		t.Errorf("Parse of a 2.3 name allocates %v times, want 0", n)
	}
}
