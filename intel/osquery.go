package intel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"garrison/store"
	"garrison/valid"
)

// osquery inventories: the results of osquery's programs, deb_packages,
// rpm_packages, os_version and system_info tables, in three shapes:
//
//   - one host's tables: a JSON object naming each table's rows
//     ({"system_info": [...], "deb_packages": [...]}), what running
//     `osqueryi --json` once per table gives;
//   - one table's rows (a JSON array, one `osqueryi --json` query), the host
//     named by ?hostname=;
//   - a query pack's results log (osqueryd's filesystem logger, one JSON
//     object a line) in the event, snapshot or batch format, of any number
//     of hosts (hostIdentifier), other queries' lines skipped.
//
// A table is known by its columns, not by the query's name (packs name
// queries freely). A host's full rows (one host's tables, a snapshot, the
// added rows of a query's first run, counter 0) replace its software; a
// later run's added and removed rows change the software it has, so a log
// of changes alone keeps what an earlier import gave.

// FormatOsquery is an osquery results import.
const FormatOsquery = "osquery"

// maxOsqueryLine bounds one line of a results log.
const maxOsqueryLine = 8 << 20

// osqueryTables are the tables an inventory reads.
var osqueryTables = []string{"programs", "deb_packages", "rpm_packages", "os_version", "system_info"}

// tableOf names a row's table: the one its name says (a host file's key,
// a query named after its table, "pack_inventory_deb_packages"), else the
// one its columns say.
func tableOf(name string, row map[string]string) string {
	for _, t := range osqueryTables {
		if name == t || strings.HasSuffix(name, "_"+t) || strings.HasSuffix(name, "/"+t) {
			return t
		}
	}
	return osqueryTable(row)
}

