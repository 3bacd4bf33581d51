package intel

import (
	"fmt"
	"testing"

	"garrison/store"
)

// A row's table is known by its columns (packs name their queries freely).
func TestOsqueryTable(t *testing.T) {
	for _, c := range []struct {
		cols []string
		want string
	}{
		{[]string{"name", "version", "install_location", "install_source", "language", "publisher", "uninstall_string", "install_date", "identifying_number"}, "programs"},
		{[]string{"name", "version", "source", "size", "arch", "revision", "status", "maintainer", "section", "priority", "admindir"}, "deb_packages"},
		{[]string{"name", "version", "arch", "revision"}, "deb_packages"},
		{[]string{"name", "version", "release", "source", "size", "sha1", "arch", "epoch", "install_time", "vendor", "package_group"}, "rpm_packages"},
		{[]string{"name", "version", "release", "epoch"}, "rpm_packages"},
		{[]string{"name", "version", "major", "minor", "patch", "build", "platform", "platform_like", "codename", "arch"}, "os_version"},
		{[]string{"hostname", "uuid", "cpu_type", "cpu_brand", "hardware_vendor", "computer_name"}, "system_info"},
		{[]string{"name", "version"}, ""},                     // which packages?
		{[]string{"pid", "name", "path", "cmdline"}, ""},      // processes
		{[]string{"name", "version", "release"}, ""},          // not enough of rpm's
		{[]string{"platform", "name", "version", "arch"}, ""}, // not enough of os_version's
	} {
		row := map[string]string{}
		for _, col := range c.cols {
			row[col] = ""
		}
		if got := osqueryTable(row); got != c.want {
			t.Errorf("%v: %q, want %q", c.cols, got, c.want)
		}
	}
}

