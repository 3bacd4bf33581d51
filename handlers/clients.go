package handlers

import (
	"net/http"
	"strings"
	"time"

	"garrison/account"
	"garrison/alerting"
	"garrison/fleet"
	"garrison/outreach"
	"garrison/store"
	"garrison/timestamp"
)

type createClientRequest struct {
	Name       string `json:"name"`
	Plan       string `json:"plan"`
	AdminEmail string `json:"admin_email"`
}

type clientOrgView struct {
	orgView
	PlanOwn bool `json:"plan_own"` // false: the provider's plan, as it changes
}

func newClientOrgView(o store.Org) clientOrgView { return clientOrgView{newOrgView(o), o.PlanOwn} }

// createClient makes a client organization under the caller's, with its
// first admin's invitation (its token shown this once).
func (a *API) createClient(w http.ResponseWriter, r *http.Request) error {
	var req createClientRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	c, err := a.Accounts.CreateClient(r.Context(), principalFrom(r.Context()).Credential,
		account.NewClient{Name: req.Name, Plan: req.Plan, AdminEmail: req.AdminEmail})
	if err != nil {
		return err
	}
	auditTarget(r, c.Client.ID)
	auditDetail(r, "name", c.Client.Name)
	out := struct {
		clientOrgView
		Invite *inviteView `json:"admin_invite"`
	}{clientOrgView: newClientOrgView(c.Client)}
	if c.Invite != nil {
		auditDetail(r, "admin", c.Invite.Email)
		v := a.newInviteView(*c.Invite)
		v.Token = c.InviteToken
		out.Invite = &v
	}
	writeData(w, http.StatusCreated, out)
	return nil
}

type completionView struct {
	Framework            string `json:"framework"`
	CompletionPercentage int    `json:"completion_percentage"`
	AuditedAt            string `json:"audited_at"`
}

type ticketCountsView struct {
	Open      int `json:"open"`
	Escalated int `json:"escalated"`
}

type fleetRowView struct {
	clientOrgView
	Score             int              `json:"score"`
	Grade             string           `json:"grade"`
	ScoreComputedAt   string           `json:"score_computed_at"`
	RiskTrend         []int            `json:"risk_trend"`
	OpenAlerts        map[string]int   `json:"open_alerts"`
	OpenAlertsTotal   int              `json:"open_alerts_total"`
	OldestCriticalAge *int64           `json:"oldest_open_critical_age_seconds"`
	LastEventAt       *string          `json:"last_event_at"`
	Silent            bool             `json:"silent"`
	Compliance        []completionView `json:"compliance"`
	KEVAffectedAssets int              `json:"kev_affected_assets"`
	KEVCVEs           int              `json:"kev_cves"`
	Tickets           ticketCountsView `json:"tickets"`
}

func newFleetRowView(r fleet.Row) fleetRowView {
	v := fleetRowView{clientOrgView: newClientOrgView(r.Client), Score: r.Score, Grade: r.Grade, ScoreComputedAt: timestamp.Format(r.ScoredAt),
		RiskTrend: r.RiskTrend, OpenAlerts: r.OpenAlerts.ByName(), OpenAlertsTotal: r.OpenAlerts.Total(),
		LastEventAt: timestamp.Optional(r.LastEvent), Silent: r.Silent, Compliance: []completionView{},
		KEVAffectedAssets: r.KEVAssets, KEVCVEs: r.KEVCVEs, Tickets: ticketCountsView{r.OpenTickets, r.Escalated}}
	if v.RiskTrend == nil {
		v.RiskTrend = []int{}
	}
	if r.OldestCritical != nil {
		s := int64(*r.OldestCritical / time.Second)
		v.OldestCriticalAge = &s
	}
	for _, c := range r.Compliance {
		v.Compliance = append(v.Compliance, completionView{c.Framework, c.Percentage, timestamp.Format(c.AuditedAt)})
	}
	return v
}

// listClients is the fleet view: every client the caller reaches, worst
// first unless sorted otherwise.
func (a *API) listClients(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	rows, total, err := a.Fleet.List(r.Context(), principalFrom(r.Context()).Credential,
		fleet.Query{Sort: q.Get("sort"), Grade: q.Get("grade"), Silent: q.Get("silent"), Search: q.Get("q"), Page: page})
	if err != nil {
		return err
	}
	writeList(w, mapSlice(rows, newFleetRowView), total, page)
	return nil
}

func (a *API) getClient(w http.ResponseWriter, r *http.Request) error {
	row, err := a.Fleet.Get(r.Context(), principalFrom(r.Context()).Credential, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newFleetRowView(row))
	return nil
}

type renameRequest struct {
	Name string `json:"name"`
}

func (a *API) patchClient(w http.ResponseWriter, r *http.Request) error {
	var req renameRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	c, err := a.Accounts.RenameClient(r.Context(), principalFrom(r.Context()).Credential, r.PathValue("id"), req.Name)
	if err != nil {
		return err
	}
	auditDetail(r, "name", c.Name)
	writeData(w, http.StatusOK, newClientOrgView(c))
	return nil
}