// osqueryTable names a row's table by its columns: programs (Windows),
// deb_packages, rpm_packages, os_version, system_info; "" for another.
func osqueryTable(row map[string]string) string {
	has := func(cols ...string) bool {
		for _, c := range cols {
			if _, ok := row[c]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("name", "version", "publisher") || has("name", "version", "install_location") || has("name", "identifying_number"):
		return "programs"
	case has("name", "version", "maintainer") || has("name", "version", "admindir") || has("name", "version", "arch", "revision"):
		return "deb_packages"
	case has("name", "version", "release") && (has("package_group") || has("sha1") || has("install_time") || has("epoch")):
		return "rpm_packages"
	case has("platform", "name", "version") && (has("major") || has("codename") || has("platform_like")):
		return "os_version"
	case has("hostname", "uuid") || has("hostname", "cpu_brand") || has("computer_name", "hardware_vendor"):
		return "system_info"
	}
	return ""
}

// osqueryHost gathers one host's rows in the order the file gives them.
type osqueryHost struct {
	identifier string // the log's hostIdentifier, or system_info's uuid
	hostname   string // system_info's
	os         string
	// full are the tables some of whose rows are the whole table: the
	// host's entries of those tables are replaced, its others kept.
	full      map[string]bool
	ops       []softwareOp
	inventory bool // some rows are of an inventory table
}

// softwareOp adds (or, remove, takes away) an installed package, the
// software entry it is part of, in a run of a query (run): a run's
// removals apply before its additions, whatever order its lines came in,
// so a package upgraded in place is never lost.
type softwareOp struct {
	remove bool
	run    int
	pkg    string // "deb:libc6=2.13-38+deb7u10", the table its prefix
	sw     store.Software
}

// osqueryReader reads rows into hosts.
type osqueryReader struct {
	s        *Service
	ctx      context.Context
	hosts    map[string]*osqueryHost
	order    []*osqueryHost
	problems []InventoryProblem
	skipped  int
	rows     int // inventory rows read, bounded by maxCSVRows
	// runs numbers the runs of queries a log holds (its query, counter
	// and time), in the order they come.
	runs map[string]int
	// names caches the dictionary's answer per name a file repeats.
	names map[[2]string]store.Software
}

// errTooManyHosts refuses a file of more hosts than an import takes,
// before reading more of it.
var errTooManyHosts = valid.Field("body", fmt.Sprintf("holds more than the %d hosts an import takes", MaxImportAssets))

func (r *osqueryReader) host(id string) (*osqueryHost, error) {
	id = valid.Clip(id, maxLabel) // as the identifier is stored, so that it is found again
	h := r.hosts[id]
	if h == nil {
		if len(r.order) == MaxImportAssets {
			return nil, errTooManyHosts
		}
		h = &osqueryHost{identifier: id}
		r.hosts[id] = h
		r.order = append(r.order, h)
	}
	return h, nil
}

// run numbers a log line's run of its query.
func (r *osqueryReader) run(l osqueryLine) int {
	key := l.Name + "\x00" + l.Counter.String() + "\x00" + l.UnixTime.String()
	n, ok := r.runs[key]
	if !ok {
		n = len(r.runs) + 1
		r.runs[key] = n
	}
	return n
}

// row reads one row of the host, of the table named (or, when the name
// says none, the one its columns say) in the file's run-th run of a
// query; full says it is part of its table's whole, remove that it was
// removed.
func (r *osqueryReader) row(h *osqueryHost, name string, run int, row map[string]string, full, remove bool) error {
	table := tableOf(name, row)
	h.inventory = h.inventory || table != ""
	if table != "" {
		if r.rows++; r.rows > maxCSVRows {
			return valid.Field("body", fmt.Sprintf("holds more than the %d rows an import takes", maxCSVRows))
		}
	}
	if full && table != "" && table != "system_info" {
		if h.full == nil {
			h.full = map[string]bool{}
		}
		h.full[table] = true
	}
	switch table {
	case "system_info":
		if !remove {
			h.hostname = cmpOr(hostLike(strings.TrimSuffix(row["hostname"], ".")), hostLike(row["computer_name"]))
			if u := strings.TrimSpace(row["uuid"]); u != "" {
				h.identifier = u
			}
		}
	case "os_version":
		if !remove {
			h.os = valid.Clip(strings.TrimSpace(row["name"]+" "+row["version"]), maxLabel)
		}
		if sw, ok := osSoftware(row); ok {
			h.ops = append(h.ops, softwareOp{remove: remove, run: run, pkg: packageKey("os", row["platform"], row["version"]), sw: sw})
		}
	case "programs", "deb_packages", "rpm_packages":
		sw, pkg, ok, err := r.packageSoftware(table, row)
		if err != nil {
			return err
		}
		if !ok {
			r.skipped++
			return nil
		}
		h.ops = append(h.ops, softwareOp{remove: remove, run: run, pkg: pkg, sw: sw})
	default:
		r.skipped++
	}
	return nil
}

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

// parseOsquery reads an osquery inventory of any of its three shapes.
func (s *Service) parseOsquery(ctx context.Context, body []byte, hostname string) ([]*osqueryHost, []InventoryProblem, int, error) {
	r := &osqueryReader{s: s, ctx: ctx, hosts: map[string]*osqueryHost{}, runs: map[string]int{}, names: map[[2]string]store.Software{}}
	var err error
	switch {
	case body[0] == '[':
		if hostname == "" {
			return nil, nil, 0, valid.Field("hostname", "is required: an osquery result of one query does not name its host")
		}
		var rows []map[string]any
		if err := json.Unmarshal(body, &rows); err != nil {
			return nil, nil, 0, valid.Field("body", "is not a JSON array of osquery rows: "+err.Error())
		}
		h, _ := r.host(hostname)
		h.hostname = hostname
		for _, row := range rows {
			if err := r.row(h, "", 0, stringRow(row), true, false); err != nil {
				return nil, nil, 0, err
			}
		}
	case isResultsLog(body) || severalValues(body):
		err = r.resultsLog(body)
	default:
		err = r.hostTables(body, hostname)
	}
	if err != nil {
		return nil, nil, 0, err
	}
	var hosts []*osqueryHost
	for _, h := range r.order {
		if h.inventory { // a host the file has only other queries of is left alone
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 && len(r.problems) == 0 {
		return nil, nil, 0, valid.Field("body", fmt.Sprintf("holds no rows of osquery's %s (%d rows of other queries skipped)",
			strings.Join(osqueryTables, ", "), r.skipped))
	}
	return hosts, r.problems, r.skipped, nil
}

// isResultsLog says whether a JSON body is osqueryd's results log: its
// first object names a query and the host it ran on.
func isResultsLog(body []byte) bool {
	line, _, _ := bytes.Cut(body, []byte("\n"))
	var head struct {
		Name           *string `json:"name"`
		HostIdentifier *string `json:"hostIdentifier"`
		Hostname       *string `json:"hostname"`
	}
	return json.Unmarshal(line, &head) == nil && head.Name != nil && (head.HostIdentifier != nil || head.Hostname != nil)
}

// hostTables reads one host's tables: {"table": [rows], ...}.
func (r *osqueryReader) hostTables(body []byte, hostname string) error {
	var tables map[string][]map[string]any
	if err := json.Unmarshal(body, &tables); err != nil {
		return valid.Field("body", "is JSON but neither a CycloneDX SBOM, an osquery results log nor an object of osquery tables' rows: "+err.Error())
	}
	h, _ := r.host(hostname)
	h.hostname = hostname
	// system_info first: it names the host the other tables are of.
	names := []string{"system_info", "os_version"}
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		if name != "system_info" && name != "os_version" {
			names = append(names, name)
		}
	}
	for _, name := range names {
		for _, row := range tables[name] {
			if err := r.row(h, name, 0, stringRow(row), true, false); err != nil {
				return err
			}
		}
	}
	if hostname != "" { // the request's name wins over system_info's
		h.hostname = hostname
	}
	if h.hostname == "" && h.inventory {
		return valid.Field("hostname", "is required: the file has no system_info row naming its host")
	}
	return nil
}

// osqueryLine is one line of osqueryd's results log, in any of its three
// formats.
type osqueryLine struct {
	Name           string           `json:"name"`
	HostIdentifier string           `json:"hostIdentifier"`
	Hostname       string           `json:"hostname"` // osquery before 2.x's batch format
	Counter        json.Number      `json:"counter"`
	UnixTime       json.Number      `json:"unixTime"`
	Action         string           `json:"action"`
	Columns        map[string]any   `json:"columns"`
	Snapshot       []map[string]any `json:"snapshot"`
	DiffResults    *struct {
		Added   []map[string]any `json:"added"`
		Removed []map[string]any `json:"removed"`
	} `json:"diffResults"`
}

// resultsLog reads a results log line by line; a line that is not one is
// a problem naming it.
func (r *osqueryReader) resultsLog(body []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), maxOsqueryLine)
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		where := "line " + strconv.Itoa(n)
		if n > maxCSVRows {
			r.problems = append(r.problems, InventoryProblem{where, fmt.Sprintf("is past the %d lines an import takes", maxCSVRows)})
			return nil
		}
		var l osqueryLine
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		if err := dec.Decode(&l); err != nil {
			r.problems = append(r.problems, InventoryProblem{where, "is not an osquery result: " + err.Error()})
			continue
		}
		id := strings.TrimSpace(cmpOr(l.HostIdentifier, l.Hostname))
		if id == "" || len(id) > maxHostname {
			r.problems = append(r.problems, InventoryProblem{where, "names no hostIdentifier"})
			continue
		}
		h, err := r.host(id)
		if err != nil {
			return err
		}
		first, run := l.Counter.String() == "0", r.run(l) // a query's first run: its whole table
		switch {
		case l.Snapshot != nil:
			for _, row := range l.Snapshot {
				if err = r.row(h, l.Name, run, stringRow(row), true, false); err != nil {
					return err
				}
			}
		case l.DiffResults != nil:
			for _, row := range l.DiffResults.Removed {
				if err = r.row(h, l.Name, run, stringRow(row), false, true); err != nil {
					return err
				}
			}
			for _, row := range l.DiffResults.Added {
				if err = r.row(h, l.Name, run, stringRow(row), first, false); err != nil {
					return err
				}
			}
		case l.Columns != nil && (l.Action == "added" || l.Action == "removed" || l.Action == "snapshot"):
			err = r.row(h, l.Name, run, stringRow(l.Columns), first && l.Action == "added" || l.Action == "snapshot", l.Action == "removed")
		default:
			r.problems = append(r.problems, InventoryProblem{where, `is an osquery result without columns, snapshot or diffResults, or with an action other than "added", "removed" or "snapshot"`})
		}
		if err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return valid.Field("body", "is not an osquery results log: "+err.Error())
	}
	return nil
}

