package valid

import (
	"strings"
	"testing"
)

func TestNormalEmail(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Ann@Acme.TEST", "ann@acme.test"},
		{"  ann@acme.test\n", "ann@acme.test"},
		{"ann@düp.example", "ann@xn--dp-xka.example"},
		{"ann@xn--dp-xka.example", "ann@xn--dp-xka.example"},
		{"ann@DÜP.example", "ann@xn--dp-xka.example"},
		{"ann@du\u0308p.example", "ann@xn--dp-xka.example"}, // decomposed ü
		{"ann@ｄüp．example", "ann@xn--dp-xka.example"},       // full-width forms
		{"jose\u0301@acme.test", "josé@acme.test"},          // NFC in the local part
		{"ann@a\u200bcme.test", "ann@a\u200bcme.test"},      // kept for Email to refuse
		{"no-at-sign", "no-at-sign"},
	}
	for _, c := range cases {
		if got := NormalEmail(c.in); got != c.want {
			t.Errorf("NormalEmail(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEmail(t *testing.T) {
	cases := []struct {
		in   string
		want bool
		why  string
	}{
		{"ann@acme.test", true, "plain"},
		{"a.b+c@sub.example.com", true, "sub-address"},
		{"josé@acme.test", true, "UTF-8 local part"},
		{"ann@xn--dp-xka.example", true, "IDN in ASCII form"},
		{"ann@xn--e1afmkfd.xn--p1ai", true, "Cyrillic label, Cyrillic TLD"},
		{"ann@xn--wgv71a119e.jp", true, "Han label"},
		{"", false, "empty"},
		{"ann", false, "no domain"},
		{"ann@localhost", false, "no dot"},
		{"Ann <ann@acme.test>", false, "display name"},
		{" ann@acme.test", false, "surrounding space"},
		{strings.Repeat("a", 250) + "@x.io", false, "too long"},
		{"ann@düp.example", false, "not normalised"},
		{"ann@a\u200bcme.test", false, "zero-width space"},
		{"an\u200dn@acme.test", false, "zero-width joiner in the local part"},
		{"ann@acme\u202e.test", false, "bidi override"},
		{"ann\u00ad@acme.test", false, "soft hyphen"},
		{"ann\ufe0f@acme.test", false, "variation selector"},
		{"ann@[192.0.2.1]", false, "IP literal"},
		{"ann@192.0.2.1", false, "bare IPv4"},
		{"ann@xn--pypal-4ve.example", false, "Latin with Cyrillic а (pаypal)"},
		{"ann@xn--.example", false, "broken Punycode"},
		{"ann@-acme.test", false, "leading hyphen"},
		{"ann@ac_me.test", false, "underscore"},
	}
	for _, c := range cases {
		if got := Email(c.in); got != c.want {
			t.Errorf("%s: Email(%q) = %v, want %v", c.why, c.in, got, c.want)
		}
	}
}

// FuzzEmail: an accepted address is its own normal form, so that storing
// and looking up agree, and nothing accepted holds an invisible character.
func FuzzEmail(f *testing.F) {
	for _, s := range []string{"ann@acme.test", "Ann@Düp.example", "ann@du\u0308p.example", "ann@a\u200bcme.test", "ann@[192.0.2.1]", "josé@xn--e1afmkfd.xn--p1ai"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalEmail(s)
		if !Email(n) {
			return
		}
		if again := NormalEmail(n); again != n {
			t.Fatalf("NormalEmail(%q) = %q, but NormalEmail of that is %q", s, n, again)
		}
		if hasInvisible(n) || len(n) > MaxEmail {
			t.Fatalf("accepted %q", n)
		}
	})
}
