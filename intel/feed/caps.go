package feed

import (
	"fmt"
	"strings"

	"garrison/intel/cpe"
	"garrison/valid"
	"garrison/wording"
)

// The caps of a record: what Garrison keeps of each text and list a feed
// gives, whatever the file holds (a record may be up to MaxRecordSize).
// They are applied as each record is normalized, before it is passed on,
// so nothing after the parser holds or stores more.
//
// A text over its cap is cut by valid.Clip's rule, ending in "… [truncated
// from 15.0 MiB]". A value that would be wrong cut short (a reference's
// URL, a CPE name, a version bound, a CVSS vector) is not cut: the entry
// holding it is left out. A list over its cap keeps its first entries.
// Each record that lost something is passed to Handler.Cut with what it
// lost, in words. A record whose id is not an id (CVE-YYYY-NNNN…, at most
// 40 bytes; T1234.001; TA0001) is refused: a Problem.
//
// Real records are far inside the caps (of NVD's, CVE 5's and KEV's
// published records: descriptions up to about 4 KiB, 43 references, 105
// CPE ranges, 199 versions of one product, version strings of 128 bytes).
const (
	MaxDescription = 8 << 10 // a CVE's description; a KEV entry's short description and notes
	MaxText        = 2 << 10 // a KEV entry's required action
	MaxName        = 500     // a name: KEV vendor, product and vulnerability name; a CVE 5 affected vendor and product; a score's source; an ATT&CK technique's or tactic's name
	MaxWord        = 64      // a short value: a state, severity, CVSS version, score type, date, status, version type, SSVC value, reference tag, tactic phase or short name
	MaxURL         = 2 << 10 // a reference's URL; a reference with a longer one is left out
	MaxCPE         = cpe.MaxLen
	MaxVersion     = 256 // a version or version bound; a CPE range or affected version with a longer one is left out
	MaxVector      = 256 // a CVSS vector; a score with a longer one is left out

	MaxReferences   = 500    // per CVE record
	MaxTags         = 16     // per reference
	MaxMetrics      = 64     // CVSS scores per CVE record
	MaxCWEs         = 100    // per CVE record or KEV entry
	MaxCPEMatches   = 10_000 // NVD CPE ranges per CVE record
	MaxAffected     = 1000   // CVE 5 affected products per record
	MaxVersions     = 2000   // versions per affected product
	MaxAffectedCPEs = 100    // CPE names per affected product
	MaxTactics      = 32     // per ATT&CK technique

	MaxMetaValue = 200 // a file-level value (Summary.Meta)
	MaxMetaKeys  = 32  // file-level values kept
	maxMetaKey   = 64
	maxQuoted    = 200 // input quoted in a Problem's or FileError's message
)

// cuts notes what one record lost to the caps.
type cuts struct{ notes []cutNote }

type cutKind int

const (
	clipped cutKind = iota // a text cut short
	dropped                // an entry left out: a value in it would be wrong cut
	listCut                // a list's last entries left out
)

type cutNote struct {
	kind      cutKind
	one, many string // what, in the singular and plural
	why       string // dropped: the reason
	n         int    // values cut or entries left out
	size      int    // clipped: the longest value; listCut: the list's length
	max       int
}

// note adds n values cut or entries left out of what one/many names; size
// is the longest value cut, or the length of the list cut.
func (c *cuts) note(kind cutKind, one, many, why string, n, size, limit int) {
	for i := range c.notes {
		if x := &c.notes[i]; x.kind == kind && x.one == one && x.why == why {
			x.n += n
			if kind == listCut {
				x.size += size
			} else {
				x.size = max(x.size, size)
			}
			return
		}
	}
	c.notes = append(c.notes, cutNote{kind: kind, one: one, many: many, why: why, n: n, size: size, max: limit})
}

// text cuts *s to max bytes when it is longer.
func (c *cuts) text(s *string, limit int, one, many string) {
	if len(*s) > limit {
		c.note(clipped, one, many, "", 1, len(*s), limit)
		*s = valid.Clip(*s, limit)
	}
}

