package intel

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"garrison/intel/cpe"
	"garrison/store"
	"garrison/valid"
)

// Inventory imports (POST /assets/import): a CycloneDX SBOM (1.2 to 1.6,
// JSON; its components with cpe or purl) is one asset's software, named
// by the request or the SBOM's own component; a CSV with a header row
// names its columns (hostname and product required; vendor, version, cpe,
// ip, os, owner, internet_facing) and gives one software entry a row,
// grouped by host. Each host in the file replaces that asset's software
// list (the file is its inventory) and keeps what the file does not give
// (ip, os, owner) as it was. A component without a vendor or a CPE is
// named as NVD names its product (productVendor), the rule kept in
// Software.Rule and shown on its findings.

// Import formats.
const (
	FormatCycloneDX = "cyclonedx"
	FormatCSV       = "csv"
)

// Limits of an import.
const (
	MaxImportAssets = 1000
	maxCSVRows      = 200_000
)

// InventoryProblem is a record of the file Garrison could not read.
type InventoryProblem struct {
	Where  string // "line 4", "components.12"
	Reason string
}

// InventoryChange is what an import did to one asset.
type InventoryChange struct {
	Asset                   store.Asset
	Created                 bool
	Added, Changed, Removed []store.Software // Changed: the new entries of a changed version
}

// InventoryReport is what an import did.
type InventoryReport struct {
	Format   string
	Assets   []InventoryChange
	Problems []InventoryProblem
	// Skipped counts records read and left alone: an osquery log's rows of
	// other tables, a package not installed.
	Skipped int
}

// InventoryOptions are the request's.
type InventoryOptions struct {
	Hostname string // an SBOM's asset
	Partial  bool   // keep the good assets of a file with bad records
}

// ImportInventory reads an inventory file and writes its assets, all or
// nothing unless partial.
func (s *Service) ImportInventory(ctx context.Context, orgID string, body []byte, opt InventoryOptions) (InventoryReport, error) {
	format, inputs, problems, skipped, err := s.parseInventory(ctx, orgID, body, opt)
	if err != nil {
		return InventoryReport{}, err
	}
	rep := InventoryReport{Format: format, Problems: problems, Skipped: skipped}
	if len(problems) > 0 && !opt.Partial {
		var p valid.Problems
		for i, pr := range problems {
			if i == 20 {
				break
			}
			p.Add(pr.Where, pr.Reason+"; nothing was stored")
		}
		return rep, p.Err()
	}
	if len(inputs) == 0 {
		return rep, valid.Field("body", "holds no asset to import")
	}
	if len(inputs) > MaxImportAssets {
		return rep, valid.Field("body", fmt.Sprintf("holds %d hosts; an import takes at most %d", len(inputs), MaxImportAssets))
	}
	before := map[string]store.Asset{}
	for _, in := range inputs {
		if a, err := s.cfg.Store.AssetByHostname(ctx, orgID, in.Hostname); err == nil {
			before[in.Hostname] = a
			in.keep(a)
		} else if !errors.Is(err, store.ErrNotFound) {
			return rep, err
		}
	}
	assets, created, err := s.PutAssets(ctx, orgID, derefInputs(inputs), true)
	if err != nil {
		return rep, err
	}
	for i, a := range assets {
		ch := InventoryChange{Asset: a, Created: created[i]}
		ch.Added, ch.Changed, ch.Removed = softwareDiff(before[a.Hostname].Software, a.Software)
		rep.Assets = append(rep.Assets, ch)
	}
	return rep, nil
}

func derefInputs(in []*AssetInput) []AssetInput {
	out := make([]AssetInput, len(in))
	for i, a := range in {
		out[i] = *a
	}
	return out
}

// keep fills what the file did not give from the asset as it is.
func (a *AssetInput) keep(cur store.Asset) {
	if a.IP == "" {
		a.IP = cur.IP
	}
	if a.OS == "" {
		a.OS = cur.OS
	}
	if a.Owner == "" {
		a.Owner = cur.Owner
	}
	if !a.InternetFacing {
		a.InternetFacing = cur.InternetFacing
	}
}

