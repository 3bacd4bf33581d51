package event

import (
	"net/netip"
	"testing"

	"garrison/valid"
)

func TestParseSearch(t *testing.T) {
	cases := []struct {
		in      SearchQuery
		src     string // the prefix, "" for none
		problem string
	}{
		{SearchQuery{SrcIP: "203.0.113.9"}, "203.0.113.9/32", ""},
		{SearchQuery{SrcIP: "::ffff:203.0.113.9"}, "203.0.113.9/32", ""},
		{SearchQuery{SrcIP: "10.1.2.3/8"}, "10.0.0.0/8", ""},
		{SearchQuery{SrcIP: "::ffff:10.0.0.0/104"}, "10.0.0.0/8", ""},
		{SearchQuery{SrcIP: "2001:db8::/32"}, "2001:db8::/32", ""},
		{SearchQuery{SrcIP: "fe80::1%eth0"}, "", "src_ip"},
		{SearchQuery{SrcIP: "10.0.0"}, "", "src_ip"},
		{SearchQuery{DstIP: "10.0.0.0/33"}, "", "dst_ip"},
		{SearchQuery{Q: string(make([]byte, 257))}, "", "q"},
		{SearchQuery{User: "a\x00b"}, "", "user"},
	}
	for _, c := range cases {
		var p valid.Problems
		s := ParseSearch(&p, c.in)
		got := ""
		if s.SrcIP.IsValid() {
			got = s.SrcIP.String()
		}
		if got != c.src {
			t.Errorf("%+v: prefix %q, want %q", c.in, got, c.src)
		}
		err := p.Err()
		if (c.problem == "") != (err == nil) {
			t.Errorf("%+v: %v, want a problem on %q", c.in, err, c.problem)
		}
	}
	if s := ParseSearch(&valid.Problems{}, SearchQuery{Asset: "WS-07"}); s.Asset != "ws-07" || !s.Any() {
		t.Errorf("%+v", s)
	}
	if (Search{}).Any() || !(Search{SrcIP: netip.MustParsePrefix("10.0.0.0/8")}).Any() {
		t.Error("Any")
	}
}
