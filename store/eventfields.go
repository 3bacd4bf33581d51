package store

import (
	"net/netip"
)

// An event's normalised fields are stored as NULL when not given, so that
// a native event pays one header byte for each. Addresses are their 16
// bytes (IPv4 mapped): one order for both families, so that a CIDR is one
// range of the address indexes.

func addrColumn(a netip.Addr) any {
	if !a.IsValid() {
		return nil
	}
	b := a.As16()
	return b[:]
}

func portColumn(p uint16) any {
	if p == 0 {
		return nil
	}
	return int64(p)
}

func textColumn(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// prefixRange is the first and last address of a prefix as stored.
func prefixRange(p netip.Prefix) (lo, hi []byte) {
	p = p.Masked()
	first := p.Addr()
	bits := p.Bits()
	if first.Is4() {
		bits += 96
	}
	l := first.As16()
	h := l
	for i := bits; i < 128; i++ {
		h[i/8] |= 1 << (7 - i%8)
	}
	return l[:], h[:]
}
