package intel

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"garrison/intel/cpe"
	"garrison/store"
	"garrison/wording"
)

// Fix first: an organization's open findings grouped by the one upgrade
// that closes the most of them. Each software entry of each asset is one
// group; its candidate versions are the fixed versions its findings' CVEs
// give (a range's end, excluded, or CVE 5's lessThan), and a candidate
// closes a finding when the CVE's targets no longer match the software at
// that version. The group's upgrade is the candidate closing the most
// (the lowest of equals). Groups are ranked by what they close:
// ransomware-used KEV entries, then KEV entries, then the highest EPSS,
// then the highest score, then internet-facing assets before internal.

// Upgrade is one change that closes findings.
type Upgrade struct {
	Asset            store.Asset
	Software         store.Software
	ToVersion        string          // "" when no fixed version is known
	Closes           []store.Finding // the open findings it closes
	Remaining        []store.Finding // this software's open findings it leaves
	KEV, Ransomware  int
	MaxEPSS, MaxCVSS *float64
}

// Summary words the upgrade: "Upgrade fortinet fortios on fw-604 to
// 6.2.10: closes 5, 5 of them KEV; 1 stays open".
func (u Upgrade) Summary() string {
	name := strings.TrimSpace(u.Software.Vendor + " " + u.Software.Product)
	if u.ToVersion == "" {
		return fmt.Sprintf("No fixed version of %s on %s is known for its %s: remove it, or see the vendor's advisories",
			name, u.Asset.Hostname, wording.Count(len(u.Remaining), "open finding", "open findings"))
	}
	s := fmt.Sprintf("Upgrade %s on %s to %s: closes %d", name, u.Asset.Hostname, u.ToVersion, len(u.Closes))
	if u.KEV > 0 {
		s += fmt.Sprintf(", %d of them KEV", u.KEV)
	}
	switch n := len(u.Remaining); {
	case n == 1:
		s += "; 1 stays open"
	case n > 1:
		s += fmt.Sprintf("; %d stay open", n)
	}
	return s
}

// maxRankedFindings bounds the open findings ranked.
const maxRankedFindings = 100_000

// Priorities ranks the organization's open findings by upgrade; it returns
// a page of upgrades and how many there are.
func (s *Service) Priorities(ctx context.Context, orgID string, page store.Page) ([]Upgrade, int, error) {
	open, err := s.cfg.Store.OpenFindings(ctx, orgID, maxRankedFindings)
	if err != nil {
		return nil, 0, err
	}
	type groupKey struct {
		asset string
		key   store.ProductKey
	}
	groups := map[groupKey][]store.Finding{}
	var order []groupKey
	var cveIDs, assetIDs []string
	seenCVE, seenAsset := map[string]bool{}, map[string]bool{}
	for _, f := range open {
		k := groupKey{f.AssetID, f.Key}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], f)
		if !seenCVE[f.CVEID] {
			seenCVE[f.CVEID] = true
			cveIDs = append(cveIDs, f.CVEID)
		}
		if !seenAsset[f.AssetID] {
			seenAsset[f.AssetID] = true
			assetIDs = append(assetIDs, f.AssetID)
		}
	}
	cves := map[string]cveData{}
	if err := eachChunk(cveIDs, cvesPerMatch, func(ids []string) error {
		part, err := s.loadCVEs(ctx, ids)
		for id, d := range part {
			cves[id] = d
		}
		return err
	}); err != nil {
		return nil, 0, err
	}
	assets, err := s.cfg.Store.AssetsByID(ctx, assetIDs)
	if err != nil {
		return nil, 0, err
	}
	byID := map[string]store.Asset{}
	for _, a := range assets {
		byID[a.ID] = a
	}
	upgrades := make([]Upgrade, 0, len(order))
	for _, k := range order {
		upgrades = append(upgrades, bestUpgrade(byID[k.asset], groups[k], cves))
	}
	slices.SortStableFunc(upgrades, compareUpgrades)
	total := len(upgrades)
	lo := min(page.Offset, total)
	return upgrades[lo:min(lo+page.Limit, total)], total, nil
}