// fits says whether s is within max bytes, and notes an entry (one/many)
// left out when it is not.
func (c *cuts) fits(s string, limit int, one, many, value string) bool {
	if len(s) <= limit {
		return true
	}
	c.note(dropped, one, many, value+" over "+wording.Bytes(int64(limit)), 1, len(s), limit)
	return false
}

// clipList keeps the first max entries of a list (many names them).
func clipList[T any](c *cuts, list []T, limit int, many string) []T {
	kept, left := valid.ClipList(list, limit)
	if left > 0 {
		c.note(listCut, many, many, "", left, len(list), limit)
	}
	return kept
}

// String says what the record lost: "description cut from 15.0 MiB to
// 8.0 KiB; 2 references left out: a URL over 2.0 KiB; 112 of 612 CPE
// ranges left out (at most 500 are kept)".
func (c *cuts) String() string {
	parts := make([]string, 0, len(c.notes))
	for _, n := range c.notes {
		switch n.kind {
		case clipped:
			if n.n == 1 {
				parts = append(parts, fmt.Sprintf("%s cut from %s to %s", n.one, wording.Bytes(int64(n.size)), wording.Bytes(int64(n.max))))
			} else {
				parts = append(parts, fmt.Sprintf("%s cut to %s (the longest was %s)", wording.Count(n.n, n.one, n.many),
					wording.Bytes(int64(n.max)), wording.Bytes(int64(n.size))))
			}
		case dropped:
			parts = append(parts, fmt.Sprintf("%s left out: %s", wording.Count(n.n, n.one, n.many), n.why))
		case listCut:
			parts = append(parts, fmt.Sprintf("%s of %s %s left out (at most %s are kept)", wording.Thousands(n.n),
				wording.Thousands(n.size), n.many, wording.Thousands(n.max)))
		}
	}
	return strings.Join(parts, "; ")
}

func (c *cuts) any() bool { return len(c.notes) > 0 }

// bound applies the caps to a normalized CVE record.
func (v *CVE) bound(c *cuts) {
	c.text(&v.Description, MaxDescription, "description", "descriptions")
	c.text(&v.State, MaxWord, "state", "states")
	c.text(&v.KEVDateAdded, MaxWord, "KEV date", "KEV dates")
	metrics := v.Metrics[:0]
	for _, m := range v.Metrics {
		if !c.fits(m.Vector, MaxVector, "CVSS score", "CVSS scores", "a vector") {
			continue
		}
		c.text(&m.Version, MaxWord, "CVSS version", "CVSS versions")
		c.text(&m.Severity, MaxWord, "CVSS severity", "CVSS severities")
		c.text(&m.Source, MaxName, "CVSS source", "CVSS sources")
		c.text(&m.Type, MaxWord, "CVSS type", "CVSS types")
		metrics = append(metrics, m)
	}
	v.Metrics = clipList(c, nilIfEmpty(metrics), MaxMetrics, "CVSS scores")
	v.CWEs = clipList(c, v.CWEs, MaxCWEs, "CWEs")
	refs := v.References[:0]
	for _, r := range v.References {
		if !c.fits(r.URL, MaxURL, "reference", "references", "a URL") {
			continue
		}
		r.Tags = clipList(c, r.Tags, MaxTags, "reference tags")
		for i := range r.Tags {
			c.text(&r.Tags[i], MaxWord, "reference tag", "reference tags")
		}
		refs = append(refs, r)
	}
	v.References = clipList(c, nilIfEmpty(refs), MaxReferences, "references")
	matches := v.CPEMatches[:0]
	for _, m := range v.CPEMatches {
		if c.fits(m.Criteria, MaxCPE, "CPE range", "CPE ranges", "a CPE name") &&
			c.fits(longest(m.StartIncluding, m.StartExcluding, m.EndIncluding, m.EndExcluding), MaxVersion, "CPE range", "CPE ranges", "a version bound") {
			matches = append(matches, m)
		}
	}
	v.CPEMatches = clipList(c, nilIfEmpty(matches), MaxCPEMatches, "CPE ranges")
	v.Affected = clipList(c, v.Affected, MaxAffected, "affected products")
	for i := range v.Affected {
		a := &v.Affected[i]
		c.text(&a.Vendor, MaxName, "affected vendor", "affected vendors")
		c.text(&a.Product, MaxName, "affected product", "affected products")
		c.text(&a.DefaultStatus, MaxWord, "default status", "default statuses")
		versions := a.Versions[:0]
		for _, ver := range a.Versions {
			if !c.fits(longest(ver.Version, ver.LessThan, ver.LessThanOrEqual), MaxVersion, "affected version", "affected versions", "a version") {
				continue
			}
			c.text(&ver.Status, MaxWord, "version status", "version statuses")
			c.text(&ver.VersionType, MaxWord, "version type", "version types")
			versions = append(versions, ver)
		}
		a.Versions = clipList(c, nilIfEmpty(versions), MaxVersions, "affected versions")
		cpes := a.CPEs[:0]
		for _, name := range a.CPEs {
			if c.fits(name, MaxCPE, "affected CPE name", "affected CPE names", "a name") {
				cpes = append(cpes, name)
			}
		}
		a.CPEs = clipList(c, nilIfEmpty(cpes), MaxAffectedCPEs, "affected CPE names")
	}
	if s := v.SSVC; s != nil {
		for _, f := range []*string{&s.Exploitation, &s.Automatable, &s.TechnicalImpact, &s.Timestamp} {
			c.text(f, MaxWord, "SSVC value", "SSVC values")
		}
	}
}

