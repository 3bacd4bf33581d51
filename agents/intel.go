package agents

import (
	"context"
	"time"
)

// CVEIntel is the local CVE intelligence store the threat researcher
// consults. The CVE watchlist builds it; until then Env.CVEs is nil and the
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
	Published      time.Time `json:"published"`
}
