package intel

import (
	"context"
	"time"

	"garrison/store"
	"garrison/timestamp"
)

// ExposureItem is one watched CVE as the score and the compliance checks
// weigh it.
type ExposureItem struct {
	CVEID       string
	EntryID     string
	Enriched    bool
	Score       float64 // -1 without a score
	Severity    string
	KEV         bool
	KEVDue      *time.Time
	PatchStatus string
	Affected    int // assets whose software matches
	AssetIDs    []string
	WatchedAt   time.Time
	Published   *time.Time
}

// Exposure reads every watched CVE of the organization with its affected
// asset count.
func Exposure(ctx context.Context, st *store.Store, orgID string) ([]ExposureItem, error) {
	entries, _, err := watchlist(ctx, st, orgID, ListQuery{Sort: "added", Page: pageAll})
	if err != nil {
		return nil, err
	}
	out := make([]ExposureItem, 0, len(entries))
	for _, e := range entries {
		it := ExposureItem{CVEID: e.CVEID, EntryID: e.ID, Enriched: e.View != nil, Score: e.score(), PatchStatus: PatchUnknown,
			Affected: len(e.Affected), WatchedAt: e.CreatedAt}
		for _, af := range e.Affected {
			it.AssetIDs = append(it.AssetIDs, af.AssetID)
		}
		if v := e.View; v != nil {
			it.Severity, it.KEV, it.PatchStatus = v.Severity(), v.KEV != nil, v.PatchStatus
			if v.KEV != nil {
				if due, err := time.Parse(time.DateOnly, v.KEV.DueDate); err == nil {
					it.KEVDue = &due
				}
			}
			if v.Published != nil {
				if p, err := timestamp.Parse(*v.Published); err == nil {
					it.Published = &p
				}
			}
		}
		out = append(out, it)
	}
	return out, nil
}