// bound applies the caps to a KEV entry.
func (k *KEV) bound(c *cuts) {
	c.text(&k.VendorProject, MaxName, "vendor", "vendors")
	c.text(&k.Product, MaxName, "product", "products")
	c.text(&k.Name, MaxName, "vulnerability name", "vulnerability names")
	c.text(&k.DateAdded, MaxWord, "date added", "dates added")
	c.text(&k.ShortDescription, MaxDescription, "short description", "short descriptions")
	c.text(&k.RequiredAction, MaxText, "required action", "required actions")
	c.text(&k.DueDate, MaxWord, "due date", "due dates")
	c.text(&k.KnownRansomware, MaxWord, "ransomware use", "ransomware uses")
	c.text(&k.Notes, MaxDescription, "notes", "notes")
	k.CWEs = clipList(c, k.CWEs, MaxCWEs, "CWEs")
}

// bound applies the caps to an ATT&CK technique.
func (t *Technique) bound(c *cuts) {
	c.text(&t.Name, MaxName, "name", "names")
	t.Tactics = clipList(c, t.Tactics, MaxTactics, "tactics")
	for i := range t.Tactics {
		c.text(&t.Tactics[i], MaxWord, "tactic", "tactics")
	}
}

// bound applies the caps to an ATT&CK tactic.
func (t *Tactic) bound(c *cuts) {
	c.text(&t.Name, MaxName, "name", "names")
	c.text(&t.ShortName, MaxWord, "short name", "short names")
}

// longest is the longest of some strings.
func longest(ss ...string) string {
	var l string
	for _, s := range ss {
		if len(s) > len(l) {
			l = s
		}
	}
	return l
}

// nilIfEmpty keeps a list that lost every entry as nil, as one that never
// had any is.
func nilIfEmpty[T any](list []T) []T {
	if len(list) == 0 {
		return nil
	}
	return list
}

// meta keeps a file-level value, within the caps: at most MaxMetaKeys keys
// of at most 64 bytes, each value cut at MaxMetaValue.
func (p *parser) meta(key, val string) {
	if _, ok := p.sum.Meta[key]; !ok && (len(p.sum.Meta) >= MaxMetaKeys || len(key) > maxMetaKey) {
		return
	}
	p.sum.Meta[key] = valid.Clip(val, MaxMetaValue)
}

// quoted caps the strings among a message's arguments, so that a Problem
// or a FileError quoting a 15 MiB value stays short.
func quoted(args []any) []any {
	for i, a := range args {
		if s, ok := a.(string); ok && len(s) > maxQuoted {
			args[i] = valid.Clip(s, maxQuoted)
		}
	}
	return args
}
