package outreach

import (
	"context"
	"mime"

	"garrison/account"
	"garrison/store"
	"garrison/valid"
)

// Plan is the lowest plan that includes outreach.
const Plan = account.PlanPro

// Permit refuses outreach to a plan that does not include it.
func Permit(plan string) error { return account.RequirePlan("Outreach", Plan, plan) }

// ImportResult says what an import did.
type ImportResult struct {
	store.ImportCounts
	Rows int
}

// Import parses (JSON array, or CSV when contentType is text/csv),
// validates and stores prospects, all or nothing.
func Import(ctx context.Context, st *store.Store, orgID, actor, contentType string, body []byte) (ImportResult, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	var rows []Row
	var err error
	switch mt {
	case "text/csv":
		rows, err = ParseCSV(body)
	case "application/json":
		rows, err = ParseJSON(body)
	default:
		return ImportResult{}, valid.Field("Content-Type", "must be application/json (an array of prospects) or text/csv (a header row, then one row per prospect)")
	}
	if err != nil {
		return ImportResult{}, err
	}
	in, err := Validate(rows)
	if err != nil {
		return ImportResult{}, err
	}
	c, err := st.ImportProspects(ctx, orgID, actor, in, Merge)
	return ImportResult{ImportCounts: c, Rows: len(rows)}, err
}

// SetStatus moves a lead in the pipeline; a move to its current status
// records nothing.
func SetStatus(ctx context.Context, st *store.Store, orgID, id, status string, note *string, actor string) (store.Lead, bool, error) {
	if err := CheckStatusChange(status, note); err != nil {
		return store.Lead{}, false, err
	}
	n := ""
	if note != nil {
		n = *note
	}
	changed, err := st.SetLeadStatus(ctx, orgID, id, status, n, actor)
	if err != nil {
		return store.Lead{}, false, err
	}
	l, err := st.LeadByID(ctx, orgID, id)
	return l, changed, err
}