// softwareDiff compares two software lists by vendor and product.
func softwareDiff(old, new []store.Software) (added, changed, removed []store.Software) {
	key := func(s store.Software) store.ProductKey {
		return store.ProductKey{Vendor: normalizeName(s.Vendor), Product: normalizeName(s.Product)}
	}
	was := map[store.ProductKey]store.Software{}
	for _, s := range old {
		was[key(s)] = s
	}
	is := map[store.ProductKey]bool{}
	for _, s := range new {
		is[key(s)] = true
		prev, ok := was[key(s)]
		switch {
		case !ok:
			added = append(added, s)
		case prev.Version != s.Version:
			changed = append(changed, s)
		}
	}
	for _, s := range old {
		if !is[key(s)] {
			removed = append(removed, s)
		}
	}
	return added, changed, removed
}

// parseInventory detects the format and reads the file into assets.
func (s *Service) parseInventory(ctx context.Context, orgID string, body []byte, opt InventoryOptions) (string, []*AssetInput, []InventoryProblem, int, error) {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) == 0 {
		return "", nil, nil, 0, valid.Field("body", "is empty: send a CycloneDX SBOM (JSON), osquery results or a CSV with a header row")
	}
	switch {
	case trimmed[0] == '{' && !isResultsLog(trimmed) && !severalValues(trimmed) && isCycloneDX(trimmed):
		in, problems, err := s.parseCycloneDX(ctx, trimmed, opt.Hostname)
		return FormatCycloneDX, in, problems, 0, err
	case trimmed[0] == '{' || trimmed[0] == '[':
		hosts, problems, skipped, err := s.parseOsquery(ctx, trimmed, opt.Hostname)
		if err != nil {
			return "", nil, nil, 0, err
		}
		in, err := s.osqueryInputs(ctx, orgID, hosts)
		return FormatOsquery, in, problems, skipped, err
	}
	in, problems, err := s.parseInventoryCSV(ctx, trimmed)
	return FormatCSV, in, problems, 0, err
}

// severalValues says whether a body holds more than one JSON value (a
// results log whose first line is not one Garrison can read).
func severalValues(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	var first json.RawMessage
	if dec.Decode(&first) != nil {
		return bytes.Count(bytes.TrimSpace(body), []byte("\n")) > 0 && bytes.HasPrefix(bytes.TrimSpace(body[bytes.IndexByte(body, '\n')+1:]), []byte("{"))
	}
	return dec.More()
}

// isCycloneDX says whether a JSON object names itself a CycloneDX BOM.
func isCycloneDX(body []byte) bool {
	var head struct {
		BOMFormat *string `json:"bomFormat"`
	}
	return json.Unmarshal(body, &head) != nil || head.BOMFormat != nil // unreadable JSON: CycloneDX's reading says why
}

// osqueryInputs finds each osquery host's asset, by its identifier first
// (keeping the asset's host name), then by host name, and makes its input.
func (s *Service) osqueryInputs(ctx context.Context, orgID string, hosts []*osqueryHost) ([]*AssetInput, error) {
	out := make([]*AssetInput, 0, len(hosts))
	for _, h := range hosts {
		var cur *store.Asset
		byID, err := s.cfg.Store.AssetByIdentifier(ctx, orgID, h.identifier)
		switch {
		case err == nil:
			cur, h.hostname = &byID, byID.Hostname
		case !errors.Is(err, store.ErrNotFound):
			return nil, err
		default:
			byName, err := s.cfg.Store.AssetByHostname(ctx, orgID, cmpOr(h.hostname, hostLike(h.identifier)))
			if err == nil {
				cur = &byName
			} else if !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
		}
		out = append(out, h.input(cur))
	}
	return out, nil
}

// cdxComponent is a CycloneDX component, as far as Garrison reads it.
type cdxComponent struct {
	Type       string         `json:"type"`
	Name       string         `json:"name"`
	Group      string         `json:"group"`
	Version    string         `json:"version"`
	Publisher  string         `json:"publisher"`
	CPE        string         `json:"cpe"`
	PURL       string         `json:"purl"`
	Components []cdxComponent `json:"components"`
}

// maxComponents bounds the components an SBOM may list.
const maxComponents = 10_000