// bestUpgrade finds the version that closes the most of one software
// entry's open findings.
func bestUpgrade(asset store.Asset, findings []store.Finding, cves map[string]cveData) Upgrade {
	sw := findings[0].Software
	var candidates []string
	seen := map[string]bool{}
	for _, f := range findings {
		for _, v := range fixedVersions(cves[f.CVEID].targets) {
			if !seen[v] && (sw.Version == "" || cpe.Compare(v, sw.Version) > 0) {
				seen[v] = true
				candidates = append(candidates, v)
			}
		}
	}
	slices.SortFunc(candidates, cpe.Compare)
	u := Upgrade{Asset: asset, Software: sw, Remaining: findings}
	for _, v := range candidates {
		at := sw
		at.Version = v
		m := matcherOf([]store.Asset{{ID: asset.ID, Software: []store.Software{at}}})
		var closes, remaining []store.Finding
		for _, f := range findings {
			still := false
			m.each(cves[f.CVEID].targets, func(softwareRef, cpe.MatchResult) { still = true })
			if still {
				remaining = append(remaining, f)
			} else {
				closes = append(closes, f)
			}
		}
		if len(closes) > len(u.Closes) {
			u.ToVersion, u.Closes, u.Remaining = v, closes, remaining
		}
	}
	for _, f := range u.Closes {
		if f.KEV {
			u.KEV++
		}
		if f.Ransomware {
			u.Ransomware++
		}
	}
	// Ranked by what the group holds: an upgrade closing none still
	// names the findings it cannot close.
	for _, f := range findings {
		u.MaxEPSS, u.MaxCVSS = maxOf(u.MaxEPSS, f.EPSS), maxOf(u.MaxCVSS, f.CVSS)
	}
	return u
}

// fixedVersions are the versions a CVE's targets say fix it: each range's
// excluded end, and each CVE 5 lessThan.
func fixedVersions(t Targets) []string {
	var out []string
	for _, m := range t.CPEMatches {
		if m.EndExcluding != "" {
			out = append(out, m.EndExcluding)
		}
	}
	for _, a := range t.Affected {
		for _, v := range a.Versions {
			if v.LessThan != "" && v.LessThan != "*" {
				out = append(out, v.LessThan)
			}
		}
	}
	return out
}

func maxOf(a, b *float64) *float64 {
	if b == nil || a != nil && *a >= *b {
		return a
	}
	return b
}

func orMinus(f *float64) float64 {
	if f == nil {
		return -1
	}
	return *f
}

// compareUpgrades ranks: ransomware-used KEV, KEV, EPSS, score, exposure,
// then the most closed, then host and product for a stable order.
func compareUpgrades(a, b Upgrade) int {
	allKEV := func(u Upgrade) (ransomware, kev int) {
		for _, f := range append(append([]store.Finding{}, u.Closes...), u.Remaining...) {
			if f.Ransomware {
				ransomware++
			}
			if f.KEV {
				kev++
			}
		}
		return ransomware, kev
	}
	ra, ka := allKEV(a)
	rb, kb := allKEV(b)
	return cmp.Or(
		cmp.Compare(rb, ra),
		cmp.Compare(kb, ka),
		cmp.Compare(orMinus(b.MaxEPSS), orMinus(a.MaxEPSS)),
		cmp.Compare(orMinus(b.MaxCVSS), orMinus(a.MaxCVSS)),
		cmp.Compare(boolOrder(b.Asset.InternetFacing), boolOrder(a.Asset.InternetFacing)),
		cmp.Compare(len(b.Closes), len(a.Closes)),
		strings.Compare(a.Asset.Hostname, b.Asset.Hostname),
		strings.Compare(a.Software.Product, b.Software.Product),
	)
}
