package contact

import (
	"fmt"
	"net/netip"
	"syscall"
)

// blockedError is a destination the sender will not connect to.
type blockedError struct {
	addr netip.Addr
	why  string
}

func (e *blockedError) Error() string {
	return fmt.Sprintf("refusing to connect to %s: %s", e.addr, e.why)
}

// Cloud metadata services outside link-local: AWS's IPv6 endpoint and
// Alibaba Cloud's.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("fd00:ec2::254"):   true,
	netip.MustParseAddr("100.100.100.200"): true,
}

// nat64 is the well-known NAT64 prefix, behind which an IPv4 address
// (169.254.169.254 as 64:ff9b::a9fe:a9fe) is reached through a gateway.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// guard is a net.Dialer Control function: it judges the address a socket
// is about to connect to, after DNS, so a name that resolves differently
// at send time than when the admin saved it cannot reach what it must not.
func guard(allowLoopback bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("refusing to connect to %q: not an IP address and port", address)
		}
		addr := ap.Addr().WithZone("").Unmap()
		if why := refused(addr, allowLoopback); why != "" {
			return &blockedError{addr: addr, why: why}
		}
		return nil
	}
}

// refused says why an address is out of bounds, or "". Private (RFC 1918,
// ULA) addresses are allowed: an on-premises Mattermost lives there.
func refused(a netip.Addr, allowLoopback bool) string {
	if a.Is6() && nat64.Contains(a) {
		v4 := a.As16()
		return refused(netip.AddrFrom4([4]byte(v4[12:])), allowLoopback)
	}
	switch {
	case a.IsLoopback():
		if !allowLoopback {
			return "a loopback address"
		}
	case a.IsLinkLocalUnicast():
		return "a link-local address, where cloud metadata services answer"
	case metadataAddrs[a]:
		return "a cloud metadata address"
	case a.IsUnspecified() || (a.Is4() && a.As4()[0] == 0):
		return "an unspecified address"
	case a.IsMulticast():
		return "a multicast address"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "the broadcast address"
	}
	return ""
}