func (s *Service) parseCycloneDX(ctx context.Context, body []byte, hostname string) ([]*AssetInput, []InventoryProblem, error) {
	var bom struct {
		BOMFormat   string `json:"bomFormat"`
		SpecVersion string `json:"specVersion"`
		Metadata    struct {
			Component *cdxComponent `json:"component"`
		} `json:"metadata"`
		Components []cdxComponent `json:"components"`
	}
	if err := json.Unmarshal(body, &bom); err != nil {
		return nil, nil, valid.Field("body", "is not JSON Garrison can read: "+err.Error())
	}
	if bom.BOMFormat != "CycloneDX" {
		return nil, nil, valid.Field("body", `is JSON but not a CycloneDX SBOM (its bomFormat is not "CycloneDX")`)
	}
	if v, err := strconv.ParseFloat(bom.SpecVersion, 64); err != nil || v < 1.2 || v > 1.6 {
		return nil, nil, valid.Field("body", fmt.Sprintf("is CycloneDX %q; Garrison reads 1.2 to 1.6", bom.SpecVersion))
	}
	if hostname == "" && bom.Metadata.Component != nil {
		hostname = hostLike(bom.Metadata.Component.Name)
	}
	if hostname == "" {
		return nil, nil, valid.Field("hostname", "is required: the SBOM names no component of its own, so say which asset it describes")
	}
	asset := &AssetInput{Hostname: hostname, Software: []store.Software{}}
	var problems []InventoryProblem
	var walk func(prefix string, list []cdxComponent)
	count := 0
	walk = func(prefix string, list []cdxComponent) {
		for i, c := range list {
			where := prefix + strconv.Itoa(i)
			if count++; count > maxComponents {
				problems = append(problems, InventoryProblem{where, fmt.Sprintf("is past the %d components an SBOM may list", maxComponents)})
				return
			}
			if sw, ok, why := s.componentSoftware(ctx, c); ok {
				asset.Software = append(asset.Software, sw)
			} else if why != "" {
				problems = append(problems, InventoryProblem{where, why})
			}
			walk(where+".components.", c.Components)
		}
	}
	walk("components.", bom.Components)
	return []*AssetInput{asset}, problems, nil
}

// hostLike makes a host name of a component's name ("Juice Shop" →
// "juice-shop"), "" when nothing is left.
func hostLike(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ' || r == '/' || r == '@':
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-.")
}

