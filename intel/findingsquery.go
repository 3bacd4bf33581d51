package intel

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"garrison/actor"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// FindingQuery is GET /findings's filters, as given.
type FindingQuery struct {
	KEV, MinCVSS, MinEPSS, Asset, CVEID, Status, Vendor, Product string
}

// FindingStatuses are the statuses a finding may have.
var FindingStatuses = []string{store.FindingOpen, store.FindingFixed, store.FindingAcceptedRisk, store.FindingNotAffected}

// Justifications are VEX's reasons a product is not affected (CycloneDX
// and OpenVEX name the same five).
var Justifications = []string{"component_not_present", "vulnerable_code_not_present", "vulnerable_code_not_in_execute_path",
	"vulnerable_code_cannot_be_controlled_by_adversary", "inline_mitigations_already_exist"}

// filter checks the query.
func (q FindingQuery) filter() (store.FindingFilter, error) {
	var f store.FindingFilter
	var p valid.Problems
	if q.KEV != "" {
		p.Check(q.KEV == "true" || q.KEV == "false", "kev", "must be true or false")
		kev := q.KEV == "true"
		f.KEV = &kev
	}
	number := func(name, text string, max float64, dst **float64) {
		if text == "" {
			return
		}
		v, err := strconv.ParseFloat(text, 64)
		ok := err == nil && v >= 0 && v <= max
		p.Check(ok, name, "must be a number from 0 to "+strconv.FormatFloat(max, 'f', -1, 64))
		if ok {
			*dst = &v
		}
	}
	number("min_cvss", q.MinCVSS, 10, &f.MinCVSS)
	number("min_epss", q.MinEPSS, 1, &f.MinEPSS)
	if q.CVEID != "" {
		id, ok := NormalizeCVEID(q.CVEID)
		p.Check(ok, "cve_id", "must be a CVE id (CVE-2024-12345)")
		f.CVEID = id
	}
	p.Check(q.Status == "" || slices.Contains(FindingStatuses, q.Status), "status", "must be one of "+strings.Join(FindingStatuses, ", "))
	p.Check(len(q.Asset) <= 64, "asset", "must be an asset id")
	p.Check(len(q.Vendor) <= maxLabel, "vendor", "must be at most 100 bytes")
	p.Check(len(q.Product) <= maxLabel, "product", "must be at most 100 bytes")
	f.AssetID, f.Status = q.Asset, q.Status
	if q.Vendor != "" {
		f.Vendor = normalizeName(q.Vendor)
	}
	if q.Product != "" {
		f.Product = normalizeName(q.Product)
	}
	return f, p.Err()
}

// Findings lists a page of the organization's findings the query selects,
// KEV-listed first, then by score.
func (s *Service) Findings(ctx context.Context, orgID string, q FindingQuery, page store.Page) ([]store.Finding, int, error) {
	f, err := q.filter()
	if err != nil {
		return nil, 0, err
	}
	return s.cfg.Store.Findings(ctx, orgID, f, page)
}

// Finding reads one of the organization's findings with its history.
func (s *Service) Finding(ctx context.Context, orgID, id string) (store.Finding, []store.FindingChange, error) {
	return s.cfg.Store.FindingByID(ctx, orgID, id)
}

// AssetFindings are an asset's findings shown with it: at most
// maxAssetFindings, open and KEV-listed first.
func (s *Service) AssetFindings(ctx context.Context, orgID, assetID string) ([]store.Finding, int, error) {
	return s.cfg.Store.Findings(ctx, orgID, store.FindingFilter{AssetID: assetID}, store.Page{Limit: maxAssetFindings})
}

const maxAssetFindings = 200

// FindingDecision is a person's decision on a finding.
type FindingDecision struct {
	Status        string  `json:"status"`
	Reason        string  `json:"reason"`
	Justification string  `json:"justification"`
	ExpiresAt     *string `json:"expires_at"`
}

// Limits of a decision.
const (
	maxDecisionReason = 2000
	maxRiskAcceptance = 366 * 24 * time.Hour
)

// Decide records a person's decision on a finding: accepted_risk (with a
// reason and an expiry at most a year ahead, after which it reopens),
// not_affected (with a VEX justification and a reason), or open (undoing
// either). A fixed finding is matching's to reopen.
func (s *Service) Decide(ctx context.Context, who actor.Actor, id string, d FindingDecision) (store.Finding, []store.FindingChange, error) {
	var p valid.Problems
	p.Check(d.Status == store.FindingOpen || d.Status == store.FindingAcceptedRisk || d.Status == store.FindingNotAffected, "status",
		"must be accepted_risk, not_affected or open (fixed is set by matching)")
	st := store.FindingStatus{Status: d.Status, Reason: strings.TrimSpace(d.Reason), By: who.ID}
	p.CheckText("reason", st.Reason, valid.TextRule{Max: maxDecisionReason, Required: d.Status != store.FindingOpen})
	switch d.Status {
	case store.FindingAcceptedRisk:
		p.Check(d.Justification == "", "justification", "is for not_affected only")
		p.Check(d.ExpiresAt != nil, "expires_at", "is required: when the acceptance ends and the finding reopens")
		if d.ExpiresAt != nil {
			t, err := timestamp.Parse(*d.ExpiresAt)
			now := s.cfg.Now()
			ok := err == nil && t.After(now) && t.Sub(now) <= maxRiskAcceptance
			p.Check(ok, "expires_at", "must be a time (RFC 3339) in the future, at most a year ahead")
			if ok {
				st.Until = &t
			}
		}
	case store.FindingNotAffected:
		p.Check(slices.Contains(Justifications, d.Justification), "justification", "must be one of "+strings.Join(Justifications, ", "))
		p.Check(d.ExpiresAt == nil, "expires_at", "is for accepted_risk only")
		st.Justification = d.Justification
	default:
		p.Check(d.Justification == "" && d.ExpiresAt == nil, "status", "open takes neither a justification nor an expiry")
	}
	if err := p.Err(); err != nil {
		return store.Finding{}, nil, err
	}
	if err := s.cfg.Store.SetFindingStatus(ctx, who.OrgID, id, st); err != nil {
		return store.Finding{}, nil, err
	}
	return s.cfg.Store.FindingByID(ctx, who.OrgID, id)
}
