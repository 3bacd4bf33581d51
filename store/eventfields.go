package store

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

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

// packedNames are the columns an event leaves NULL unless it has them:
// the id stored before ids were derived and the normalised fields, in
// the order unpackColumns reads them.
var packedNames = []string{"legacy_id", "src_ip", "dst_ip", "src_port", "dst_port", "user_name", "process", "command_line", "host", "rule", "action"}

// packedColumns is the SQL of one column holding every packedNames column
// of a row, NULL when all of them are: each one as "-" for NULL or as its
// length in bytes, ":" and its bytes (an address's 16 raw bytes, a port's
// digits).
var packedColumns = func() string {
	var all, each []string
	for _, c := range packedNames {
		each = append(each, "COALESCE(octet_length("+c+") || ':' || "+c+", '-')")
	}
	all = append(all, packedNames...)
	return "CASE WHEN COALESCE(" + strings.Join(all, ", ") + ") IS NOT NULL THEN " + strings.Join(each, " || ") + " END"
}()

// unpackColumns reads packedColumns into f, returning the legacy id.
func unpackColumns(packed string, f *event.Fields) (legacyID string, err error) {
	rest := packed
	next := func(name string) (string, bool, error) {
		if strings.HasPrefix(rest, "-") {
			rest = rest[1:]
			return "", false, nil
		}
		colon := strings.IndexByte(rest, ':')
		n, err := strconv.Atoi(rest[:max(colon, 0)])
		if colon < 0 || err != nil || n < 0 || n > len(rest)-colon-1 {
			return "", false, fmt.Errorf("packed columns: %s: bad length at %d", name, len(packed)-len(rest))
		}
		v := rest[colon+1 : colon+1+n]
		rest = rest[colon+1+n:]
		return v, true, nil
	}
	values := make([]string, len(packedNames))
	for i, name := range packedNames {
		v, ok, err := next(name)
		if err != nil {
			return "", err
		}
		if !ok {
			continue
		}
		values[i] = v
		switch name {
		case "src_ip", "dst_ip":
			if len(v) != 16 {
				return "", fmt.Errorf("packed columns: %s of %d bytes", name, len(v))
			}
		case "src_port", "dst_port":
			if p, err := strconv.ParseUint(v, 10, 16); err != nil || p == 0 {
				return "", fmt.Errorf("packed columns: %s %q", name, v)
			}
		}
	}
	if rest != "" {
		return "", fmt.Errorf("packed columns: %d bytes left over", len(rest))
	}
	addr := func(v string) netip.Addr {
		if v == "" {
			return netip.Addr{}
		}
		return netip.AddrFrom16([16]byte([]byte(v))).Unmap()
	}
	port := func(v string) uint16 {
		p, _ := strconv.ParseUint(v, 10, 16) // checked above
		return uint16(p)
	}
	*f = event.Fields{SrcIP: addr(values[1]), DstIP: addr(values[2]), SrcPort: port(values[3]), DstPort: port(values[4]),
		User: values[5], Process: values[6], CommandLine: values[7], Host: values[8], Rule: values[9], Action: values[10]}
	return values[0], nil
}
