// Package intel is Garrison's vulnerability intelligence: the local store
// fed by imports (feed parses the files), the enrichment view of each CVE,
// the asset inventory, the CVE watchlist with its affected assets, and the
// changes watchers are told of. No HTTP here.
package intel

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"garrison/intel/cpe"
	"garrison/intel/cvss"
	"garrison/intel/feed"
	"garrison/timestamp"
	"garrison/valid"
)

// Patch statuses.
const (
	PatchAvailable = "patch_available"
	NoPatchKnown   = "no_patch_known"
	PatchUnknown   = "unknown"
)

// Score is one published CVSS score.
type Score struct {
	Version  string  `json:"version"`
	Vector   string  `json:"vector"`
	Score    float64 `json:"score"`
	Severity string  `json:"severity"`
	Source   string  `json:"source"`
	// Computed is our own calculator's base score of the vector (v3.x and
	// v2); Matches says whether it equals the published score.
	Computed *float64 `json:"computed_score,omitempty"`
	Matches  *bool    `json:"matches_published,omitempty"`
}

// KEV is a CISA Known Exploited Vulnerabilities listing.
type KEV struct {
	DateAdded      string `json:"date_added"`
	DueDate        string `json:"due_date"`
	RansomwareUse  string `json:"ransomware_use"` // "Known" or "Unknown"
	RequiredAction string `json:"required_action"`
	Name           string `json:"name"`
}

// EPSS is a CVE's exploit prediction score.
type EPSS struct {
	Score      float64 `json:"score"`
	Percentile float64 `json:"percentile"`
	Date       string  `json:"date"`
}

// View is the enrichment of one CVE, computed from every source the store
// holds for it; watchlist entries show it and its changes are notified.
type View struct {
	ID          string  `json:"id"`
	Description string  `json:"description"`
	State       string  `json:"state"`
	Published   *string `json:"published"`
	Modified    *string `json:"modified"`
	// Primary is the score entries show: v3.1, else v4.0, else v3.0, else v2.
	Primary     *Score  `json:"primary"`
	Scores      []Score `json:"scores"`
	Vendor      string  `json:"vendor"`
	Product     string  `json:"product"`
	PatchStatus string  `json:"patch_status"`
	// PatchBasis says what the status rests on: a reference tagged as a
	// patch, advisory or release notes; a fixed version in the affected
	// data; KEV's required action; "" for none.
	PatchBasis  string     `json:"patch_basis,omitempty"`
	PatchRefs   []string   `json:"patch_references"`
	ExploitRefs []string   `json:"exploit_references"`
	KEV         *KEV       `json:"kev"`
	EPSS        *EPSS      `json:"epss"`
	CWEs        []string   `json:"cwes"`
	SSVC        *feed.SSVC `json:"ssvc"`
	Sources     []string   `json:"sources"`
}

// Targets is what assets are matched against: NVD's vulnerable CPE ranges,
// and the products the CVE 5 record names (used when there is no CPE data).
type Targets struct {
	CPEMatches []feed.CPEMatch `json:"cpe_matches,omitempty"`
	Affected   []feed.Affected `json:"affected,omitempty"`
}

// decodeView reads a stored view, within the feed's caps: a view stored
// before they held (an import by an older release) may carry a 15 MiB
// description, which an answer then shows cut as an import now cuts it.
// Importing the file again stores it cut.
func decodeView(id string, raw []byte) (View, error) {
	var v View
	if err := json.Unmarshal(raw, &v); err != nil {
		return View{}, fmt.Errorf("view of %s: %w", id, err)
	}
	v.Description = valid.Clip(v.Description, feed.MaxDescription)
	if k := v.KEV; k != nil {
		k.Name, k.RequiredAction = valid.Clip(k.Name, feed.MaxName), valid.Clip(k.RequiredAction, feed.MaxText)
		k.DateAdded, k.DueDate, k.RansomwareUse = valid.Clip(k.DateAdded, feed.MaxWord), valid.Clip(k.DueDate, feed.MaxWord),
			valid.Clip(k.RansomwareUse, feed.MaxWord)
	}
	v.PatchRefs, _ = valid.ClipList(v.PatchRefs, 2*feed.MaxReferences) // NVD's and CVE 5's
	v.ExploitRefs, _ = valid.ClipList(v.ExploitRefs, 2*feed.MaxReferences)
	v.Scores, _ = valid.ClipList(v.Scores, 2*feed.MaxMetrics)
	v.CWEs, _ = valid.ClipList(v.CWEs, 3*feed.MaxCWEs) // NVD's, CVE 5's and KEV's
	return v, nil
}

// Severity is the primary score's severity ("" without a score).
func (v *View) Severity() string {
	if v.Primary == nil {
		return ""
	}
	return cvss.Severity(v.Primary.Score)
}

// sources is what the store holds of one CVE.
type sources struct {
	nvd, cve5 *feed.CVE
	kev       *feed.KEV
	epss      *feed.EPSSScore
}

