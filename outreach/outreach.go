package outreach

import (
	"context"
	"mime"

	"garrison/account"
	"garrison/fault"
	"garrison/store"
	"garrison/valid"
)

// Plan is the lowest plan that includes outreach.
const Plan = account.PlanPro

// ErrProviderOwns: a client's pipeline is its provider's, not its own.
var ErrProviderOwns = fault.New(fault.Forbidden, "Outreach belongs to the provider: switch to the provider's organization to work its pipeline")

// Permit refuses outreach to a plan that does not include it, and in a
// client organization: the sales pipeline (prospects, leads, the lead
// hunter) is the provider's, never beside a client's security data.
func Permit(orgKind, plan string) error {
	if orgKind == store.OrgClient {
		return ErrProviderOwns
	}
	return account.RequirePlan("Outreach", Plan, plan)
}

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

// Convert makes a won lead a client organization of the provider (a
// standalone organization becomes a provider with it), named after the
// prospect's company; the lead's history names the client.
func Convert(ctx context.Context, st *store.Store, who account.Credential, leadID string) (store.Org, error) {
	if err := Permit(who.OrgKind, who.Plan); err != nil {
		return store.Org{}, err
	}
	return st.ConvertLead(ctx, who.OrgID, leadID, who.ID)
}
