package intel

import (
	"context"
	"slices"
	"strings"
	"time"

	"garrison/store"
	"garrison/timestamp"
)

// ExposureItem is one CVE as the score and the compliance checks weigh it:
// one an open finding names, or a watched one no open finding names.
type ExposureItem struct {
	CVEID       string
	EntryID     string // the watchlist entry's, when watched
	Enriched    bool
	Score       float64 // -1 without a score
	EPSS        *float64
	Severity    string
	KEV         bool
	KEVDue      *time.Time
	PatchStatus string
	Affected    int // assets whose software matches
	AssetIDs    []string
	// WatchedAt is when the CVE became known to affect the organization:
	// its earliest open finding's first sighting, or when it was watched.
	WatchedAt time.Time
	Published *time.Time
	Found     bool // from open findings (accepted risks and not-affected ones are not open)
}

// Exposure reads the CVEs affecting the organization: its open findings by
// CVE, with their assets and when first found, and then the watched CVEs
// no open finding names, with the watchlist's matches.
func Exposure(ctx context.Context, st *store.Store, orgID string) ([]ExposureItem, error) {
	open, err := st.OpenFindings(ctx, orgID, maxRankedFindings)
	if err != nil {
		return nil, err
	}
	byCVE := map[string]*ExposureItem{}
	var ids []string
	for _, f := range open {
		it := byCVE[f.CVEID]
		if it == nil {
			it = &ExposureItem{CVEID: f.CVEID, Enriched: true, Score: -1, PatchStatus: PatchUnknown, WatchedAt: f.FirstSeen, Found: true}
			byCVE[f.CVEID] = it
			ids = append(ids, f.CVEID)
		}
		if f.CVSS != nil {
			it.Score = *f.CVSS
		}
		it.EPSS, it.KEV = f.EPSS, f.KEV
		if f.FirstSeen.Before(it.WatchedAt) {
			it.WatchedAt = f.FirstSeen
		}
		if !slices.Contains(it.AssetIDs, f.AssetID) {
			it.AssetIDs = append(it.AssetIDs, f.AssetID)
		}
		it.Affected = len(it.AssetIDs)
	}
	if err := eachChunk(ids, cvesPerMatch, func(part []string) error {
		rows, err := st.IntelRowsFor(ctx, part)
		if err != nil {
			return err
		}
		for id, c := range rows.CVEs {
			v, err := decodeView(id, c.View)
			if err != nil {
				return err
			}
			byCVE[id].describe(&v)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	entries, _, err := watchlist(ctx, st, orgID, ListQuery{Sort: "added", Page: pageAll})
	if err != nil {
		return nil, err
	}
	out := make([]ExposureItem, 0, len(ids)+len(entries))
	for _, id := range ids {
		out = append(out, *byCVE[id])
	}
	slices.SortFunc(out, func(a, b ExposureItem) int { return strings.Compare(a.CVEID, b.CVEID) })
	at := make(map[string]int, len(out))
	for i, it := range out {
		at[it.CVEID] = i
	}
	for _, e := range entries {
		if i, found := at[e.CVEID]; found {
			out[i].EntryID = e.ID
			continue
		}
		it := ExposureItem{CVEID: e.CVEID, EntryID: e.ID, Enriched: e.View != nil, Score: e.score(), PatchStatus: PatchUnknown,
			Affected: len(e.Affected), WatchedAt: e.CreatedAt}
		for _, af := range e.Affected {
			it.AssetIDs = append(it.AssetIDs, af.AssetID)
		}
		if e.View != nil {
			it.describe(e.View)
		}
		out = append(out, it)
	}
	return out, nil
}

// describe copies what the CVE's view says of it.
func (it *ExposureItem) describe(v *View) {
	it.Severity, it.KEV, it.PatchStatus = v.Severity(), v.KEV != nil, v.PatchStatus
	if v.EPSS != nil {
		e := v.EPSS.Score
		it.EPSS = &e
	}
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
