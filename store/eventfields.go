package store

import (
	"fmt"
	"net/netip"

	"garrison/event"
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

// addrFrom reads an address column: nil is none.
func addrFrom(v any) (netip.Addr, error) {
	switch v := v.(type) {
	case nil:
		return netip.Addr{}, nil
	case []byte:
		if len(v) != 16 {
			return netip.Addr{}, fmt.Errorf("address of %d bytes", len(v))
		}
		return netip.AddrFrom16([16]byte(v)).Unmap(), nil
	}
	return netip.Addr{}, fmt.Errorf("address column holds %T", v)
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

// scanFields reads the address and port columns of an event.
func scanFields(f *event.Fields, src, dst, sport, dport any) error {
	var err error
	if f.SrcIP, err = addrFrom(src); err != nil {
		return fmt.Errorf("src_ip: %w", err)
	}
	if f.DstIP, err = addrFrom(dst); err != nil {
		return fmt.Errorf("dst_ip: %w", err)
	}
	for _, c := range []struct {
		v  any
		to *uint16
	}{{sport, &f.SrcPort}, {dport, &f.DstPort}} {
		switch v := c.v.(type) {
		case nil:
		case int64:
			*c.to = uint16(v)
		default:
			return fmt.Errorf("port column holds %T", v)
		}
	}
	return nil
}