// componentSoftware reads one component: its CPE when it has one, else
// its purl's or group's vendor and name; a component that is not software
// (a file, data) is skipped, saying nothing.
func (s *Service) componentSoftware(ctx context.Context, c cdxComponent) (store.Software, bool, string) {
	switch c.Type {
	case "", "application", "library", "framework", "operating-system", "firmware", "container", "platform", "device-driver":
	default:
		return store.Software{}, false, ""
	}
	sw := store.Software{Version: strings.TrimSpace(c.Version)}
	if c.CPE != "" {
		n, err := cpe.Parse(c.CPE)
		if err != nil {
			return sw, false, "its cpe " + strconv.Quote(valid.Clip(c.CPE, 80)) + " is not a CPE name"
		}
		sw.CPE, sw.Vendor, sw.Product = c.CPE, unescapeCPE(n.Vendor), unescapeCPE(n.Product)
		if sw.Version == "" && n.Version != "*" && n.Version != "-" {
			sw.Version = unescapeCPE(n.Version)
		}
		return sw, true, ""
	}
	product, vendor := c.Name, cmpOr(c.Group, c.Publisher)
	if p, ok := parsePURL(c.PURL); ok {
		product = cmpOr(p.name, product)
		vendor = cmpOr(p.namespace, vendor)
		if sw.Version == "" {
			sw.Version = p.version
		}
	}
	if strings.TrimSpace(product) == "" {
		return sw, false, "names no product (no name, purl or cpe)"
	}
	sw.Product, sw.Vendor = product, vendor
	if v, p, rule, err := s.productVendor(ctx, vendor, product); err == nil && v != "" {
		sw.Vendor, sw.Product, sw.Rule = v, p, rule
	} else if sw.Vendor == "" {
		sw.Vendor = product // a project named only by itself
	}
	if strings.ContainsAny(sw.Version, " \t\n") || len(sw.Version) > maxVersion {
		sw.Version = ""
	}
	return sw, true, ""
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

type purl struct{ typ, namespace, name, version string }

// parsePURL reads pkg:type/namespace/name@version (qualifiers and subpath
// dropped, percent-escapes undone).
func parsePURL(s string) (purl, bool) {
	rest, ok := strings.CutPrefix(s, "pkg:")
	if !ok {
		return purl{}, false
	}
	rest, _, _ = strings.Cut(rest, "#")
	rest, _, _ = strings.Cut(rest, "?")
	var p purl
	rest, p.version, _ = strings.Cut(rest, "@")
	parts := strings.Split(rest, "/")
	if len(parts) < 2 {
		return purl{}, false
	}
	p.typ, p.name = parts[0], parts[len(parts)-1]
	p.namespace = strings.Join(parts[1:len(parts)-1], "/")
	for _, f := range []*string{&p.namespace, &p.name, &p.version} {
		*f = strings.ReplaceAll(*f, "%40", "@")
		*f = strings.ReplaceAll(*f, "%2F", "/")
	}
	p.namespace = strings.TrimPrefix(p.namespace, "@") // npm scopes
	return p, p.name != ""
}

// parseInventoryCSV reads a CSV inventory: a header row naming the
// columns, then one software entry a row.
func (s *Service) parseInventoryCSV(ctx context.Context, body []byte) ([]*AssetInput, []InventoryProblem, error) {
	r := csv.NewReader(bytes.NewReader(body))
	r.FieldsPerRecord, r.ReuseRecord = -1, true
	header, err := r.Read()
	if err != nil {
		return nil, nil, valid.Field("body", "is neither a CycloneDX SBOM nor a CSV with a header row: "+err.Error())
	}
	cols := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		if alias, ok := csvAliases[name]; ok {
			name = alias
		}
		if _, dup := cols[name]; !dup {
			cols[name] = i
		}
	}
	for _, need := range []string{"hostname", "product"} {
		if _, ok := cols[need]; !ok {
			return nil, nil, valid.Field("body", "its CSV header names no "+need+" column (hostname and product are required; vendor, version, cpe, ip, os, owner and internet_facing are read)")
		}
	}
	byHost := map[string]*AssetInput{}
	var order []*AssetInput
	var problems []InventoryProblem
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		where := "line " + strconv.Itoa(line)
		if err != nil {
			problems = append(problems, InventoryProblem{where, "is not CSV: " + err.Error()})
			continue
		}
		if line > maxCSVRows+1 {
			problems = append(problems, InventoryProblem{where, fmt.Sprintf("is past the %d rows an import takes", maxCSVRows)})
			break
		}
		get := func(name string) string {
			if i, ok := cols[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		host := strings.ToLower(strings.TrimSuffix(get("hostname"), "."))
		if !validHostname(host) {
			problems = append(problems, InventoryProblem{where, "its hostname " + strconv.Quote(valid.Clip(get("hostname"), 80)) + " is not a host name"})
			continue
		}
		a := byHost[host]
		if a == nil {
			a = &AssetInput{Hostname: host, Software: []store.Software{}}
			byHost[host] = a
			order = append(order, a)
		}
		a.IP, a.OS, a.Owner = cmpOr(get("ip"), a.IP), cmpOr(get("os"), a.OS), cmpOr(get("owner"), a.Owner)
		if v := strings.ToLower(get("internet_facing")); v == "true" || v == "yes" || v == "1" {
			a.InternetFacing = true
		}
		product := get("product")
		if product == "" {
			continue // a host row without software
		}
		sw := store.Software{Vendor: get("vendor"), Product: product, Version: get("version"), CPE: get("cpe")}
		if sw.CPE == "" {
			v, p, rule, err := s.productVendor(ctx, sw.Vendor, sw.Product)
			if err != nil {
				return nil, nil, err
			}
			if v != "" {
				sw.Vendor, sw.Product, sw.Rule = v, p, rule
			}
		}
		if sw.Vendor == "" {
			problems = append(problems, InventoryProblem{where, "names no vendor, and NVD's data names none for " + strconv.Quote(valid.Clip(product, 80))})
			continue
		}
		a.Software = append(a.Software, sw)
	}
	return order, problems, nil
}

// csvAliases are other names of the CSV columns.
var csvAliases = map[string]string{
	"host": "hostname", "host_name": "hostname", "computer": "hostname", "computer name": "hostname", "device": "hostname",
	"name": "product", "display name": "product", "displayname": "product", "display_name": "product", "software": "product",
	"publisher": "vendor", "manufacturer": "vendor", "display version": "version", "displayversion": "version",
	"ip address": "ip", "ip_address": "ip", "operating system": "os", "operating_system": "os", "client": "owner",
	"internet facing": "internet_facing",
}
