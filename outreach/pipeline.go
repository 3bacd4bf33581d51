package outreach

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"garrison/store"
	"garrison/valid"
)

// Statuses of the lead pipeline.
var Statuses = []string{"new", "contacted", "responded", "qualified", "won", "lost"}

const maxNote = 2000

// CheckStatusChange validates a status move: any status may follow any
// other (the spec shows no restriction).
func CheckStatusChange(status string, note *string) error {
	var p valid.Problems
	p.Check(slices.Contains(Statuses, status), "status", "must be one of "+strings.Join(Statuses, ", "))
	if note != nil {
		p.CheckText("note", *note, valid.TextRule{Max: maxNote})
	}
	return p.Err()
}

// ParseLeadQuery checks the list's query parameters.
func ParseLeadQuery(status, minScore, vertical, region, q, sort string) (store.LeadQuery, error) {
	var p valid.Problems
	lq := store.LeadQuery{Status: status, Vertical: strings.ToLower(vertical), Region: region, Q: strings.TrimSpace(q), Sort: cmp.Or(sort, "score")}
	p.Check(status == "" || slices.Contains(Statuses, status), "status", "must be one of "+strings.Join(Statuses, ", "))
	if minScore != "" {
		n, err := strconv.Atoi(minScore)
		p.Check(err == nil && n >= 0 && n <= 100, "min_score", "must be a whole number from 0 to 100")
		lq.MinScore = &n
	}
	p.Check(lq.Vertical == "" || slices.Contains(Verticals, lq.Vertical), "vertical", "must be one of "+strings.Join(Verticals, ", "))
	p.Check(len(region) <= maxRegion, "region", "must be at most 100 bytes")
	p.Check(len(lq.Q) <= 200, "q", "must be at most 200 bytes")
	p.Check(lq.Sort == "score" || lq.Sort == "updated", "sort", "must be score or updated")
	return lq, p.Err()
}

// LeadFilter is the leads list's filters as given; empty ones filter nothing.
type LeadFilter struct {
	Status, MinScore, Vertical, Region, Q, Sort string
}

// Leads is a page of the organization's leads, after judging the filters.
func Leads(ctx context.Context, st *store.Store, orgID string, f LeadFilter, p store.Page) ([]store.Lead, int, error) {
	q, err := ParseLeadQuery(f.Status, f.MinScore, f.Vertical, f.Region, f.Q, f.Sort)
	if err != nil {
		return nil, 0, err
	}
	return st.Leads(ctx, orgID, q, p)
}

// Lead is one of the organization's leads.
func Lead(ctx context.Context, st *store.Store, orgID, id string) (store.Lead, error) {
	return st.LeadByID(ctx, orgID, id)
}

// Prospects is a page of the organization's prospects.
func Prospects(ctx context.Context, st *store.Store, orgID string, p store.Page) ([]store.Prospect, int, error) {
	return st.Prospects(ctx, orgID, p)
}
