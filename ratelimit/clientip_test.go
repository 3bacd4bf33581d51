package ratelimit

import (
	"crypto/tls"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"testing"
	"time"
)

// testProxies are the proxies the client-identity tests trust.
const testProxies = "10.0.0.0/8, 2001:db8:ffff::/48, 127.0.0.1"

func TestClientIP(t *testing.T) {
	trusted := mustPrefixes(t, testProxies)
	tests := []struct {
		name   string
		remote string
		xff    []string // one entry per header line
		want   string
	}{
		{"untrusted peer", "203.0.113.9:5555", nil, "203.0.113.9"},
		{"untrusted peer, forged header", "203.0.113.9:5555", []string{"1.1.1.1"}, "203.0.113.9"},
		{"untrusted peer, forged trusted header", "203.0.113.9:5555", []string{"10.0.0.1"}, "203.0.113.9"},
		{"trusted peer, no header", "10.0.0.1:80", nil, "10.0.0.1"},
		{"trusted peer, one hop", "10.0.0.1:80", []string{"203.0.113.7"}, "203.0.113.7"},
		{"right-most untrusted wins over forged left", "10.0.0.1:80", []string{"1.1.1.1, 203.0.113.7, 10.0.0.2"}, "203.0.113.7"},
		{"multiple header lines", "10.0.0.1:80", []string{"1.1.1.1, 203.0.113.7", "10.0.0.3"}, "203.0.113.7"},
		{"multiple header lines, client in first", "10.0.0.1:80", []string{"198.51.100.1", "10.0.0.3, 10.0.0.4"}, "198.51.100.1"},
		{"every hop trusted: left-most", "10.0.0.1:80", []string{"10.0.0.5, 10.0.0.6"}, "10.0.0.5"},
		{"garbage right-most: the peer", "10.0.0.1:80", []string{"203.0.113.7, garbage"}, "10.0.0.1"},
		{"garbage after a trusted hop: that hop", "10.0.0.1:80", []string{"203.0.113.7, garbage, 10.0.0.9"}, "10.0.0.9"},
		{"empty entry stops the walk", "10.0.0.1:80", []string{"203.0.113.7,,10.0.0.9"}, "10.0.0.9"},
		{"empty header line stops the walk", "10.0.0.1:80", []string{"203.0.113.7", ""}, "10.0.0.1"},
		{"unknown", "10.0.0.1:80", []string{"unknown"}, "10.0.0.1"},
		{"leading zeros are not an address", "10.0.0.1:80", []string{"010.0.0.1"}, "10.0.0.1"},
		{"whitespace and tabs", "10.0.0.1:80", []string{" 203.0.113.7 \t,\t10.0.0.2 "}, "203.0.113.7"},
		{"hop with port", "10.0.0.1:80", []string{"203.0.113.7:4711"}, "203.0.113.7"},
		{"IPv6 hop with brackets and port", "10.0.0.1:80", []string{"[2001:db8:1::5]:443"}, "2001:db8:1::5"},
		{"IPv6 hop in brackets", "10.0.0.1:80", []string{"[2001:db8:1::5]"}, "2001:db8:1::5"},
		{"IPv6 trusted peer", "[2001:db8:ffff::1]:443", []string{"2001:db8:1::5"}, "2001:db8:1::5"},
		{"IPv6 peer with zone", "[fe80::1%eth0]:8080", []string{"1.1.1.1"}, "fe80::1"},
		{"IPv6 peer, bare", "2001:db8::7", nil, "2001:db8::7"},
		{"IPv6 peer, brackets without port", "[2001:db8::7]", nil, "2001:db8::7"},
		{"IPv4 peer, bare", "198.51.100.2", nil, "198.51.100.2"},
		{"IPv4-mapped trusted peer", "[::ffff:10.0.0.1]:80", []string{"203.0.113.7"}, "203.0.113.7"},
		{"IPv4-mapped untrusted peer", "[::ffff:203.0.113.9]:80", nil, "203.0.113.9"},
		{"IPv4-mapped hop", "10.0.0.1:80", []string{"::ffff:203.0.113.7"}, "203.0.113.7"},
		{"IPv4-mapped trusted hop is skipped", "10.0.0.1:80", []string{"203.0.113.7, ::ffff:10.0.0.8"}, "203.0.113.7"},
		{"zoned hop loses its zone", "10.0.0.1:80", []string{"fe80::9%eth0"}, "fe80::9"},
		{"unix socket peer", "@", []string{"203.0.113.7"}, "0.0.0.0"},
		{"empty peer", "", []string{"203.0.113.7"}, "0.0.0.0"},
		{"hostname peer", "localhost:80", []string{"203.0.113.7"}, "0.0.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tt.remote, Header: http.Header{}}
			for _, line := range tt.xff {
				r.Header.Add("X-Forwarded-For", line)
			}
			got := ClientIP(r, trusted)
			if want := netip.MustParseAddr(tt.want); got != want {
				t.Fatalf("ClientIP = %v, want %v", got, want)
			}
		})
	}
}

