package intel

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"garrison/intel/cpe"
	"garrison/store"
	"garrison/valid"
)

// Findings: every asset's software matched against the whole store, kept
// as either side changes. An asset write queues the asset, an import the
// CVEs whose targets or view it changed (in the same transaction), and
// Match drains the queue: an asset is matched against the CVEs of its
// products only, a CVE against the assets of its products only (both
// indexed by normalized vendor and product), and the first start of a
// release with findings matches everything. The watchlist's matching
// decides (matcher.each), so a finding and the watchlist never disagree.

// productKeys are the keys a software list is indexed by: each entry's
// vendor and product, and its CPE's when it has one.
func productKeys(software []store.Software) []store.ProductKey {
	seen := map[store.ProductKey]bool{}
	var out []store.ProductKey
	add := func(vendor, product string) {
		k := store.ProductKey{Vendor: normalizeName(vendor), Product: normalizeName(product)}
		if k.Vendor != "" && k.Product != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, sw := range software {
		add(sw.Vendor, sw.Product)
		if sw.CPE == "" {
			continue
		}
		if n, err := cpe.Parse(sw.CPE); err == nil {
			add(n.Vendor, n.Product)
		}
	}
	return out
}

// targetKeys are the keys a CVE's targets are indexed by: those its
// matching reads (CPE ranges when it has any, else CVE 5's products); a
// wildcard is "*".
func targetKeys(t Targets) []store.ProductKey {
	seen := map[store.ProductKey]bool{}
	var out []store.ProductKey
	add := func(vendor, product string) {
		k := store.ProductKey{Vendor: wildName(vendor), Product: wildName(product)}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	if len(t.CPEMatches) > 0 {
		for _, cm := range t.CPEMatches {
			if n, err := cpe.Parse(cm.Criteria); err == nil {
				add(n.Vendor, n.Product)
			}
		}
		return out
	}
	for _, a := range t.Affected {
		add(a.Vendor, a.Product)
	}
	return out
}

// normalizeName is a vendor or product as the index keeps it (productKey's
// halves).
func normalizeName(s string) string { return cpe.Normalize(strings.ReplaceAll(s, `\`, "")) }

// wildName is normalizeName, a wildcard or nothing being "*".
func wildName(s string) string {
	if s == "*" || s == "" || s == "-" {
		return "*"
	}
	return normalizeName(s)
}

// matchFacts are what a finding copies of a CVE's view, kept beside its
// targets (store.IntelCVE.Facts) in the view's own shape, so that matching
// reads neither the view nor the records.
type matchFacts struct {
	Primary *factScore `json:"primary"`
	KEV     *factKEV   `json:"kev"`
	EPSS    *factScore `json:"epss"`
}

type factScore struct {
	Score float64 `json:"score"`
}

type factKEV struct {
	RansomwareUse string `json:"ransomware_use"`
}

// factsOf is a view's facts, encoded.
func factsOf(v View) ([]byte, error) {
	var f matchFacts
	if v.Primary != nil {
		f.Primary = &factScore{v.Primary.Score}
	}
	if v.KEV != nil {
		f.KEV = &factKEV{v.KEV.RansomwareUse}
	}
	if v.EPSS != nil {
		f.EPSS = &factScore{v.EPSS.Score}
	}
	return json.Marshal(f)
}

// cveData is what matching reads of a CVE: its targets and facts.
type cveData struct {
	targets Targets
	view    matchFacts
}

func decodeCVE(c store.IntelCVE) (cveData, error) {
	var d cveData
	raw, err := unpack(c.Targets)
	if err != nil {
		return d, fmt.Errorf("targets of %s: %w", c.ID, err)
	}
	if err := json.Unmarshal(raw, &d.targets); err != nil {
		return d, fmt.Errorf("targets of %s: %w", c.ID, err)
	}
	if err := json.Unmarshal(c.Facts, &d.view); err != nil {
		return d, fmt.Errorf("facts of %s: %w", c.ID, err)
	}
	return d, nil
}

// findingMatches matches CVEs to assets.
func findingMatches(m *matcher, cves map[string]cveData) []store.FindingMatch {
	var out []store.FindingMatch
	for id, d := range cves {
		fm := store.FindingMatch{CVEID: id}
		if d.view.Primary != nil {
			score := d.view.Primary.Score
			fm.CVSS = &score
		}
		if d.view.KEV != nil {
			fm.KEV, fm.Ransomware = true, strings.EqualFold(d.view.KEV.RansomwareUse, "Known")
		}
		if d.view.EPSS != nil {
			e := d.view.EPSS.Score
			fm.EPSS = &e
		}
		m.each(d.targets, func(ref softwareRef, res cpe.MatchResult) {
			f := fm
			f.OrgID, f.AssetID, f.Software = ref.asset.OrgID, ref.asset.ID, ref.sw
			f.Key = store.ProductKey{Vendor: normalizeName(ref.sw.Vendor), Product: normalizeName(ref.sw.Product)}
			f.Match, f.Reason, f.VersionKnown = res.Kind, res.Reason, res.VersionKnown
			out = append(out, f)
		})
	}
	return out
}

// fixedReason says why a finding no longer matches, from the assets as
// they are now.
func fixedReason(assets map[string]*store.Asset) func(store.Finding) string {
	return func(f store.Finding) string {
		a := assets[f.AssetID]
		if a == nil {
			return "The CVE's data no longer names this software"
		}
		for _, sw := range a.Software {
			if normalizeName(sw.Vendor) == f.Key.Vendor && normalizeName(sw.Product) == f.Key.Product {
				if sw.Version != f.Software.Version {
					return fmt.Sprintf("%s %s is now at version %s, outside the vulnerable versions", sw.Vendor, sw.Product, orNone(sw.Version))
				}
				return "The CVE's data no longer names this version as vulnerable"
			}
		}
		return fmt.Sprintf("%s %s is no longer on the asset", f.Software.Vendor, f.Software.Product)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// loadCVEs reads and decodes CVEs of the store (those it lacks left out):
// their targets and facts only.
func (s *Service) loadCVEs(ctx context.Context, ids []string) (map[string]cveData, error) {
	rows, err := s.cfg.Store.IntelTargets(ctx, ids)
	if err != nil {
		return nil, err
	}
	// Decoded on every core: an asset's products name a thousand CVEs.
	decoded := make([]cveData, len(rows))
	workers := min(runtime.GOMAXPROCS(0), 1+len(rows)/128)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(rows); i += workers {
				if decoded[i], errs[w] = decodeCVE(rows[i]); errs[w] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make(map[string]cveData, len(rows))
	for i, c := range rows {
		out[c.ID] = decoded[i]
	}
	return out, nil
}

// matchAssets re-matches assets against the CVEs of their products.
func (s *Service) matchAssets(ctx context.Context, ids []string) ([]store.Finding, error) {
	assets, err := s.cfg.Store.AssetsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	var keys []store.ProductKey
	byID := map[string]*store.Asset{}
	for i := range assets {
		keys = append(keys, productKeys(assets[i].Software)...)
		byID[assets[i].ID] = &assets[i]
	}
	cveIDs, err := s.cfg.Store.CVEsOfProducts(ctx, keys)
	if err != nil {
		return nil, err
	}
	cves, err := s.loadCVEs(ctx, cveIDs)
	if err != nil {
		return nil, err
	}
	matches := findingMatches(matcherOf(assets), cves)
	// A deleted asset's findings went with it; the scope is the assets read.
	scope := make([]string, 0, len(assets))
	for _, a := range assets {
		scope = append(scope, a.ID)
	}
	return s.cfg.Store.SyncFindings(ctx, store.FindingScope{AssetIDs: scope}, matches, fixedReason(byID), findingNotice(byID))
}

// matchCVEs re-matches CVEs against the assets of their products.
func (s *Service) matchCVEs(ctx context.Context, ids []string) ([]store.Finding, error) {
	cves, err := s.loadCVEs(ctx, ids)
	if err != nil {
		return nil, err
	}
	var keys []store.ProductKey
	for _, d := range cves {
		keys = append(keys, targetKeys(d.targets)...)
	}
	assets, err := s.cfg.Store.AssetsOfProducts(ctx, keys)
	if err != nil {
		return nil, err
	}
	byID := map[string]*store.Asset{}
	for i := range assets {
		byID[assets[i].ID] = &assets[i]
	}
	return s.cfg.Store.SyncFindings(ctx, store.FindingScope{CVEIDs: ids}, findingMatches(matcherOf(assets), cves), fixedReason(byID),
		findingNotice(byID))
}

// notifyCVSS is the score from which a new finding is notified, as a
// KEV-listed one always is.
const notifyCVSS = 9.0

// maxNoticeLines is how many findings a notification names.
const maxNoticeLines = 10

// findingNotice words the organization's notification of the findings a
// match opened or reopened that need a person soon: KEV-listed, or scored
// notifyCVSS and up. One notification per organization and match, however
// many: an upgrade's first full match says it once.
func findingNotice(assets map[string]*store.Asset) func(string, []store.Finding) *store.Notification {
	return func(orgID string, opened []store.Finding) *store.Notification {
		var urgent []store.Finding
		for _, f := range opened {
			if f.KEV || f.CVSS != nil && *f.CVSS >= notifyCVSS {
				urgent = append(urgent, f)
			}
		}
		if len(urgent) == 0 {
			return nil
		}
		slices.SortStableFunc(urgent, func(a, b store.Finding) int {
			if a.KEV != b.KEV {
				return boolOrder(b.KEV) - boolOrder(a.KEV)
			}
			return cmp.Compare(cvssOf(b), cvssOf(a))
		})
		var lines []string
		for _, f := range urgent[:min(len(urgent), maxNoticeLines)] {
			host := f.AssetID
			if a := assets[f.AssetID]; a != nil {
				host = a.Hostname
			}
			var tags []string
			if f.KEV {
				tags = append(tags, "KEV")
			}
			if f.Ransomware {
				tags = append(tags, "ransomware")
			}
			if f.CVSS != nil {
				tags = append(tags, fmt.Sprintf("CVSS %.1f", *f.CVSS))
			}
			lines = append(lines, fmt.Sprintf("%s (%s) on %s: %s", f.CVEID, strings.Join(tags, ", "), host,
				strings.TrimSpace(f.Software.Vendor+" "+f.Software.Product+" "+f.Software.Version)))
		}
		if more := len(urgent) - maxNoticeLines; more > 0 {
			lines = append(lines, fmt.Sprintf("… and %d more (GET /findings?status=open)", more))
		}
		title := fmt.Sprintf("%d new findings, KEV-listed or critical", len(urgent))
		if len(urgent) == 1 {
			title = "New finding: " + lines[0]
		}
		return &store.Notification{Audience: store.AudienceOrg, Kind: "finding", Title: valid.Clip(title, 200),
			Body: strings.Join(lines, "\n"), Ref: urgent[0].ID}
	}
}

func boolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cvssOf(f store.Finding) float64 {
	if f.CVSS == nil {
		return -1
	}
	return *f.CVSS
}
