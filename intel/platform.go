package intel

import (
	"strings"

	"garrison/intel/cpe"
	"garrison/store"
)

// An NVD AND configuration names a vulnerable product only running on a
// platform ("Acrobat on Windows or macOS"): feed.CPEMatch.RunningOn. An
// asset runs a platform when its software lists it (vendor and product,
// any version), or when its OS says so: the platform's product words all
// in the OS text ("windows_server_2019" in "Windows Server 2019
// Datacenter"), with the names distributions and vendors use for the same
// platforms (a Linux kernel runs on Ubuntu). An asset whose OS is not
// given, and whose software names no platform, may run it: it matches,
// its reason saying the platform was not checked.

// platformAliases are other words an OS text uses for a platform product.
var platformAliases = map[string][]string{
	"linux_kernel":     {"linux", "ubuntu", "debian", "centos", "rhel", "red_hat", "fedora", "suse", "alpine", "rocky", "almalinux", "amazon_linux", "oracle_linux"},
	"debian_linux":     {"debian"},
	"mac_os_x":         {"macos", "mac_os", "os_x", "darwin"},
	"macos":            {"macos", "mac_os", "os_x", "darwin"},
	"iphone_os":        {"ios", "iphone", "ipados"},
	"enterprise_linux": {"rhel", "red_hat_enterprise_linux"},
}

// onPlatform reports whether the asset runs one of the platforms, adding
// to the match's reason what was found.
func onPlatform(a *store.Asset, runningOn string, res *cpe.MatchResult) bool {
	platforms := strings.Split(runningOn, "|")
	var names []string
	for _, p := range platforms {
		n, err := cpe.Parse(p)
		if err != nil {
			continue
		}
		names = append(names, n.Product)
		if runs, how := runsPlatform(a, n); runs {
			res.Reason += "; running on " + how
			return true
		}
	}
	if strings.TrimSpace(a.OS) == "" && !listsPlatform(a) {
		res.Reason += "; only running on " + strings.Join(names, " or ") + ", which the asset's OS (not given) may be"
		return true
	}
	return false
}

// runsPlatform says whether the asset runs one platform, and how it is
// known.
func runsPlatform(a *store.Asset, p cpe.Name) (bool, string) {
	vendor, product := normalizeName(unescapeCPE(p.Vendor)), normalizeName(unescapeCPE(p.Product))
	for _, sw := range a.Software {
		if normalizeName(sw.Vendor) == vendor && normalizeName(sw.Product) == product {
			return true, sw.Vendor + " " + sw.Product
		}
	}
	if a.OS == "" {
		return false, ""
	}
	os := normalizeName(a.OS)
	words := strings.Split(os, "_")
	has := func(phrase string) bool { // a run of whole words
		return strings.Contains("_"+os+"_", "_"+phrase+"_")
	}
	for _, alias := range platformAliases[product] {
		if has(alias) {
			return true, a.OS
		}
	}
	for _, w := range strings.Split(product, "_") {
		found := false
		for _, have := range words {
			if have == w {
				found = true
				break
			}
		}
		if !found {
			return false, ""
		}
	}
	return true, a.OS
}

// listsPlatform reports whether the asset's software names an operating
// system (a CPE of part o), which then says what it runs.
func listsPlatform(a *store.Asset) bool {
	for _, sw := range a.Software {
		if sw.CPE == "" {
			continue
		}
		if n, err := cpe.Parse(sw.CPE); err == nil && n.Part == "o" {
			return true
		}
	}
	return false
}

// unescapeCPE drops a CPE 2.3 name's quoting backslashes.
func unescapeCPE(s string) string { return strings.ReplaceAll(s, `\`, "") }
