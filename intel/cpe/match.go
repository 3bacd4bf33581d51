package cpe

import (
	"strings"
	"unicode"
)

// MatchResult explains a decision of Range.Match or Affected.Match; it is
// filled in whether or not the software matched, so that a caller can show
// why an asset was, or was not, flagged.
type MatchResult struct {
	// Kind is "cpe" for a Range (NVD configuration data) and "name" for an
	// Affected entry (CVE 5 vendor and product names): a name match is the
	// weaker evidence, and triage should be able to tell them apart.
	Kind string
	// VersionKnown says the decision was made on the software's version. It
	// is false when a match rests on the names alone: the software's version
	// is unknown, or the CVE's version data is a placeholder ("n/a",
	// "unspecified"), or an NVD criteria's update could not be checked. Such
	// a match means "possibly affected; check by hand". It is also false when
	// the names already ruled the software out.
	VersionKnown bool
	// Reason is one line for a person, e.g. "2.4.49 is within [2.4.0, 2.4.50)".
	Reason string
}

// Range is one NVD cpeMatch: the criteria CPE plus optional version bounds.
// Bounds are copied as NVD writes them, which may include CPE quoting
// ("9.1.7\(9\)"). Whether the entry is "vulnerable" is the caller's concern:
// Match only says whether the software falls within it.
type Range struct {
	Criteria                                                   string
	StartIncluding, StartExcluding, EndIncluding, EndExcluding string
}

// Software is one entry of an asset's software list. CPE is optional, in
// either the 2.3 or the 2.2 form.
type Software struct {
	Vendor, Product, Version, CPE string
}

// Match says whether the software is within the range.
//
// Vendor and product come from the software's CPE when it has them, because
// CPE names are what NVD criteria use and inventory display names often are
// not; otherwise from Vendor and Product. Both sides are compared after
// Normalize. The version comes from Version when it is set, because scanners
// record the installed build there while a CPE assigned from the dictionary
// may be coarser; otherwise from the CPE. A CPE that does not parse is
// ignored rather than treated as a mismatch, so a malformed inventory entry
// cannot hide a vulnerable host.
//
// When the software has a CPE, its part and its other attributes (update,
// edition, target_sw...) must be compatible with the criteria's: equal, or
// ANY on either side. Without a CPE they cannot be checked and are ignored;
// if the criteria names an update ("junos:12.1x46:d45"), the match is then
// reported with VersionKnown false.
//
// The criteria version is either ANY ("*"), with the bounds then deciding, or
// an exact version, compared with Compare == 0 (bounds, which NVD never adds
// to an exact version, would only narrow it further). NA ("-"), used for
// hardware, matches any version. Software without a version cannot be shown
// to be outside the range, so it matches with VersionKnown false.
func (r Range) Match(s Software) (MatchResult, bool) {
	crit, err := Parse(r.Criteria)
	if err != nil {
		return MatchResult{Kind: "cpe", Reason: "invalid criteria: " + err.Error()}, false
	}
	return r.MatchParsed(crit, s)
}

// MatchParsed is Match with the criteria already parsed (Parse of
// r.Criteria): a caller trying one range against many software entries
// parses it once.
func (r Range) MatchParsed(crit Name, s Software) (MatchResult, bool) {
	res := MatchResult{Kind: "cpe"}
	sw := resolve(s)
	if sw.hasCPE && !attrMatch(crit.Part, sw.cpe.Part) {
		res.Reason = "part differs"
		return res, false
	}
	if !valueMatch(crit.Vendor, sw.vendor, sw.vendorEsc) {
		res.Reason = "vendor differs"
		return res, false
	}
	if !valueMatch(crit.Product, sw.product, sw.productEsc) {
		res.Reason = "product differs"
		return res, false
	}
	updateUnchecked := false
	if sw.hasCPE {
		cf, sf := crit.fields(), sw.cpe.fields()
		for i := 4; i < len(cf); i++ {
			if !attrMatch(*cf[i], *sf[i]) {
				res.Reason = componentNames[i] + " differs"
				return res, false
			}
		}
	} else {
		updateUnchecked = crit.Update != "*" && crit.Update != "-"
	}

	bounded := r.StartIncluding != "" || r.StartExcluding != "" || r.EndIncluding != "" || r.EndExcluding != ""
	cv := crit.Version
	if sw.version == "" {
		res.Reason = "version unknown; affected versions: " + r.describe(cv, bounded)
		return res, true
	}
	v := sw.version
	res.VersionKnown = true // until the match, where the update may count
	if cv != "*" && cv != "-" {
		if Compare(v, unescape(cv)) != 0 {
			res.Reason = v + " is not " + unescape(cv)
			return res, false
		}
	}
	if bounded && !r.contains(v) {
		res.Reason = v + " is outside " + r.interval()
		return res, false
	}
	res.VersionKnown = !updateUnchecked
	switch {
	case bounded:
		res.Reason = v + " is within " + r.interval()
	case cv == "*":
		res.Reason = "all versions are affected"
	case cv == "-":
		res.Reason = "the criteria has no version (NA)"
	default:
		res.Reason = v + " is version " + unescape(cv)
	}
	if updateUnchecked {
		res.Reason += "; update " + unescape(crit.Update) + " not checked (no CPE)"
	}
	return res, true
}

