package ratelimit

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

func FuzzClientIP(f *testing.F) {
	seeds := []struct{ remote, xff1, xff2 string }{
		{"203.0.113.9:5555", "1.1.1.1", ""},
		{"10.0.0.1:80", "1.1.1.1, 203.0.113.7, 10.0.0.2", "10.0.0.3"},
		{"[2001:db8:ffff::1]:443", "[2001:db8:1::5]:443", ""},
		{"[fe80::1%eth0]:8080", "fe80::9%eth0", ""},
		{"[::ffff:10.0.0.1]:80", "::ffff:203.0.113.7", "garbage"},
		{"@", "203.0.113.7", ""},
		{"10.0.0.1:80", ",,", " \t"},
	}
	for _, s := range seeds {
		f.Add(s.remote, s.xff1, s.xff2)
	}
	trusted := mustPrefixes(f, testProxies)
	f.Fuzz(func(t *testing.T, remote, xff1, xff2 string) {
		r := &http.Request{RemoteAddr: remote, Header: http.Header{}}
		r.Header.Add("X-Forwarded-For", xff1)
		r.Header.Add("X-Forwarded-For", xff2)
		r.Header.Add("X-Forwarded-Proto", xff2)

		got := ClientIP(r, trusted)
		ForwardedHTTPS(r, trusted)
		if !got.IsValid() || got.Zone() != "" || got.Is4In6() {
			t.Fatalf("ClientIP = %#v: want a valid, unzoned, unmapped address", got)
		}
		peer, ok := parseHop(remote)
		switch {
		case !ok:
			if got != netip.IPv4Unspecified() {
				t.Fatalf("unreadable peer %q gave %v, want 0.0.0.0", remote, got)
			}
		case !isTrusted(peer, trusted):
			if got != peer {
				t.Fatalf("untrusted peer %v gave %v: the header was believed", peer, got)
			}
		case got != peer && !hopsContain(xff1, xff2, got):
			t.Fatalf("ClientIP = %v, neither the peer %v nor a hop", got, peer)
		}
		if key := IPKey(got); key == "" {
			t.Fatalf("IPKey(%v) is empty", got)
		}
	})
}

func hopsContain(xff1, xff2 string, want netip.Addr) bool {
	for hop := range hopsFromRight([]string{xff1, xff2}) {
		if a, ok := parseHop(hop); ok && a == want {
			return true
		}
	}
	return false
}

func FuzzParseLimits(f *testing.F) {
	for _, s := range []string{
		"",
		"jwt=200/1m",
		"login=3/m,register=1/h,reset=2/s",
		"auth=10/30s, agent-runs=5/1h30m",
		"jwt=abc/1m",
		"jwt=1/m,jwt=2/m",
		"jwt=1000000000/1000h",
		"nope=1/m,,",
	} {
		f.Add(s)
	}
	known := Defaults()
	f.Fuzz(func(t *testing.T, s string) {
		limits, err := ParseLimits(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--limits: ") {
				t.Fatalf("error %q does not say which flag", err)
			}
			return
		}
		if len(limits) != len(known) {
			t.Fatalf("ParseLimits(%q) has %d names, want %d", s, len(limits), len(known))
		}
		var again []string
		for name, limit := range limits {
			if _, ok := known[name]; !ok {
				t.Fatalf("ParseLimits(%q) returned unknown name %q", s, name)
			}
			if limit.N <= 0 || limit.Window <= 0 || limit.validate() != nil {
				t.Fatalf("ParseLimits(%q) returned %s=%s", s, name, limit)
			}
			again = append(again, name+"="+limit.String())
		}
		// Whatever was accepted can be written back and read the same.
		reread, err := ParseLimits(strings.Join(again, ","))
		if err != nil {
			t.Fatalf("rereading %v: %v", again, err)
		}
		for name, limit := range limits {
			if reread[name] != limit {
				t.Fatalf("%s: reread %s, want %s", name, reread[name], limit)
			}
		}
		// Any accepted limit must drive a Limiter without panicking.
		for _, limit := range limits {
			New(limit, WithShards(1), WithMaxKeys(1)).Allow("k")
		}
	})
}
