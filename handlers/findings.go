package handlers

import (
	"net/http"

	"garrison/intel"
	"garrison/store"
	"garrison/timestamp"
)

// findingView is a finding as the API shows it.
type findingView struct {
	ID            string         `json:"id"`
	AssetID       string         `json:"asset_id"`
	AssetHostname string         `json:"asset_hostname"`
	CVEID         string         `json:"cve_id"`
	Software      store.Software `json:"software"`
	Match         string         `json:"match"`
	Reason        string         `json:"reason"`
	VersionKnown  bool           `json:"version_known"`
	CVSSScore     *float64       `json:"cvss_score"`
	KEV           bool           `json:"kev"`
	Ransomware    bool           `json:"ransomware"`
	EPSS          *float64       `json:"epss"`
	Status        string         `json:"status"`
	StatusReason  string         `json:"status_reason"`
	Justification *string        `json:"justification"`
	ExpiresAt     *string        `json:"expires_at"`
	StatusBy      string         `json:"status_by"`
	StatusAt      string         `json:"status_at"`
	FirstSeen     string         `json:"first_seen"`
	LastSeen      string         `json:"last_seen"`
	FixedAt       *string        `json:"fixed_at"`
	// History is the detail's: every status change, oldest first.
	History []findingChangeView `json:"history,omitempty"`
}

type findingChangeView struct {
	At     string `json:"at"`
	Actor  string `json:"actor"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

func newFindingView(f store.Finding) findingView {
	v := findingView{ID: f.ID, AssetID: f.AssetID, AssetHostname: f.AssetHostname, CVEID: f.CVEID, Software: f.Software, Match: f.Match,
		Reason: f.Reason, VersionKnown: f.VersionKnown, CVSSScore: f.CVSS, KEV: f.KEV, Ransomware: f.Ransomware, EPSS: f.EPSS,
		Status: f.Status, StatusReason: f.StatusReason, ExpiresAt: timestamp.Optional(f.StatusUntil), StatusBy: f.StatusBy,
		StatusAt: timestamp.Format(f.StatusAt), FirstSeen: timestamp.Format(f.FirstSeen), LastSeen: timestamp.Format(f.LastSeen),
		FixedAt: timestamp.Optional(f.FixedAt)}
	if f.Justification != "" {
		v.Justification = &f.Justification
	}
	return v
}

func newFindingDetail(f store.Finding, changes []store.FindingChange) findingView {
	v := newFindingView(f)
	v.History = make([]findingChangeView, len(changes))
	for i, c := range changes {
		v.History[i] = findingChangeView{At: timestamp.Format(c.At), Actor: c.Actor, Status: c.Status, Reason: c.Reason}
	}
	return v
}

func (a *API) listFindings(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	get := func(name string) string { v, _ := queryValue(r, name); return v }
	q := intel.FindingQuery{KEV: get("kev"), MinCVSS: get("min_cvss"), MinEPSS: get("min_epss"), Asset: get("asset"), CVEID: get("cve_id"),
		Status: get("status"), Vendor: get("vendor"), Product: get("product")}
	found, total, err := a.Intel.Findings(r.Context(), principalFrom(r.Context()).OrgID, q, page)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(found, newFindingView), total, page)
	return nil
}

func (a *API) getFinding(w http.ResponseWriter, r *http.Request) error {
	f, changes, err := a.Intel.Finding(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newFindingDetail(f, changes))
	return nil
}

func (a *API) decideFinding(w http.ResponseWriter, r *http.Request) error {
	var d intel.FindingDecision
	if err := decode(r, &d); err != nil {
		return err
	}
	f, changes, err := a.Intel.Decide(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id"), d)
	if err != nil {
		return err
	}
	auditDetail(r, "cve_id", f.CVEID)
	auditDetail(r, "status", f.Status)
	writeData(w, http.StatusOK, newFindingDetail(f, changes))
	return nil
}

// upgradeView is one row of the fix-first list.
type upgradeView struct {
	AssetID        string             `json:"asset_id"`
	AssetHostname  string             `json:"asset_hostname"`
	InternetFacing bool               `json:"internet_facing"`
	Software       store.Software     `json:"software"`
	ToVersion      *string            `json:"to_version"`
	Summary        string             `json:"summary"`
	Closes         []findingBriefView `json:"closes"`
	Remaining      []findingBriefView `json:"remaining"`
	KEV            int                `json:"kev"`
	Ransomware     int                `json:"ransomware"`
	MaxEPSS        *float64           `json:"max_epss"`
	MaxCVSS        *float64           `json:"max_cvss"`
}

// findingBriefView names a finding in the fix-first list.
type findingBriefView struct {
	ID         string   `json:"id"`
	CVEID      string   `json:"cve_id"`
	KEV        bool     `json:"kev"`
	Ransomware bool     `json:"ransomware"`
	CVSSScore  *float64 `json:"cvss_score"`
	EPSS       *float64 `json:"epss"`
}

func newFindingBrief(f store.Finding) findingBriefView {
	return findingBriefView{ID: f.ID, CVEID: f.CVEID, KEV: f.KEV, Ransomware: f.Ransomware, CVSSScore: f.CVSS, EPSS: f.EPSS}
}

func newUpgradeView(u intel.Upgrade) upgradeView {
	v := upgradeView{AssetID: u.Asset.ID, AssetHostname: u.Asset.Hostname, InternetFacing: u.Asset.InternetFacing, Software: u.Software,
		Summary: u.Summary(), Closes: mapSlice(u.Closes, newFindingBrief), Remaining: mapSlice(u.Remaining, newFindingBrief),
		KEV: u.KEV, Ransomware: u.Ransomware, MaxEPSS: u.MaxEPSS, MaxCVSS: u.MaxCVSS}
	if u.ToVersion != "" {
		v.ToVersion = &u.ToVersion
	}
	if v.Closes == nil {
		v.Closes = []findingBriefView{}
	}
	if v.Remaining == nil {
		v.Remaining = []findingBriefView{}
	}
	return v
}

func (a *API) findingPriorities(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	upgrades, total, err := a.Intel.Priorities(r.Context(), principalFrom(r.Context()).OrgID, page)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(upgrades, newUpgradeView), total, page)
	return nil
}
