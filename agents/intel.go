package agents

import (
	"context"
	"time"

	"garrison/intel"
	"garrison/timestamp"
)

// CVEIntel is the local CVE intelligence store the threat researcher
// consults (IntelCVEs adapts the intel package's). With Env.CVEs nil the
// researcher says that no CVE data is available rather than guessing.
type CVEIntel interface {
	// LookupCVE returns one CVE by id; false when the store has none.
	LookupCVE(ctx context.Context, id string) (CVERecord, bool, error)
	// SearchCVEs returns CVEs whose vendor or product matches query.
	SearchCVEs(ctx context.Context, query string, limit int) ([]CVERecord, error)
}

// CVERecord is what the researcher reports of a CVE.
type CVERecord struct {
	ID             string    `json:"id"`
	Description    string    `json:"description"`
	CVSS           float64   `json:"cvss"`
	Severity       string    `json:"severity"`
	Vendors        []string  `json:"vendors"`
	KnownExploited bool      `json:"known_exploited"`
	CWEs           []string  `json:"cwes"`
	Published      time.Time `json:"published"`
	// Techniques are its ATT&CK mapping, as the watchlist derives it.
	Techniques []intel.Technique `json:"-"`
}

// intelSource is the intelligence store as the researcher reads it.
type intelSource interface {
	Lookup(ctx context.Context, cveID string) (intel.Record, bool, error)
	Search(ctx context.Context, name string, limit int) ([]intel.Record, error)
}

// IntelCVEs adapts the local intelligence store to CVEIntel.
func IntelCVEs(s intelSource) CVEIntel { return intelCVEs{s} }

type intelCVEs struct{ s intelSource }

func cveRecord(r intel.Record) CVERecord {
	v := r.View
	c := CVERecord{ID: v.ID, Description: v.Description, Vendors: []string{}, KnownExploited: v.KEV != nil, CWEs: v.CWEs,
		Techniques: intel.CVETechniques(&v)}
	if v.Primary != nil {
		c.CVSS, c.Severity = v.Primary.Score, v.Severity()
	}
	if v.Vendor != "" {
		c.Vendors = append(c.Vendors, v.Vendor)
	}
	if v.Published != nil {
		c.Published, _ = timestamp.Parse(*v.Published)
	}
	return c
}

func (i intelCVEs) LookupCVE(ctx context.Context, id string) (CVERecord, bool, error) {
	r, ok, err := i.s.Lookup(ctx, id)
	if err != nil || !ok {
		return CVERecord{}, ok, err
	}
	return cveRecord(r), true, nil
}

func (i intelCVEs) SearchCVEs(ctx context.Context, query string, limit int) ([]CVERecord, error) {
	found, err := i.s.Search(ctx, query, limit)
	if err != nil {
		return nil, err
	}
	out := make([]CVERecord, len(found))
	for j, r := range found {
		out[j] = cveRecord(r)
	}
	return out, nil
}
