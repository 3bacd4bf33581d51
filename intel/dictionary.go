package intel

import (
	"context"
	"regexp"
	"strings"

	"garrison/store"
)

// The name dictionary names software as NVD does when an inventory gives
// a publisher and a display name (Windows' "Mozilla" and "Mozilla Firefox
// (x64 en-US)") or a package's namespace and name instead of a CPE: the
// vendor and product the intelligence store's index holds (every CPE
// name its imported CVEs use), found by the first rule that finds one.
//
//	rule              tries
//	exact             the names as given
//	display name      the names cleaned: the version, architecture and
//	                  language dropped from the display name, the
//	                  publisher's own name and its company words
//	                  ("Inc.", "Corporation", "Foundation") dropped
//	only vendor       the cleaned product under the one vendor NVD names
//	                  for it, when there is exactly one
//
// The rule used is kept on the software entry (Software.Rule) and shown
// with its findings.

var (
	versionWords = regexp.MustCompile(`\s*\(([^)]*)\)|\s+v?\d+(\.\d+)+.*$|\s+(x64|x86|64-bit|32-bit|amd64)\b.*$`)
	companyWords = map[string]bool{"inc": true, "inc.": true, "corporation": true, "corp": true, "corp.": true, "llc": true, "ltd": true,
		"ltd.": true, "gmbh": true, "co.": true, "co": true, "foundation": true, "software": true, "systems": true, "technologies": true,
		"incorporated": true, "limited": true, "s.a.": true, "ag": true, "the": true}
)

// cleanPublisher drops a publisher's company words: "Mozilla Corporation"
// → "mozilla".
func cleanPublisher(s string) string {
	var kept []string
	for _, w := range strings.Fields(strings.ToLower(strings.ReplaceAll(s, ",", " "))) {
		if !companyWords[w] {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// cleanDisplayName drops a display name's version, architecture and
// language, and the publisher's name before it: "Mozilla Firefox (x64
// en-US)" from "mozilla" → "firefox".
func cleanDisplayName(name, publisher string) string {
	n := strings.ToLower(strings.TrimSpace(versionWords.ReplaceAllString(name, "")))
	if publisher != "" {
		if rest, ok := strings.CutPrefix(n, publisher+" "); ok {
			n = rest
		}
	}
	return strings.TrimSpace(n)
}

// productVendor names software as NVD does: its vendor and product and
// the rule that found them; "" when no rule finds the names in the index.
func (s *Service) productVendor(ctx context.Context, vendor, product string) (string, string, string, error) {
	vendorClean := cleanPublisher(vendor)
	productClean := cleanDisplayName(product, vendorClean)
	tries := []struct {
		rule string
		key  store.ProductKey
	}{
		{"exact", store.ProductKey{Vendor: normalizeName(vendor), Product: normalizeName(product)}},
		{"display name", store.ProductKey{Vendor: normalizeName(vendorClean), Product: normalizeName(productClean)}},
		{"display name", store.ProductKey{Vendor: normalizeName(vendorClean), Product: normalizeName(vendorClean + " " + productClean)}},
	}
	var keys []store.ProductKey
	for _, t := range tries {
		if t.key.Vendor != "" && t.key.Product != "" {
			keys = append(keys, t.key)
		}
	}
	known, err := s.cfg.Store.KnownProducts(ctx, keys)
	if err != nil {
		return "", "", "", err
	}
	for _, t := range tries {
		if known[t.key] {
			return t.key.Vendor, t.key.Product, t.rule + ": " + t.key.Vendor + ":" + t.key.Product, nil
		}
	}
	if productClean == "" {
		return "", "", "", nil
	}
	vendors, err := s.cfg.Store.VendorsOfProduct(ctx, normalizeName(productClean), 2)
	if err != nil || len(vendors) != 1 {
		return "", "", "", err
	}
	p := normalizeName(productClean)
	return vendors[0], p, "only vendor: NVD names " + p + " under " + vendors[0] + " alone", nil
}
