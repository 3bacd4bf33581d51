package event

import (
	"net/netip"
	"slices"
	"strings"

	"garrison/valid"
)

// Search narrows events (and the alerts they joined) by their normalised
// fields and text: an address or a CIDR prefix, exact names, and text in
// the message, rule or indicator. Zero values are no filter.
type Search struct {
	SrcIP, DstIP netip.Prefix
	Asset        string // lower case, as assets are stored
	User         string
	Rule         string
	Source       string
	Text         string
}

// Any reports whether the search filters anything.
func (s Search) Any() bool { return s != Search{} }

// maxSearchText bounds a searched name or text.
const maxSearchText = 256

// SearchQuery is a search as a query gives it, every filter text.
type SearchQuery struct {
	SrcIP, DstIP, Asset, User, Rule, Source, Q string
}

// ParseSearch judges a search's filters into p.
func ParseSearch(p *valid.Problems, q SearchQuery) Search {
	s := Search{Asset: strings.ToLower(q.Asset), User: q.User, Rule: q.Rule, Source: q.Source, Text: q.Q}
	s.SrcIP = parsePrefix(p, "src_ip", q.SrcIP)
	s.DstIP = parsePrefix(p, "dst_ip", q.DstIP)
	for _, f := range []struct{ name, value string }{{"asset", q.Asset}, {"user", q.User}, {"rule", q.Rule}, {"source", q.Source}, {"q", q.Q}} {
		p.Check(len(f.value) <= maxSearchText && valid.Text(f.value), f.name, "must be at most 256 bytes of text")
	}
	if q.Q != "" {
		words := QueryWords(q.Q)
		p.Check(len(words) > 0, "q", "must hold a word (letters or digits), not only punctuation")
		p.Check(!slices.ContainsFunc(words, func(w string) bool { return len(w) > maxWordBytes }), "q",
			"must hold words of at most 128 bytes")
	}
	return s
}

// parsePrefix reads an address (a prefix of its full length) or a CIDR
// prefix; an IPv4-mapped one counts as IPv4. "" is no filter.
func parsePrefix(p *valid.Problems, field, v string) netip.Prefix {
	if v == "" {
		return netip.Prefix{}
	}
	if a, err := netip.ParseAddr(v); err == nil && a.Zone() == "" {
		return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
	}
	if pf, err := netip.ParsePrefix(v); err == nil {
		if a := pf.Addr(); a.Is4In6() {
			pf = netip.PrefixFrom(a.Unmap(), max(pf.Bits()-96, 0))
		}
		return pf.Masked()
	}
	p.Add(field, "must be an IP address or a CIDR prefix such as 203.0.113.0/24")
	return netip.Prefix{}
}