func (r Range) contains(v string) bool {
	if r.StartIncluding != "" && Compare(v, unescape(r.StartIncluding)) < 0 {
		return false
	}
	if r.StartExcluding != "" && Compare(v, unescape(r.StartExcluding)) <= 0 {
		return false
	}
	if r.EndIncluding != "" && Compare(v, unescape(r.EndIncluding)) > 0 {
		return false
	}
	if r.EndExcluding != "" && Compare(v, unescape(r.EndExcluding)) >= 0 {
		return false
	}
	return true
}

// interval writes the bounds in interval notation, "[2.4.0, 2.4.50)".
func (r Range) interval() string {
	lo, hi := "(-inf", "+inf)"
	switch {
	case r.StartExcluding != "":
		lo = "(" + unescape(r.StartExcluding)
	case r.StartIncluding != "":
		lo = "[" + unescape(r.StartIncluding)
	}
	switch {
	case r.EndExcluding != "":
		hi = unescape(r.EndExcluding) + ")"
	case r.EndIncluding != "":
		hi = unescape(r.EndIncluding) + "]"
	}
	return lo + ", " + hi
}

func (r Range) describe(cv string, bounded bool) string {
	switch {
	case cv != "*" && cv != "-":
		return unescape(cv)
	case bounded:
		return r.interval()
	}
	return "all"
}

// sw is a Software with its identity resolved (see Range.Match).
type sw struct {
	hasCPE                bool
	cpe                   Name
	vendor, product       string
	vendorEsc, productEsc bool   // vendor, product in CPE quoting
	version               string // unquoted; "" when unknown
}

func resolve(s Software) sw {
	r := sw{vendor: s.Vendor, product: s.Product, version: strings.TrimSpace(s.Version)}
	if s.CPE != "" {
		if n, err := Parse(strings.TrimSpace(s.CPE)); err == nil {
			r.hasCPE, r.cpe = true, n
			if concrete(n.Vendor) {
				r.vendor, r.vendorEsc = n.Vendor, true
			}
			if concrete(n.Product) {
				r.product, r.productEsc = n.Product, true
			}
			if r.version == "" && concrete(n.Version) {
				r.version = unescape(n.Version)
			}
		}
	}
	if r.version == "*" || r.version == "-" {
		r.version = ""
	}
	return r
}

func concrete(v string) bool { return v != "*" && v != "-" }

// valueMatch compares a criteria value (quoted) with the software's value
// after Normalize; ANY in the criteria matches anything.
func valueMatch(crit, v string, vEsc bool) bool {
	return crit == "*" || eqNorm(crit, true, v, vEsc)
}

// attrMatch compares two CPE attributes: ANY on either side is compatible,
// NA only with NA, values after Normalize.
func attrMatch(a, b string) bool {
	switch {
	case a == "*" || b == "*":
		return true
	case a == "-" || b == "-":
		return a == b
	}
	return eqNorm(a, true, b, true)
}

// Affected is one entry of a CVE 5 "affected" list, the fallback for CVEs
// without CPE data.
type Affected struct {
	Vendor, Product string
	Versions        []AffectedVersion
	DefaultStatus   string
}

// AffectedVersion is one CVE 5 version object: a single version, or the
// range Version..LessThan (or ..LessThanOrEqual).
type AffectedVersion struct {
	Version, LessThan, LessThanOrEqual, Status, VersionType string
}

