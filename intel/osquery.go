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