// buildView merges the sources: NVD's analysis first (scores, CPE
// configurations, reference tags), the CVE 5 record for what NVD lacks
// (the CNA's and CISA's scores, affected products, SSVC), KEV and EPSS on top.
func buildView(id string, s sources) (View, Targets) {
	v := View{ID: id, PatchStatus: PatchUnknown, Scores: []Score{}, PatchRefs: []string{}, ExploitRefs: []string{}, CWEs: []string{},
		Sources: []string{}}
	var t Targets
	var refs []feed.Reference
	for _, rec := range []*feed.CVE{s.nvd, s.cve5} {
		if rec == nil {
			continue
		}
		v.Sources = append(v.Sources, string(rec.Source))
		if v.Description == "" {
			v.Description = rec.Description
		}
		if v.State == "" {
			v.State = rec.State
		}
		if v.Published == nil && !rec.Published.IsZero() {
			v.Published = timestamp.Optional(&rec.Published)
		}
		if !rec.Modified.IsZero() && (v.Modified == nil || timestamp.Format(rec.Modified) > *v.Modified) {
			v.Modified = timestamp.Optional(&rec.Modified)
		}
		for _, m := range rec.Metrics {
			v.Scores = append(v.Scores, score(m))
		}
		for _, c := range rec.CWEs {
			if !slices.Contains(v.CWEs, c) {
				v.CWEs = append(v.CWEs, c)
			}
		}
		refs = append(refs, rec.References...)
		t.CPEMatches = append(t.CPEMatches, rec.CPEMatches...)
		t.Affected = append(t.Affected, rec.Affected...)
		if rec.SSVC != nil && v.SSVC == nil {
			v.SSVC = rec.SSVC
		}
	}
	v.Primary = primary(v.Scores)
	v.Vendor, v.Product = vendorProduct(t.CPEMatches, t.Affected)
	if s.kev != nil {
		v.Sources = append(v.Sources, "kev")
		v.KEV = &KEV{DateAdded: s.kev.DateAdded, DueDate: s.kev.DueDate, RansomwareUse: s.kev.KnownRansomware,
			RequiredAction: s.kev.RequiredAction, Name: s.kev.Name}
		if v.Vendor == "" {
			v.Vendor, v.Product = cpe.Normalize(s.kev.VendorProject), cpe.Normalize(s.kev.Product)
		}
		for _, c := range s.kev.CWEs {
			if !slices.Contains(v.CWEs, c) {
				v.CWEs = append(v.CWEs, c)
			}
		}
	}
	if s.epss != nil {
		v.Sources = append(v.Sources, "epss")
		v.EPSS = &EPSS{Score: s.epss.Score, Percentile: s.epss.Percentile, Date: s.epss.ScoreDate}
	}
	v.PatchStatus, v.PatchBasis, v.PatchRefs, v.ExploitRefs = patchAndExploits(refs, v.KEV, fixedVersionKnown(t), s.nvd != nil || s.cve5 != nil)
	return v, t
}

// fixedVersionKnown reports whether the affected data names a version
// that fixes the CVE: an NVD range's excluded end, or a CVE 5 version
// range's lessThan or a version it says is unaffected.
func fixedVersionKnown(t Targets) bool {
	for _, m := range t.CPEMatches {
		if m.Vulnerable && m.EndExcluding != "" {
			return true
		}
	}
	for _, a := range t.Affected {
		for _, v := range a.Versions {
			if v.LessThan != "" && v.LessThan != "*" || strings.EqualFold(v.Status, "unaffected") {
				return true
			}
		}
	}
	return false
}

func score(m feed.Metric) Score {
	sc := Score{Version: m.Version, Vector: m.Vector, Score: m.BaseScore, Severity: strings.ToLower(m.Severity), Source: m.Source}
	var computed float64
	ok := false
	switch m.Version {
	case "3.0", "3.1":
		if vec, err := cvss.ParseV3(m.Vector); err == nil {
			computed, ok = vec.BaseScore(), true
		}
	case "2.0":
		if vec, err := cvss.ParseV2(m.Vector); err == nil {
			computed, ok = vec.BaseScore(), true
		}
	}
	if ok {
		matches := math.Abs(computed-m.BaseScore) < 0.05
		sc.Computed, sc.Matches = &computed, &matches
	}
	if sc.Severity == "" {
		sc.Severity = cvss.Severity(m.BaseScore)
	}
	return sc
}

// primary picks the score entries show: NVD's own (Primary) before a CNA's
// or CISA's, by version preference.
func primary(scores []Score) *Score {
	var best *Score
	rank := func(s Score) int {
		r := map[string]int{"3.1": 40, "4.0": 30, "3.0": 20, "2.0": 10}[s.Version]
		if s.Source == "nvd@nist.gov" {
			r += 5
		}
		return r
	}
	for i := range scores {
		if best == nil || rank(scores[i]) > rank(*best) {
			best = &scores[i]
		}
	}
	if best == nil {
		return nil
	}
	out := *best
	return &out
}

