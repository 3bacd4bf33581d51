package intel

import (
	"slices"

	"garrison/store"
)

// An osquery host as a file gives it, and the asset it makes: its
// software is the packages present (osquery.go reads the file).

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