// Match says whether the software is affected according to the entry.
//
// Vendor and product must both equal the software's after Normalize; the
// software's CPE vendor and product are tried too, since a CVE's "Fortinet /
// FortiManager" fits either spelling. An entry whose vendor or product is a
// placeholder ("", "n/a", "unknown") matches nothing: a product name alone is
// too weak to flag assets on.
//
// The status follows the CVE 5 algorithm: the first version object that
// contains the version decides, otherwise DefaultStatus, and an absent
// DefaultStatus means "unknown". Only "affected" is a match: "unknown" is
// the CVE making no claim, and flagging on it would report every version of
// every product named anywhere in a CVE.
//
// Version objects are read with the conventions CNAs actually use: a start of
// "0", "*", "n/a" or "unspecified" is no lower bound; an upper bound of "*"
// or "latest" is no upper bound, and "2.*" takes in the whole 2 series. A
// single version of "*", "all" or "all versions" contains every version,
// and one of "n/a" or "unspecified" (or an upper bound written that way)
// contains every version with VersionKnown false, since the CVE does not
// know. Objects of versionType "git" are skipped: commit hashes cannot be
// ordered without the repository. Every other versionType, "custom"
// included, is ordered with Compare. With the software's version unknown, the
// entry matches (VersionKnown false) if it lists any affected version or
// defaults to affected.
func (a Affected) Match(s Software) (MatchResult, bool) {
	res := MatchResult{Kind: "name"}
	if placeholder(a.Vendor) || placeholder(a.Product) {
		res.Reason = "the CVE names no vendor or product"
		return res, false
	}
	sw := resolve(s)
	named := eqNorm(a.Vendor, false, s.Vendor, false) && eqNorm(a.Product, false, s.Product, false)
	if !named && sw.hasCPE {
		named = eqNorm(a.Vendor, false, sw.vendor, sw.vendorEsc) && eqNorm(a.Product, false, sw.product, sw.productEsc)
	}
	if !named {
		res.Reason = "vendor or product differs"
		return res, false
	}

	if sw.version == "" {
		if status(a.DefaultStatus) == "affected" {
			res.Reason = "version unknown; versions are affected by default"
			return res, true
		}
		for _, v := range a.Versions {
			if !isGit(v) && status(v.Status) == "affected" {
				res.Reason = "version unknown; affected versions: " + v.describe()
				return res, true
			}
		}
		res.Reason = "version unknown; no version is listed as affected"
		return res, false
	}

	ver := sw.version
	for _, v := range a.Versions {
		if isGit(v) {
			continue
		}
		if hit, certain := v.contains(ver); hit {
			st := status(v.Status)
			res.VersionKnown = certain
			res.Reason = ver + " is " + st + ": " + v.describe()
			return res, st == "affected"
		}
	}
	st := status(a.DefaultStatus)
	res.VersionKnown = true
	res.Reason = ver + " is " + st + ": no version entry contains it, and the default status is " + st
	return res, st == "affected"
}

// contains reports whether the object contains version v, and whether that
// is known rather than assumed from a placeholder.
func (o AffectedVersion) contains(v string) (hit, certain bool) {
	start := strings.TrimSpace(o.Version)
	lt, le := strings.TrimSpace(o.LessThan), strings.TrimSpace(o.LessThanOrEqual)
	if lt == "" && le == "" {
		switch {
		case anyVersion(start):
			return true, true
		case unknownVersion(start):
			return true, false
		}
		return Compare(v, start) == 0, true
	}
	if !openStart(start) && Compare(v, start) < 0 {
		return false, true
	}
	certain = true
	for _, b := range [2]struct {
		bound string
		incl  bool
	}{{lt, false}, {le, true}} {
		if b.bound == "" {
			continue
		}
		ok, sure := below(v, b.bound, b.incl)
		if !ok {
			return false, true
		}
		certain = certain && sure
	}
	return true, certain
}

// below reports whether v is under an upper bound (or at it, when incl),
// and whether the bound is a real one.
func below(v, bound string, incl bool) (ok, certain bool) {
	switch {
	case bound == "*" || strings.EqualFold(bound, "latest"):
		return true, true
	case unknownVersion(bound):
		return true, false
	case strings.HasSuffix(bound, "*"):
		// "*" is infinity, not a wildcard: "5.4.*" is the end of the 5.4
		// series, whatever its last release is.
		p := strings.TrimSuffix(bound, "*")
		return Compare(v, p) <= 0 || hasVersionPrefix(v, p), true
	}
	c := Compare(v, bound)
	return c < 0 || incl && c == 0, true
}

