package ratelimit

import (
	"encoding/binary"
	"iter"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
)

// unknownClient stands for a peer whose address cannot be read (a Unix
// socket, a malformed RemoteAddr). All such requests share one bucket.
func unknownClient() netip.Addr { return netip.IPv4Unspecified() }

// ClientIP returns the client's address. It is the TCP peer unless the peer
// is a trusted proxy; then X-Forwarded-For (every header line, comma
// separated) is walked from the right and the first hop that is not trusted
// is the client, since hops to its left could have been forged by it. If
// every hop is trusted, the left-most is the client. A malformed entry stops
// the walk at the last good address. The result is unmapped, has no zone and
// is always valid; an unreadable peer gives 0.0.0.0.
func ClientIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	client, _ := Origin(r, trusted)
	return client
}

// ForwardedHTTPS reports whether the client reached us over HTTPS: the
// connection's own TLS, unless the peer is a trusted proxy that sent
// X-Forwarded-Proto, whose first value then decides.
func ForwardedHTTPS(r *http.Request, trusted []netip.Prefix) bool {
	_, https := Origin(r, trusted)
	return https
}

// Origin is [ClientIP] and [ForwardedHTTPS] together, reading the peer's
// address once: the middleware needs both on every request.
func Origin(r *http.Request, trusted []netip.Prefix) (client netip.Addr, https bool) {
	if r == nil {
		return unknownClient(), false
	}
	https = r.TLS != nil
	peer, ok := parseHop(r.RemoteAddr)
	if !ok {
		return unknownClient(), https
	}
	if !isTrusted(peer, trusted) {
		return peer, https
	}
	first, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	if proto := strings.Trim(first, " \t"); proto != "" {
		https = strings.EqualFold(proto, "https")
	}
	client = peer
	for hop := range hopsFromRight(r.Header.Values("X-Forwarded-For")) {
		a, ok := parseHop(hop)
		if !ok {
			break
		}
		client = a
		if !isTrusted(a, trusted) {
			break
		}
	}
	return client, https
}

// IPKey returns the bucket key for an address: IPv4 as is, IPv6 masked to
// its /64, the smallest network a single client is usually given. The zero
// Addr gives "invalid IP", one shared key.
func IPKey(a netip.Addr) string {
	a = a.WithZone("").Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		a = p.Addr() // the network's first address stands for it
	}
	slot := &recentKeys[keySlot(a)]
	if e := slot.Load(); e != nil && e.addr == a {
		return e.key
	}
	key := a.String()
	if a.Is6() {
		key += "/64"
	}
	slot.Store(&recentKey{addr: a, key: key})
	return key
}

// recentKeys remembers the keys of recent clients, so that a client's key
// is not built again on each of its requests: a server hears from few
// addresses, each many times. Entries are never changed, only replaced.
var recentKeys [256]atomic.Pointer[recentKey]

type recentKey struct {
	addr netip.Addr // unmapped, zoneless; an IPv6 one masked to its /64
	key  string
}

// keySlot spreads addresses over recentKeys.
func keySlot(a netip.Addr) uint8 {
	b := a.As16()
	x := binary.BigEndian.Uint64(b[:8]) ^ binary.BigEndian.Uint64(b[8:])
	return uint8((x * 0x9E3779B97F4A7C15) >> 56)
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHop reads an address as found in RemoteAddr or a forwarding header:
// "ip", "ip:port", "[ipv6]", "[ipv6]:port", with or without a zone.
func parseHop(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return canonical(ap.Addr()), true
	}
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return canonical(a), true
}

// canonical drops what would let one client appear as two: a zone and the
// IPv4-mapped IPv6 form.
func canonical(a netip.Addr) netip.Addr {
	return a.WithZone("").Unmap()
}

// hopsFromRight yields the comma-separated entries of all header lines,
// right-most first, trimmed of optional whitespace, without allocating.
func hopsFromRight(lines []string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := len(lines) - 1; i >= 0; i-- {
			line := lines[i]
			for {
				comma := strings.LastIndexByte(line, ',')
				if !yield(strings.Trim(line[comma+1:], " \t")) {
					return
				}
				if comma < 0 {
					break
				}
				line = line[:comma]
			}
		}
	}
}