// Matching compares upstream versions: a package's epoch and its
// distribution's revision are dropped, a source RPM names its package.
func TestPackageVersions(t *testing.T) {
	for in, want := range map[string]string{
		"3.0.11-1~deb12u2":     "3.0.11",
		"1:2.9.4+dfsg1-7":      "2.9.4+dfsg1",
		"2:8.2.3995-1ubuntu2":  "8.2.3995",
		"124.0.6367.91":        "124.0.6367.91",
		"7.81.0-1ubuntu1.15":   "7.81.0",
		"1.2.3-4-5":            "1.2.3-4",
		"":                     "",
		"10:1.0":               "1.0",
		"12345:1.0":            "12345:1.0", // a prefix that long is no epoch
		"abc:1.0-1":            "abc:1.0",
		" 3.0.7-24.el9 ":       "3.0.7",
		"20230311.0~deb12u1-1": "20230311.0~deb12u1",
	} {
		if got := upstreamVersion(in); got != want {
			t.Errorf("upstreamVersion(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"openssl-3.0.7-24.el9.src.rpm":            "openssl",
		"python-urllib3-1.26.5-3.el9.src.rpm":     "python-urllib3",
		"kernel-5.14.0-362.8.1.el9_3.src.rpm":     "kernel",
		"":                                        "",
		"weird.src.rpm":                           "",
		"glibc-2.34-83.el9_3.7.src.rpm":           "glibc",
		"NetworkManager-1.44.0-3.el9.src.rpm":     "NetworkManager",
		"  openssh-8.7p1-34.el9_3.3.src.rpm     ": "openssh",
	} {
		if got := rpmSourceName(in); got != want {
			t.Errorf("rpmSourceName(%q) = %q, want %q", in, got, want)
		}
	}
}

// The operating system is a software entry when NVD names the platform.
func TestOsSoftware(t *testing.T) {
	for _, c := range []struct {
		row  map[string]string
		want string
	}{
		{map[string]string{"platform": "ubuntu", "name": "Ubuntu", "version": "22.04.3 LTS (Jammy Jellyfish)", "major": "22", "minor": "4"}, "canonical ubuntu_linux 22.04"},
		{map[string]string{"platform": "debian", "name": "Debian GNU/Linux", "version": "12 (bookworm)", "major": "12", "minor": "0"}, "debian debian_linux 12.0"},
		{map[string]string{"platform": "rhel", "name": "Red Hat Enterprise Linux", "version": "9.3 (Plow)", "major": "9", "minor": "3"}, "redhat enterprise_linux 9.0"},
		{map[string]string{"platform": "darwin", "name": "macOS", "version": "14.2.1", "major": "14", "minor": "2"}, "apple macos 14.2.1"},
		{map[string]string{"platform": "debian", "name": "Debian GNU/Linux", "version": "12 (bookworm)"}, "debian debian_linux 12.0"},
		{map[string]string{"platform": "fedora", "name": "Fedora Linux", "version": "39 (Server Edition)", "major": "39", "minor": "0"}, "fedoraproject fedora 39"},
		{map[string]string{"platform": "ubuntu", "name": "Ubuntu"}, "none"},
		{map[string]string{"platform": "windows", "name": "Microsoft Windows 10 Pro", "version": "10.0.19045"}, "none"},
	} {
		got := "none"
		if sw, ok := osSoftware(c.row); ok {
			got = sw.Vendor + " " + sw.Product + " " + sw.Version
		}
		if got != c.want {
			t.Errorf("%v: %q, want %q", c.row, got, c.want)
		}
	}
}

// A table given whole replaces only that table's entries; a run's
// changes apply removals first; a source package's entry stays while any
// of its binary packages does; software no agent reported is kept.
func TestOsqueryHostInput(t *testing.T) {
	deb := func(product, version string, pkgs ...string) store.Software {
		return store.Software{Vendor: product, Product: product, Version: version, Packages: pkgs}
	}
	cur := &store.Asset{Hostname: "web-1", Software: []store.Software{
		deb("openssl", "3.0.11", "deb:libssl3:amd64=3.0.11-1~deb12u1", "deb:libssl-dev:amd64=3.0.11-1~deb12u1"),
		deb("curl", "7.88.1", "deb:curl:amd64=7.88.1-10"),
		deb("debian_linux", "12.0", "os:debian=12 (bookworm)"),
		{Vendor: "fortinet", Product: "fortios", Version: "6.0.4"}, // typed in
	}}
	op := func(run int, remove bool, sw store.Software) softwareOp {
		return softwareOp{run: run, remove: remove, pkg: sw.Packages[0], sw: store.Software{Vendor: sw.Vendor, Product: sw.Product, Version: sw.Version}}
	}
	for _, c := range []struct {
		name string
		host osqueryHost
		cur  *store.Asset
		want string
	}{
		{"a table given whole replaces that table's entries only",
			osqueryHost{hostname: "web-1", full: map[string]bool{"os_version": true}, ops: []softwareOp{op(1, false, deb("debian_linux", "12.0", "os:debian=12.4"))}},
			cur, "[fortinet:fortios 6.0.4 [] openssl:openssl 3.0.11 [deb:libssl3:amd64=3.0.11-1~deb12u1 deb:libssl-dev:amd64=3.0.11-1~deb12u1] " +
				"curl:curl 7.88.1 [deb:curl:amd64=7.88.1-10] debian_linux:debian_linux 12.0 [os:debian=12.4]]"},
		{"one binary of a source removed keeps the source",
			osqueryHost{hostname: "web-1", ops: []softwareOp{op(1, true, deb("openssl", "3.0.11", "deb:libssl-dev:amd64=3.0.11-1~deb12u1"))}},
			cur, "[fortinet:fortios 6.0.4 [] openssl:openssl 3.0.11 [deb:libssl3:amd64=3.0.11-1~deb12u1] curl:curl 7.88.1 [deb:curl:amd64=7.88.1-10] " +
				"debian_linux:debian_linux 12.0 [os:debian=12 (bookworm)]]"},
		{"a revision bump logged added-then-removed keeps the package",
			osqueryHost{hostname: "web-1", ops: []softwareOp{op(2, false, deb("curl", "7.88.1", "deb:curl:amd64=7.88.1-10+deb12u5")),
				op(2, true, deb("curl", "7.88.1", "deb:curl:amd64=7.88.1-10"))}},
			cur, "[fortinet:fortios 6.0.4 [] openssl:openssl 3.0.11 [deb:libssl3:amd64=3.0.11-1~deb12u1 deb:libssl-dev:amd64=3.0.11-1~deb12u1] " +
				"debian_linux:debian_linux 12.0 [os:debian=12 (bookworm)] curl:curl 7.88.1 [deb:curl:amd64=7.88.1-10+deb12u5]]"},
		{"every binary of a source upgraded",
			osqueryHost{hostname: "web-1", ops: []softwareOp{
				op(3, true, deb("openssl", "3.0.11", "deb:libssl3:amd64=3.0.11-1~deb12u1")), op(3, true, deb("openssl", "3.0.11", "deb:libssl-dev:amd64=3.0.11-1~deb12u1")),
				op(3, false, deb("openssl", "3.0.13", "deb:libssl3:amd64=3.0.13-1~deb12u1"))}},
			cur, "[fortinet:fortios 6.0.4 [] curl:curl 7.88.1 [deb:curl:amd64=7.88.1-10] debian_linux:debian_linux 12.0 [os:debian=12 (bookworm)] " +
				"openssl:openssl 3.0.13 [deb:libssl3:amd64=3.0.13-1~deb12u1]]"},
		{"a new host", osqueryHost{hostname: "web-2", full: map[string]bool{"deb_packages": true}, ops: []softwareOp{
			op(0, false, deb("curl", "8.5.0", "deb:curl:amd64=8.5.0-2")), op(0, false, deb("curl", "8.5.0", "deb:libcurl4:amd64=8.5.0-2"))}},
			nil, "[curl:curl 8.5.0 [deb:curl:amd64=8.5.0-2 deb:libcurl4:amd64=8.5.0-2]]"},
	} {
		in := c.host.input(c.cur)
		var got []string
		for _, s := range in.Software {
			got = append(got, fmt.Sprintf("%s:%s %s %v", s.Vendor, s.Product, s.Version, s.Packages))
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, got, c.want)
		}
	}
	if in := (&osqueryHost{identifier: "4C4C4544-0051-3610-8052-B4C04F4B4D32", hostname: "lap-7"}).input(nil); in.Identifier == "" || in.Hostname != "lap-7" {
		t.Errorf("identifier %q, hostname %q", in.Identifier, in.Hostname)
	}
	if in := (&osqueryHost{identifier: "LAP-7"}).input(nil); in.Identifier != "LAP-7" || in.Hostname != "lap-7" {
		t.Errorf("a host named only by its identifier: %q, %q", in.Identifier, in.Hostname)
	}
}
