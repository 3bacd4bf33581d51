package ratelimit

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestParseTrustedProxies(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" ", nil},
		{"10.0.0.0/8", []string{"10.0.0.0/8"}},
		{"10.1.2.3/8", []string{"10.0.0.0/8"}},
		{"192.168.1.1", []string{"192.168.1.1/32"}},
		{"::1", []string{"::1/128"}},
		{"2001:db8::/32, 2001:db8:1::7", []string{"2001:db8::/32", "2001:db8:1::7/128"}},
		{"::ffff:10.1.2.3", []string{"10.1.2.3/32"}},
		{"::ffff:10.0.0.0/104", []string{"10.0.0.0/8"}},
		{" 10.0.0.0/8 ,\t172.16.0.0/12 ", []string{"10.0.0.0/8", "172.16.0.0/12"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTrustedProxies(tt.in)
			if err != nil {
				t.Fatalf("ParseTrustedProxies(%q): %v", tt.in, err)
			}
			var gotStrings []string
			for _, p := range got {
				gotStrings = append(gotStrings, p.String())
			}
			if !slices.Equal(gotStrings, tt.want) {
				t.Fatalf("ParseTrustedProxies(%q) = %v, want %v", tt.in, gotStrings, tt.want)
			}
		})
	}
}

func TestParseTrustedProxiesRefuses(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string
	}{
		{"banana", `trusted proxies: "banana": not an IP address or CIDR`},
		{"10.0.0.0/33", `"10.0.0.0/33": not an IP address or CIDR`},
		{"10.0.0.0/", `"10.0.0.0/": not an IP address or CIDR`},
		{"1.2.3.4:80", `"1.2.3.4:80": not an IP address or CIDR`},
		{"10.0.0.1,,10.0.0.2", "trusted proxies: item 2 is empty"},
		{"10.0.0.1,", "trusted proxies: item 2 is empty"},
		{"fe80::1%eth0", `"fe80::1%eth0": zoned addresses are not allowed`},
		{"10.0.0.1, 300.0.0.1", `"300.0.0.1": not an IP address or CIDR`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTrustedProxies(tt.in)
			if err == nil {
				t.Fatalf("ParseTrustedProxies(%q) = %v, want an error", tt.in, got)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %q, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func mustPrefixes(t testing.TB, s string) []netip.Prefix {
	t.Helper()
	p, err := ParseTrustedProxies(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
