package valid

import (
	"net/mail"
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// MaxEmail is the longest address, in bytes after normalisation (RFC 5321's
// forward-path limit less the angle brackets).
const MaxEmail = 254

// emailDomains converts an address's domain the way a mail client looks it
// up (IDNA 2008 with the UTS 46 mapping, non-transitional): case folded,
// full-width forms mapped, then Punycode.
var emailDomains = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.BidiRule(),
	idna.VerifyDNSLength(true), idna.StrictDomainName(true))

// NormalEmail is the one form addresses are stored, looked up and compared
// in: trimmed, NFC, lower-cased, the domain in ASCII (Punycode). An address
// holding invisible characters keeps them, unconverted, so that Email
// refuses it rather than the mapping silently dropping them.
func NormalEmail(s string) string {
	s = norm.NFC.String(strings.ToLower(strings.TrimSpace(s)))
	at := strings.LastIndexByte(s, '@')
	if at < 0 || hasInvisible(s) {
		return s
	}
	domain, err := emailDomains.ToASCII(s[at+1:])
	if err != nil {
		return s
	}
	return s[:at+1] + domain
}

// Email accepts a normalised (see NormalEmail) bare address: no display
// name, no invisible or format characters, a domain that is a dotted DNS
// name in ASCII (not an IP literal) whose labels each keep to one script,
// so that a look-alike domain is not a second identity for one mailbox.
func Email(s string) bool {
	if len(s) > MaxEmail || !utf8.ValidString(s) || hasInvisible(s) {
		return false
	}
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Address != s {
		return false
	}
	domain := s[strings.LastIndexByte(s, '@')+1:]
	if !strings.Contains(domain, ".") || strings.HasPrefix(domain, "[") || !isASCII(domain) {
		return false
	}
	if _, err := netip.ParseAddr(domain); err == nil {
		return false
	}
	unicodeDomain, err := emailDomains.ToUnicode(domain)
	if err != nil {
		return false
	}
	for label := range strings.SplitSeq(unicodeDomain, ".") {
		if !singleScript(label) {
			return false
		}
	}
	return true
}

// hasInvisible reports characters a reader cannot see or that reorder
// what they see: format characters (zero-width space and joiners, bidi
// controls, soft hyphen), variation selectors, other default-ignorable
// code points, and anything else unprintable.
func hasInvisible(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// scriptSets are the mixtures of scripts one label may hold, after UTS 39's
// "highly restrictive" level: one script, or Latin with the scripts that
// are written together with Han.
var scriptSets = [][]string{
	{"Latin", "Han", "Hiragana", "Katakana"},
	{"Latin", "Han", "Bopomofo"},
	{"Latin", "Han", "Hangul"},
}

// singleScript reports whether a domain label keeps to one script (or one
// of scriptSets); Common and Inherited characters (digits, '-', combining
// marks) go with any.
func singleScript(label string) bool {
	seen := map[string]bool{}
	for _, r := range label {
		if r < utf8.RuneSelf {
			if unicode.IsLetter(r) {
				seen["Latin"] = true
			}
			continue
		}
		if name := scriptOf(r); name != "" {
			seen[name] = true
		}
	}
	if len(seen) <= 1 {
		return true
	}
	for _, set := range scriptSets {
		covered := 0
		for _, name := range set {
			if seen[name] {
				covered++
			}
		}
		if covered == len(seen) {
			return true
		}
	}
	return false
}

// scriptOf names r's script, or "" for Common and Inherited.
func scriptOf(r rune) string {
	for name, table := range unicode.Scripts {
		if name != "Common" && name != "Inherited" && unicode.Is(table, r) {
			return name
		}
	}
	return ""
}

// EmailDomain is a normalised address's domain as people write it
// (Unicode), for naming an organization after it.
func EmailDomain(email string) string {
	domain := email[strings.LastIndexByte(email, '@')+1:]
	if u, err := emailDomains.ToUnicode(domain); err == nil {
		return u
	}
	return domain
}
