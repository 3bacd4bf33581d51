package ratelimit

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// ParseTrustedProxies reads a comma list of CIDRs or bare IPs (a bare IP is
// a /32 or /128). IPv4-mapped IPv6 entries are stored as IPv4, the form
// ClientIP compares against. An empty string trusts nobody.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var prefixes []netip.Prefix
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("trusted proxies: item %d is empty", i+1)
		}
		p, err := parseTrustedItem(item)
		if err != nil {
			return nil, fmt.Errorf("trusted proxies: %q: %w", item, err)
		}
		prefixes = append(prefixes, p)
	}
	return prefixes, nil
}

func parseTrustedItem(item string) (netip.Prefix, error) {
	if strings.Contains(item, "%") {
		return netip.Prefix{}, errors.New("zoned addresses are not allowed")
	}
	if !strings.Contains(item, "/") {
		a, err := netip.ParseAddr(item)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("not an IP address or CIDR: %w", err)
		}
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(item)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("not an IP address or CIDR: %w", err)
	}
	p = p.Masked()
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p, nil
}