// deleteClient offboards a client as DELETE /org deletes an organization.
func (a *API) deleteClient(w http.ResponseWriter, r *http.Request) error {
	var req deleteOrgRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	deleted, err := a.Accounts.DeleteClient(r.Context(), principalFrom(r.Context()).Credential, r.PathValue("id"), req.Confirm)
	if err != nil {
		return err
	}
	a.Fleet.Forget(deleted.ID)
	auditDetail(r, "name", deleted.Name)
	writeData(w, http.StatusOK, map[string]any{"id": deleted.ID, "name": deleted.Name, "deleted": true})
	return nil
}

type clientRefView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type fleetAlertView struct {
	alertView
	Client clientRefView `json:"client"`
}

// clientAlerts is one alert queue across the clients the caller reaches.
func (a *API) clientAlerts(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	alerts, total, err := a.Fleet.Alerts(r.Context(), principalFrom(r.Context()).Credential,
		alerting.Query{Status: q.Get("status"), Severity: q.Get("severity"), Limit: page.Limit, Offset: page.Offset})
	if err != nil {
		return err
	}
	writeList(w, mapSlice(alerts, func(al fleet.Alert) fleetAlertView {
		return fleetAlertView{newAlertView(al.Alert), clientRefView{al.Client.ID, al.Client.Name}}
	}), total, page)
	return nil
}

type memberClientsRequest struct {
	ClientIDs []string `json:"client_ids"`
}

type memberClientsView struct {
	UserID    string   `json:"user_id"`
	ClientIDs []string `json:"client_ids"`
	All       bool     `json:"all_clients"` // every client, whatever ids are listed
}

// setMemberClients assigns a provider's admin or technician the clients
// they reach (an empty list: all of them).
func (a *API) setMemberClients(w http.ResponseWriter, r *http.Request) error {
	var req memberClientsRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	p := principalFrom(r.Context())
	id := r.PathValue("id")
	if err := a.Accounts.AssignClients(r.Context(), p.Credential, id, req.ClientIDs); err != nil {
		return err
	}
	auditDetail(r, "client_ids", strings.Join(req.ClientIDs, ","))
	return a.writeMemberClients(w, r, id)
}

func (a *API) getMemberClients(w http.ResponseWriter, r *http.Request) error {
	return a.writeMemberClients(w, r, r.PathValue("id"))
}

func (a *API) writeMemberClients(w http.ResponseWriter, r *http.Request, userID string) error {
	all, ids, err := a.Accounts.AssignedClients(r.Context(), principalFrom(r.Context()).Credential, userID)
	if err != nil {
		return err
	}
	if ids == nil {
		ids = []string{}
	}
	writeData(w, http.StatusOK, memberClientsView{UserID: userID, ClientIDs: ids, All: all})
	return nil
}

type switchOrgRequest struct {
	OrgID string `json:"org_id"`
}

// switchOrg answers a session token acting in another organization.
func (a *API) switchOrg(w http.ResponseWriter, r *http.Request) error {
	var req switchOrgRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	u, tok, err := a.Accounts.SwitchOrg(r.Context(), principalFrom(r.Context()).Credential, req.OrgID)
	if err != nil {
		return err
	}
	auditDetail(r, "org_id", u.OrgID)
	return a.writeToken(w, r, http.StatusOK, u, tok)
}

// convertLead makes a won lead a client organization.
func (a *API) convertLead(w http.ResponseWriter, r *http.Request) error {
	c, err := outreach.Convert(r.Context(), a.Store, principalFrom(r.Context()).Credential, r.PathValue("id"))
	if err != nil {
		return err
	}
	auditDetail(r, "client", c.ID)
	auditDetail(r, "name", c.Name)
	writeData(w, http.StatusCreated, newClientOrgView(c))
	return nil
}

// exposureView is which clients a CVE affects.
type exposureView struct {
	CVEID           string               `json:"cve_id"`
	ClientsAffected int                  `json:"clients_affected"`
	AssetsAffected  int                  `json:"assets_affected"`
	Clients         []clientExposureView `json:"clients"`
}

type clientExposureView struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Findings []findingView `json:"findings"`
}

func (a *API) clientExposure(w http.ResponseWriter, r *http.Request) error {
	cveID, _ := queryValue(r, "cve_id")
	ex, err := a.Fleet.Exposure(r.Context(), principalFrom(r.Context()).Credential, cveID)
	if err != nil {
		return err
	}
	v := exposureView{CVEID: ex.CVEID, ClientsAffected: len(ex.Clients), Clients: []clientExposureView{}}
	assets := map[string]bool{}
	for _, c := range ex.Clients {
		for _, f := range c.Findings {
			assets[f.AssetID] = true
		}
		v.Clients = append(v.Clients, clientExposureView{ID: c.Client.ID, Name: c.Client.Name, Findings: mapSlice(c.Findings, newFindingView)})
	}
	v.AssetsAffected = len(assets)
	writeData(w, http.StatusOK, v)
	return nil
}