func TestClientIPWithoutTrustedProxiesIgnoresHeaders(t *testing.T) {
	r := &http.Request{RemoteAddr: "10.0.0.1:80", Header: http.Header{"X-Forwarded-For": {"203.0.113.7"}}}
	if got := ClientIP(r, nil); got != netip.MustParseAddr("10.0.0.1") {
		t.Fatalf("ClientIP = %v, want the peer", got)
	}
	if got := ClientIP(nil, nil); !got.IsValid() {
		t.Fatalf("ClientIP(nil) = %v, want a valid address", got)
	}
}

func TestIPKey(t *testing.T) {
	tests := []struct {
		addr string
		want string
	}{
		{"192.0.2.1", "192.0.2.1"},
		{"::ffff:192.0.2.1", "192.0.2.1"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"::1", "::/64"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			for range 2 { // built, then remembered
				if got := IPKey(netip.MustParseAddr(tt.addr)); got != tt.want {
					t.Fatalf("IPKey(%s) = %q, want %q", tt.addr, got, tt.want)
				}
			}
		})
	}
}

// Remembered keys are always the key of the address asked about, however
// many addresses share a slot, and a returning client's costs nothing.
func TestIPKeyRemembered(t *testing.T) {
	built := func(a netip.Addr) string { // IPKey's rule, computed afresh
		a = a.WithZone("").Unmap()
		if a.Is6() {
			p, _ := a.Prefix(64)
			return p.String()
		}
		return a.String()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	addrs := []netip.Addr{{}, netip.IPv4Unspecified(), netip.IPv6Unspecified()}
	for range 3000 {
		var b [16]byte
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		addrs = append(addrs, netip.AddrFrom4([4]byte(b[:4])), netip.AddrFrom16(b))
	}
	for pass := range 2 {
		for i := range addrs {
			a := addrs[(i*7919+pass)%len(addrs)] // another order each pass
			if got, want := IPKey(a), built(a); got != want {
				t.Fatalf("pass %d: IPKey(%v) = %q, want %q", pass, a, got, want)
			}
		}
	}
	a := netip.MustParseAddr("198.51.100.7")
	IPKey(a)
	if n := testing.AllocsPerRun(100, func() { IPKey(a) }); n != 0 {
		t.Errorf("a returning client's key took %v allocations", n)
	}
}

func TestIPKeySharesABucketPerIPv6Network(t *testing.T) {
	l, _ := newTestLimiter(Limit{N: 2, Window: time.Minute})
	for _, a := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2"} {
		l.Allow(IPKey(netip.MustParseAddr(a)))
	}
	if d := l.Allow(IPKey(netip.MustParseAddr("2001:db8:1:2:dead:beef::3"))); d.Allowed {
		t.Fatalf("a third address in the same /64 was allowed: %+v", d)
	}
	if d := l.Allow(IPKey(netip.MustParseAddr("2001:db8:1:3::1"))); !d.Allowed {
		t.Fatalf("the next /64 was refused: %+v", d)
	}
}

func TestForwardedHTTPS(t *testing.T) {
	trusted := mustPrefixes(t, testProxies)
	tests := []struct {
		name   string
		remote string
		tls    bool
		proto  []string
		want   bool
	}{
		{"untrusted, plain", "203.0.113.9:1", false, nil, false},
		{"untrusted, TLS", "203.0.113.9:1", true, nil, true},
		{"untrusted cannot claim https", "203.0.113.9:1", false, []string{"https"}, false},
		{"untrusted cannot claim http", "203.0.113.9:1", true, []string{"http"}, true},
		{"trusted says https", "10.0.0.1:1", false, []string{"https"}, true},
		{"trusted, any case", "10.0.0.1:1", false, []string{"HTTPS"}, true},
		{"trusted says http over TLS", "10.0.0.1:1", true, []string{"http"}, false},
		{"trusted, no header: TLS decides", "10.0.0.1:1", true, nil, true},
		{"trusted, no header, plain", "10.0.0.1:1", false, nil, false},
		{"trusted, empty header: TLS decides", "10.0.0.1:1", true, []string{""}, true},
		{"trusted, first of a list", "10.0.0.1:1", false, []string{" https , http"}, true},
		{"trusted, first of a list, http", "10.0.0.1:1", true, []string{"http, https"}, false},
		{"trusted, first header line", "10.0.0.1:1", false, []string{"http", "https"}, false},
		{"trusted, nonsense", "10.0.0.1:1", false, []string{"httpsx"}, false},
		{"unreadable peer", "@", false, []string{"https"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tt.remote, Header: http.Header{}}
			if tt.tls {
				r.TLS = &tls.ConnectionState{}
			}
			for _, v := range tt.proto {
				r.Header.Add("X-Forwarded-Proto", v)
			}
			if got := ForwardedHTTPS(r, trusted); got != tt.want {
				t.Fatalf("ForwardedHTTPS = %v, want %v", got, tt.want)
			}
		})
	}
	if ForwardedHTTPS(nil, trusted) {
		t.Fatal("ForwardedHTTPS(nil) = true")
	}
}
