package feed

import "strings"

// CISA KEV: {"title":..,"catalogVersion":..,"dateReleased":..,"count":..,
// "vulnerabilities":[{cveID, vendorProject, product, vulnerabilityName,
// dateAdded, shortDescription, requiredAction, dueDate,
// knownRansomwareCampaignUse, notes, cwes}]}; the CSV has the same columns,
// cwes joined with ", ".

type kevRecord struct {
	CVEID                      string   `json:"cveID"`
	VendorProject              string   `json:"vendorProject"`
	Product                    string   `json:"product"`
	VulnerabilityName          string   `json:"vulnerabilityName"`
	DateAdded                  string   `json:"dateAdded"`
	ShortDescription           string   `json:"shortDescription"`
	RequiredAction             string   `json:"requiredAction"`
	DueDate                    string   `json:"dueDate"`
	KnownRansomwareCampaignUse string   `json:"knownRansomwareCampaignUse"`
	Notes                      string   `json:"notes"`
	CWEs                       []string `json:"cwes"`
}

var kevMeta = map[string]bool{"title": true, "catalogVersion": true, "dateReleased": true, "count": true}

func (p *parser) parseKEVJSON() error {
	p.base = p.in.skipPrefix(false)
	p.startJSON(p.in)
	meta := func(key string) string {
		if kevMeta[key] {
			return key
		}
		return ""
	}
	return p.walkObject("KEV catalog", "vulnerabilities", meta, nil, p.kevRecord)
}

func (p *parser) kevRecord() error {
	idx := p.index
	p.index++
	var r kevRecord
	off, recErr, err := p.decodeRecord("KEV entry", &r)
	if err != nil {
		return err
	}
	if recErr != nil {
		p.problem(idx, off, normID(r.CVEID), "%s", recordErr(recErr))
		return nil
	}
	return p.kevEmit(idx, off, KEV{
		CVEID:            r.CVEID,
		VendorProject:    r.VendorProject,
		Product:          r.Product,
		Name:             r.VulnerabilityName,
		DateAdded:        r.DateAdded,
		ShortDescription: r.ShortDescription,
		RequiredAction:   r.RequiredAction,
		DueDate:          r.DueDate,
		KnownRansomware:  r.KnownRansomwareCampaignUse,
		Notes:            r.Notes,
	}, r.CWEs)
}

// kevEmit trims and checks an entry and passes it on.
func (p *parser) kevEmit(idx int, off int64, k KEV, cwes []string) error {
	k.CVEID = normID(k.CVEID)
	if !validCVEID(k.CVEID) {
		if k.CVEID == "" {
			p.problem(idx, off, "", "missing cveID")
		} else {
			p.problem(idx, off, k.CVEID, "invalid cveID %q", k.CVEID)
		}
		return nil
	}
	for _, s := range []*string{&k.VendorProject, &k.Product, &k.Name, &k.DateAdded, &k.ShortDescription, &k.RequiredAction, &k.DueDate, &k.KnownRansomware, &k.Notes} {
		*s = strings.TrimSpace(*s)
	}
	var set cweSet
	for _, c := range cwes {
		for _, f := range strings.FieldsFunc(c, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' }) {
			if id, ok := normCWE(f); ok {
				set.add(id)
			}
		}
	}
	k.CWEs = set
	var c cuts
	k.bound(&c)
	p.cut(idx, off, k.CVEID, &c)
	if p.h.KEV != nil {
		if err := p.h.KEV(k); err != nil {
			return err
		}
	}
	p.sum.Records++
	return nil
}

func (p *parser) parseKEVCSV() error {
	base := p.in.skipPrefix(true)
	c := p.newCSV(base, 0)
	cols, width, err := p.header(c, "KEV CSV", "cveid")
	if err != nil {
		return err
	}
	return p.rows(c, width, func(idx int, off int64, rec []string) error {
		f := func(name string) string { return field(rec, cols, name) }
		return p.kevEmit(idx, off, KEV{
			CVEID:            f("cveid"),
			VendorProject:    f("vendorproject"),
			Product:          f("product"),
			Name:             f("vulnerabilityname"),
			DateAdded:        f("dateadded"),
			ShortDescription: f("shortdescription"),
			RequiredAction:   f("requiredaction"),
			DueDate:          f("duedate"),
			KnownRansomware:  f("knownransomwarecampaignuse"),
			Notes:            f("notes"),
		}, []string{f("cwes")})
	})
}