// stringRow is a row with its values as osquery writes them (strings; a
// log written with numerics has numbers).
func stringRow(row map[string]any) map[string]string {
	out := make(map[string]string, len(row))
	for k, v := range row {
		switch v := v.(type) {
		case string:
			out[k] = v
		case nil:
			out[k] = ""
		default:
			b, _ := json.Marshal(v)
			out[k] = strings.Trim(string(b), `"`)
		}
	}
	return out
}

// input turns a host read into the asset to write: the host's current
// software (cur, nil for a new host), its entries of the tables the file
// gives whole (full) replaced by those rows, then each run's removals and
// additions. Entries are the packages present, grouped by the software
// they are (vendor, product, upstream version); an entry no agent
// reported (typed in, from an SBOM or a CSV) is kept as it is.
func (h *osqueryHost) input(cur *store.Asset) *AssetInput {
	a := &AssetInput{Hostname: cmpOr(h.hostname, hostLike(h.identifier)), OS: h.os, Software: []store.Software{}}
	if h.identifier != a.Hostname {
		a.Identifier = h.identifier
	}
	present := map[string]store.Software{} // by package key
	var order []string
	add := func(pkg string, sw store.Software) {
		if _, ok := present[pkg]; !ok {
			order = append(order, pkg)
		}
		sw.Packages = nil
		present[pkg] = sw
	}
	if cur != nil {
		for _, sw := range cur.Software {
			if len(sw.Packages) == 0 {
				a.Software = append(a.Software, sw)
				continue
			}
			for _, pkg := range sw.Packages {
				if !h.full[tableOfPackage(pkg)] {
					add(pkg, sw)
				}
			}
		}
	}
	ops := slices.Clone(h.ops)
	slices.SortStableFunc(ops, func(x, y softwareOp) int {
		if x.run != y.run {
			return x.run - y.run
		}
		return boolOrder(y.remove) - boolOrder(x.remove) // removals first
	})
	for _, op := range ops {
		if op.remove {
			delete(present, op.pkg)
		} else {
			add(op.pkg, op.sw)
		}
	}
	type key struct{ vendor, product, version string }
	at := map[key]int{}
	for _, pkg := range order {
		sw, ok := present[pkg]
		if !ok {
			continue
		}
		delete(present, pkg) // a package removed and added again is in order twice
		k := key{normalizeName(sw.Vendor), normalizeName(sw.Product), sw.Version}
		i, seen := at[k]
		if !seen {
			i, at[k] = len(a.Software), len(a.Software)
			a.Software = append(a.Software, sw)
		}
		if len(a.Software[i].Packages) < maxPackages {
			a.Software[i].Packages = append(a.Software[i].Packages, pkg)
		}
	}
	return a
}