func (o AffectedVersion) describe() string {
	start := strings.TrimSpace(o.Version)
	lt, le := strings.TrimSpace(o.LessThan), strings.TrimSpace(o.LessThanOrEqual)
	if lt == "" && le == "" {
		return "version " + start
	}
	lo := "[" + start
	if openStart(start) {
		lo = "(-inf"
	}
	if lt != "" {
		return "within " + lo + ", " + lt + ")"
	}
	return "within " + lo + ", " + le + "]"
}

func status(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case strings.EqualFold(s, "affected"):
		return "affected"
	case strings.EqualFold(s, "unaffected"):
		return "unaffected"
	}
	return "unknown"
}

func isGit(o AffectedVersion) bool { return strings.EqualFold(strings.TrimSpace(o.VersionType), "git") }

func openStart(s string) bool {
	return s == "0" || s == "*" || unknownVersion(s)
}

func anyVersion(s string) bool {
	return s == "*" || strings.EqualFold(s, "all") || strings.EqualFold(s, "all versions")
}

func unknownVersion(s string) bool {
	return s == "" || strings.EqualFold(s, "n/a") || strings.EqualFold(s, "unspecified")
}

func placeholder(s string) bool {
	return eqNorm(s, false, "", false) || eqNorm(s, false, "n/a", false) || eqNorm(s, false, "unknown", false)
}

// Normalize folds a vendor or product name the way CPE names are written:
// trimmed, lower case, and every run of spaces, hyphens, dots and
// underscores turned into one "_". So "Microsoft" == "microsoft",
// "Internet Explorer" == "internet_explorer", "Open-Xchange" ==
// "open_xchange", and a doubled space, as in the real CVE product
// "Backup and  Recovery", does not break a match. It does not translate
// names: "Apache HTTP Server" stays far from "http_server", and that is left
// to a CPE on the inventory entry.
func Normalize(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	var b strings.Builder
	b.Grow(len(s))
	sep := false
	for _, r := range s {
		if isNameSep(r) {
			if !sep {
				b.WriteByte('_')
			}
			sep = true
			continue
		}
		sep = false
		b.WriteRune(r)
	}
	return b.String()
}

func isNameSep(r rune) bool { return r == '-' || r == '.' || r == '_' || unicode.IsSpace(r) }

// eqNorm reports whether Normalize(a) == Normalize(b), where a value marked
// esc is first unquoted from CPE form. It walks both strings together so
// that matching a range against thousands of assets allocates nothing; only
// non-ASCII input takes the slow path.
func eqNorm(a string, aEsc bool, b string, bEsc bool) bool {
	if !isASCII(a) || !isASCII(b) {
		if aEsc {
			a = unescape(a)
		}
		if bEsc {
			b = unescape(b)
		}
		return Normalize(a) == Normalize(b)
	}
	x := normIter{s: strings.TrimSpace(a), esc: aEsc}
	y := normIter{s: strings.TrimSpace(b), esc: bEsc}
	for {
		c, ok := x.next()
		d, ok2 := y.next()
		if ok != ok2 || c != d {
			return false
		}
		if !ok {
			return true
		}
	}
}

// normIter yields the bytes of Normalize(s) for ASCII s.
type normIter struct {
	s    string
	i    int
	esc  bool
	held int // a byte read past a separator run, +1; 0 for none
}

func (it *normIter) raw() (byte, bool) {
	if it.i == len(it.s) {
		return 0, false
	}
	c := it.s[it.i]
	it.i++
	if it.esc && c == '\\' && it.i < len(it.s) {
		c = it.s[it.i]
		it.i++
	}
	return c, true
}

func (it *normIter) next() (byte, bool) {
	if it.held != 0 {
		c := byte(it.held - 1)
		it.held = 0
		return c, true
	}
	c, ok := it.raw()
	if !ok {
		return 0, false
	}
	if !isNameSepByte(c) {
		return lower(c), true
	}
	for {
		c, ok = it.raw()
		if !ok {
			return '_', true
		}
		if !isNameSepByte(c) {
			it.held = int(lower(c)) + 1
			return '_', true
		}
	}
}

func isNameSepByte(c byte) bool {
	switch c {
	case '-', '.', '_', ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
