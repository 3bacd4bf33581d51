package eve

import (
	"net/netip"
	"strings"
	"unicode"

	"garrison/valid"
)

// maxText caps every string taken from the input (Message, Indicator,
// Details values, DNS names), in bytes.
const maxText = 500

// clean makes s safe to show on one line: control characters (CR, LF, tab,
// C1, U+2028/2029) and bidirectional overrides become spaces, invalid UTF-8
// becomes U+FFFD (strings.Map does that), surrounding space is trimmed, and
// text over max bytes is cut as valid.Clip cuts every text from outside
// ("… [truncated from 1.2 KiB]").
func clean(s string, max int) string {
	if !needsCleaning(s, max) {
		return s
	}
	s = strings.Map(func(r rune) rune {
		if unsafeRune(r) {
			return ' '
		}
		return r
	}, s)
	return valid.Clip(strings.TrimSpace(s), max)
}

// needsCleaning is the fast path: most EVE strings are short printable ASCII.
func needsCleaning(s string, max int) bool {
	if len(s) > max {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return true
		}
	}
	return len(s) > 0 && (s[0] == ' ' || s[len(s)-1] == ' ')
}

func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' ||
		unicode.Is(unicode.Bidi_Control, r)
}

// internal reports whether a is an address a protected network uses for
// its own hosts: RFC 1918 and ULA (IsPrivate), loopback, link-local.
func internal(a netip.Addr) bool {
	return a.IsValid() && (a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast())
}

// assetOf picks the protected host of a src/dest pair and the peer on the
// other side: the one internal address when exactly one is internal,
// otherwise dest, otherwise src. Invalid addresses count as absent.
func assetOf(src, dst netip.Addr) (asset, peer netip.Addr) {
	switch {
	case internal(src) && !internal(dst):
		return src, dst
	case internal(dst) && !internal(src):
		return dst, src
	case dst.IsValid():
		return dst, src
	default:
		return src, dst
	}
}

func addrString(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

// endpoint renders ip:port ([ip]:port for IPv6), or the bare ip without a port.
func endpoint(a netip.Addr, port uint16, hasPort bool) string {
	if !a.IsValid() {
		return "?"
	}
	if !hasPort {
		return a.String()
	}
	return netip.AddrPortFrom(a, port).String()
}

// normDomain lower-cases a DNS name and strips the trailing dot of a fully
// qualified name (all of them: "a.." is "a"). The root, which Suricata logs as "" or ".", is "<root>".
func normDomain(s string) string {
	s = strings.TrimRight(clean(strings.ToLower(s), maxText), ". ")
	if s == "" {
		return "<root>"
	}
	return s
}
