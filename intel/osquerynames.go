package intel

import (
	"strconv"
	"strings"

	"garrison/store"
	"garrison/valid"
)

// What osquery's rows are named as: a package by its source and upstream
// version as NVD names it, the operating system by its platform.

// packageSoftware reads a row of programs, deb_packages or rpm_packages
// as a software entry named as NVD names it, and the package's key; a
// package not installed (a Debian package's config files left) is not.
func (r *osqueryReader) packageSoftware(table string, row map[string]string) (store.Software, string, bool, error) {
	var vendor, product, version, pkg string
	switch table {
	case "programs":
		vendor, product, version = row["publisher"], row["name"], row["version"]
		pkg = packageKey("program", row["name"], row["version"])
	case "deb_packages":
		if st := row["status"]; st != "" && !strings.HasSuffix(st, " installed") {
			return store.Software{}, "", false, nil
		}
		// A source package is what NVD names (libssl3 is openssl's).
		product = cmpOr(firstField(row["source"]), row["name"])
		version = upstreamVersion(row["version"])
		pkg = packageKey("deb", row["name"]+archOf(row), row["version"])
	case "rpm_packages":
		product = cmpOr(rpmSourceName(row["source"]), row["name"])
		version = upstreamVersion(row["version"])
		pkg = packageKey("rpm", row["name"]+archOf(row), row["version"]+"-"+row["release"])
	}
	product, vendor, version = strings.TrimSpace(product), strings.TrimSpace(vendor), strings.TrimSpace(version)
	if product == "" {
		return store.Software{}, "", false, nil
	}
	sw, ok := r.names[[2]string{vendor, product}]
	if !ok {
		v, p, rule, err := r.s.productVendor(r.ctx, vendor, product)
		if err != nil {
			return store.Software{}, "", false, err
		}
		sw = store.Software{Vendor: valid.Clip(cmpOr(vendor, product), maxLabel), Product: valid.Clip(product, maxLabel)}
		if v != "" {
			sw = store.Software{Vendor: v, Product: p, Rule: rule}
		}
		r.names[[2]string{vendor, product}] = sw
	}
	if strings.ContainsAny(version, " \t\n") || len(version) > maxVersion {
		version = ""
	}
	sw.Version = version
	return sw, pkg, true, nil
}

// archOf is a package's architecture as its key carries it (":amd64"):
// a multiarch host has one package of a name per architecture.
func archOf(row map[string]string) string {
	if a := strings.TrimSpace(row["arch"]); a != "" {
		return ":" + a
	}
	return ""
}

// packageKey names an installed package: its kind (the table), name and
// full version, "deb:libc6:amd64=2.13-38+deb7u10".
func packageKey(kind, name, version string) string {
	return valid.Clip(kind+":"+strings.TrimSpace(name)+"="+strings.TrimSpace(version), maxPackageKey)
}

// kindTables are the table each package kind comes from.
var kindTables = map[string]string{"program": "programs", "deb": "deb_packages", "rpm": "rpm_packages", "os": "os_version"}

// tableOfPackage is the table a package key came from.
func tableOfPackage(pkg string) string {
	kind, _, _ := strings.Cut(pkg, ":")
	return kindTables[kind]
}

// upstreamVersion is a package version without its epoch and its
// distribution's revision: "1:3.0.11-1~deb12u2" → "3.0.11". Matching
// compares the upstream version; a distribution's backported fix is not
// seen by it.
func upstreamVersion(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, ':'); i > 0 && i < 4 {
		if _, err := strconv.Atoi(v[:i]); err == nil {
			v = v[i+1:]
		}
	}
	if i := strings.LastIndexByte(v, '-'); i > 0 {
		v = v[:i]
	}
	return v
}

// rpmSourceName is a source RPM's package name: "openssl-3.0.7-24.el9.src.rpm"
// → "openssl".
func rpmSourceName(src string) string {
	src = strings.TrimSuffix(strings.TrimSpace(src), ".src.rpm")
	for range 2 { // drop release, then version
		i := strings.LastIndexByte(src, '-')
		if i <= 0 {
			return ""
		}
		src = src[:i]
	}
	return src
}

// osPlatforms names a Linux distribution or macOS as NVD does, by
// os_version's platform, with the form NVD gives its versions.
var osPlatforms = map[string]struct {
	vendor, product string
	version         func(major, minor, full string) string
}{
	"ubuntu":        {"canonical", "ubuntu_linux", func(ma, mi, _ string) string { return ma + "." + twoDigits(mi) }}, // 22.04
	"debian":        {"debian", "debian_linux", majorDotZero},                                                         // 12.0
	"rhel":          {"redhat", "enterprise_linux", majorDotZero},
	"centos":        {"centos", "centos", majorDotZero},
	"rocky":         {"rocky", "rocky_linux", majorDotZero},
	"almalinux":     {"almalinux", "almalinux", majorDotZero},
	"fedora":        {"fedoraproject", "fedora", func(ma, _, _ string) string { return ma }},
	"opensuse-leap": {"opensuse", "leap", func(ma, mi, _ string) string { return ma + "." + mi }},
	"amzn":          {"amazon", "linux", func(ma, _, _ string) string { return ma }},
	"darwin":        {"apple", "macos", func(_, _, full string) string { return full }}, // ranges of 14.2.1
}

// firstField is a value's first word: a Debian source "openssl (3.0.11-1)"
// → "openssl"; "" when it has none.
func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

func majorDotZero(major, _, _ string) string { return major + ".0" }

func twoDigits(s string) string {
	if len(s) == 1 {
		return "0" + s
	}
	return s
}

// osSoftware is the operating system as a software entry, for the CVEs
// NVD lists against the distribution itself; Windows' editions and builds
// do not map onto NVD's names by a table, so Windows gives only the OS.
func osSoftware(row map[string]string) (store.Software, bool) {
	p, ok := osPlatforms[strings.ToLower(row["platform"])]
	major := strings.TrimSpace(row["major"])
	full := firstField(row["version"])
	if !ok || major == "" && full == "" {
		return store.Software{}, false
	}
	if major == "" {
		major, _, _ = strings.Cut(full, ".")
	}
	version := p.version(major, strings.TrimSpace(row["minor"]), full)
	if strings.HasSuffix(version, ".") || version == "" {
		version = full
	}
	return store.Software{Vendor: p.vendor, Product: p.product, Version: version, Rule: "os_version: " + row["platform"]}, true
}