// vendorProduct names the product: the most common vendor:product of the
// vulnerable CPE criteria, else the first affected entry that names one.
func vendorProduct(matches []feed.CPEMatch, affected []feed.Affected) (string, string) {
	counts := map[[2]string]int{}
	var order [][2]string
	for _, m := range matches {
		n, err := cpe.Parse(m.Criteria)
		if err != nil || n.Vendor == "*" || n.Product == "*" {
			continue
		}
		// CPE fields keep their escapes ("joomla\\!"); names are shown without.
		k := [2]string{strings.ReplaceAll(n.Vendor, `\`, ""), strings.ReplaceAll(n.Product, `\`, "")}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	var best [2]string
	for _, k := range order {
		if counts[k] > counts[best] {
			best = k
		}
	}
	if best[0] != "" {
		return best[0], best[1]
	}
	for _, a := range affected {
		if v, p := cpe.Normalize(a.Vendor), cpe.Normalize(a.Product); v != "" && v != "n/a" && p != "" && p != "n/a" {
			return v, p
		}
	}
	return "", ""
}

// patchAndExploits reads the references: a reference tagged as a patch, a
// vendor advisory (vendors publish them with the fix) or a KEV action to
// apply updates means a patch is available; KEV's "discontinue use" with no
// patch reference means none is known. A record with references and no such
// sign is no_patch_known; no record at all is unknown.
// Bases of a patch status.
const (
	PatchByReference    = "reference"           // a reference tagged Patch, Vendor Advisory or Release Notes
	PatchByFixedVersion = "fixed_version"       // the affected data names a fixed version
	PatchByKEV          = "kev_required_action" // CISA's required action is to apply updates
)

// patchAndExploits reads the references' tags: a patch is known from a
// reference tagged Patch, Vendor Advisory or Release Notes (a vendor's
// release notes of the fixed versions), else from a fixed version in the
// affected data, else from KEV's required action; it returns the status,
// its basis, and the patch and exploit references.
func patchAndExploits(refs []feed.Reference, kev *KEV, fixedVersion, haveRecord bool) (string, string, []string, []string) {
	patches, exploits := []string{}, []string{}
	for _, r := range refs {
		for _, t := range r.Tags {
			switch strings.ToLower(strings.ReplaceAll(t, " ", "-")) {
			case "patch", "vendor-advisory", "release-notes":
				if !slices.Contains(patches, r.URL) {
					patches = append(patches, r.URL)
				}
			case "exploit":
				if !slices.Contains(exploits, r.URL) {
					exploits = append(exploits, r.URL)
				}
			}
		}
	}
	switch {
	case len(patches) > 0:
		return PatchAvailable, PatchByReference, patches, exploits
	case fixedVersion:
		return PatchAvailable, PatchByFixedVersion, patches, exploits
	case kev != nil && kevSaysUpdate(kev.RequiredAction):
		return PatchAvailable, PatchByKEV, patches, exploits
	case haveRecord || kev != nil:
		return NoPatchKnown, "", patches, exploits
	}
	return PatchUnknown, "", patches, exploits
}

func kevSaysUpdate(action string) bool {
	a := strings.ToLower(action)
	return (strings.Contains(a, "apply update") || strings.Contains(a, "apply patch") || strings.Contains(a, "install update")) &&
		!strings.Contains(a, "discontinue")
}

// Change is one field of a view that an import changed.
type Change struct {
	Field  string  `json:"field"`
	Before *string `json:"from"`
	After  *string `json:"to"`
}

// notable are the fields whose change watchers are told of.
func notable(v *View) map[string]*string {
	str := func(s string) *string { return &s }
	out := map[string]*string{"cvss_score": nil, "severity": nil, "kev": str("not listed"), "exploit_references": str("0"),
		"patch_status": str(v.PatchStatus)}
	if v.Primary != nil {
		out["cvss_score"] = str(fmt.Sprintf("%.1f (CVSS %s)", v.Primary.Score, v.Primary.Version))
		out["severity"] = str(v.Severity())
	}
	if v.KEV != nil {
		out["kev"] = str("listed " + v.KEV.DateAdded)
	}
	out["exploit_references"] = str(fmt.Sprint(len(v.ExploitRefs)))
	return out
}

// changeFields, in the order notifications list them.
var changeFields = []string{"cvss_score", "severity", "kev", "exploit_references", "patch_status"}

// diff lists the notable changes from before (nil: the CVE was not in the
// store) to after.
func diff(before, after *View) []Change {
	if before == nil {
		n := notable(after)
		var parts []string
		for _, f := range changeFields {
			if n[f] != nil {
				parts = append(parts, strings.ReplaceAll(f, "_", " ")+" "+*n[f])
			}
		}
		arrived := strings.Join(parts, ", ")
		return []Change{{Field: "record", After: &arrived}}
	}
	b, a := notable(before), notable(after)
	var out []Change
	for _, f := range changeFields {
		if !equalPtr(b[f], a[f]) {
			out = append(out, Change{Field: f, Before: b[f], After: a[f]})
		}
	}
	return out
}

func equalPtr(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// recordDate is when a record last changed, for "newest record".
func recordDate(c *feed.CVE) time.Time {
	if c.Modified.After(c.Published) {
		return c.Modified
	}
	return c.Published
}
