// Package compliance is Garrison's compliance engine: the four framework
// catalogs, the automated checks over an organization's own data and the
// controls each evidences, audits and the gaps they find, attestations of
// the controls no check can evidence, policy templates, and remediation.
// The API and the compliance agent both use it; it knows nothing of HTTP.
package compliance

import (
	"embed"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
)

//go:embed catalogs/*.csv
var catalogFiles embed.FS

// Framework is one compliance framework and its controls, in catalog order.
type Framework struct {
	ID       string
	Name     string
	Version  string
	Source   string // where the identifiers come from, for reports
	Controls []Control
	byID     map[string]int
}

// Control is one control (criterion, safeguard, subcategory, standard or
// implementation specification) of a framework.
type Control struct {
	ID       string
	FamilyID string
	Family   string
	Title    string
	// Parent is the standard a HIPAA implementation specification belongs
	// to; empty elsewhere.
	Parent string
}

// Control finds a control by id.
func (f *Framework) Control(id string) (Control, bool) {
	i, ok := f.byID[id]
	if !ok {
		return Control{}, false
	}
	return f.Controls[i], true
}

// frameworkInfo says what each catalog file is. The order is the API's.
var frameworkInfo = []struct{ id, name, version, source string }{
	{"soc2", "SOC 2", "Trust Services Criteria 2017 (revised points of focus 2022)",
		"AICPA Trust Services Criteria identifiers; titles are Garrison's own summaries"},
	{"hipaa", "HIPAA Security Rule", "45 CFR Part 164 Subpart C",
		"45 CFR §164.308–§164.316 standards and implementation specifications, as listed in NIST SP 800-66 Rev. 2"},
	{"nist", "NIST Cybersecurity Framework", "2.0",
		"NIST CSF 2.0 subcategories (NIST public information)"},
	{"cis", "CIS Critical Security Controls", "v8",
		"CIS Controls v8 safeguard identifiers; titles are Garrison's own summaries"},
}

var frameworks = mustLoadCatalogs()

// Frameworks returns the four frameworks in the API's order.
func Frameworks() []*Framework { return slices.Clone(frameworks) }

// FrameworkIDs lists the framework ids in the API's order.
func FrameworkIDs() []string {
	ids := make([]string, len(frameworks))
	for i, f := range frameworks {
		ids[i] = f.ID
	}
	return ids
}

// LookupFramework finds a framework by id.
func LookupFramework(id string) (*Framework, bool) {
	for _, f := range frameworks {
		if f.ID == id {
			return f, true
		}
	}
	return nil, false
}

func mustLoadCatalogs() []*Framework {
	var out []*Framework
	for _, info := range frameworkInfo {
		f, err := loadCatalog(info.id)
		if err != nil {
			panic(err) // the catalogs are part of the binary: a bad one is a build defect
		}
		f.Name, f.Version, f.Source = info.name, info.version, info.source
		out = append(out, f)
	}
	return out
}

// loadCatalog reads catalogs/<id>.csv: a header naming at least control_id,
// family_id, family and title (and parent for HIPAA), then one control per
// row.
func loadCatalog(id string) (*Framework, error) {
	file, err := catalogFiles.Open("catalogs/" + id + ".csv")
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", id, err)
	}
	defer file.Close()
	r := csv.NewReader(file)
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("catalog %s: header: %w", id, err)
	}
	col := map[string]int{}
	for i, name := range header {
		col[name] = i
	}
	for _, need := range []string{"control_id", "family_id", "family", "title"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("catalog %s: no %s column", id, need)
		}
	}
	f := &Framework{ID: id, byID: map[string]int{}}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("catalog %s: %w", id, err)
		}
		c := Control{ID: rec[col["control_id"]], FamilyID: rec[col["family_id"]], Family: rec[col["family"]], Title: rec[col["title"]]}
		if i, ok := col["parent"]; ok {
			c.Parent = rec[i]
		}
		if c.ID == "" || c.Title == "" {
			return nil, fmt.Errorf("catalog %s: a control without id or title", id)
		}
		if _, dup := f.byID[c.ID]; dup {
			return nil, fmt.Errorf("catalog %s: control %s twice", id, c.ID)
		}
		f.byID[c.ID] = len(f.Controls)
		f.Controls = append(f.Controls, c)
	}
	return f, nil
}
