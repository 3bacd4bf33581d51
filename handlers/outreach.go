package handlers

import (
	"encoding/json"
	"net/http"
	"strconv"

	"garrison/outreach"
	"garrison/store"
	"garrison/timestamp"
	"garrison/valid"
)

// outreachPlan refuses every outreach endpoint below the Pro plan; the plan
// is the one the request's credential carries, read fresh per request.
func outreachPlan(r *http.Request) (Principal, error) {
	p := principalFrom(r.Context())
	return p, outreach.Permit(p.OrgKind, p.Plan)
}

type importProspectsView struct {
	Rows      int `json:"rows"`
	Created   int `json:"created"`
	Merged    int `json:"merged"`
	Unchanged int `json:"unchanged"`
}

func (a *API) importProspects(w http.ResponseWriter, r *http.Request) error {
	p, err := outreachPlan(r)
	if err != nil {
		return err
	}
	body, err := readBodyAs(r, "application/json", "text/csv")
	if err != nil {
		return err
	}
	res, err := outreach.Import(r.Context(), a.Store, p.OrgID, p.ID, r.Header.Get("Content-Type"), body)
	if err != nil {
		return err
	}
	for k, v := range map[string]int{"rows": res.Rows, "created": res.Created, "merged": res.Merged, "unchanged": res.Unchanged} {
		auditDetail(r, k, strconv.Itoa(v))
	}
	status := http.StatusOK
	if res.Created > 0 {
		status = http.StatusCreated
	}
	writeData(w, status, importProspectsView{Rows: res.Rows, Created: res.Created, Merged: res.Merged, Unchanged: res.Unchanged})
	return nil
}

type prospectView struct {
	ID           string            `json:"id"`
	Company      string            `json:"company"`
	Domain       string            `json:"domain"`
	Vertical     string            `json:"vertical"`
	Region       string            `json:"region"`
	Employees    *int              `json:"employees"`
	ContactName  string            `json:"contact_name"`
	ContactEmail string            `json:"contact_email"`
	ContactPhone string            `json:"contact_phone"`
	Notes        string            `json:"notes"`
	Attributes   map[string]string `json:"attributes"`
	CreatedAt    string            `json:"created_at"`
	UpdatedAt    string            `json:"updated_at"`
}

func newProspectView(p store.Prospect) prospectView {
	attrs := p.Attributes
	if attrs == nil {
		attrs = map[string]string{}
	}
	return prospectView{p.ID, p.Company, p.Domain, p.Vertical, p.Region, p.Employees, p.ContactName, p.ContactEmail, p.ContactPhone,
		p.Notes, attrs, timestamp.Format(p.CreatedAt), timestamp.Format(p.UpdatedAt)}
}

func (a *API) listProspects(w http.ResponseWriter, r *http.Request) error {
	p, err := outreachPlan(r)
	if err != nil {
		return err
	}
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	list, total, err := outreach.Prospects(r.Context(), a.Store, p.OrgID, page)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(list, newProspectView), total, page)
	return nil
}

type leadContact struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Phone string `json:"phone"`
}

type leadHistoryView struct {
	Kind  string  `json:"kind"`
	From  *string `json:"from"`
	To    *string `json:"to"`
	Note  string  `json:"note"`
	Actor string  `json:"actor"`
	At    string  `json:"at"`
}

type leadView struct {
	ID                  string            `json:"id"`
	ProspectID          string            `json:"prospect_id"`
	Company             string            `json:"company"`
	Domain              string            `json:"domain"`
	Vertical            string            `json:"vertical"`
	Region              string            `json:"region"`
	Employees           *int              `json:"employees"`
	Contact             leadContact       `json:"contact"`
	Status              string            `json:"status"`
	Score               int               `json:"score"`
	ScoreReasons        json.RawMessage   `json:"score_reasons"`
	IntelligenceSummary string            `json:"intelligence_summary"`
	SummarySource       string            `json:"summary_source"`
	RunID               string            `json:"agent_run_id"`
	CreatedAt           string            `json:"created_at"`
	UpdatedAt           string            `json:"updated_at"`
	History             []leadHistoryView `json:"history,omitempty"`
}

func newLeadView(l store.Lead) leadView {
	p := l.Prospect
	v := leadView{ID: l.ID, ProspectID: l.ProspectID, Company: p.Company, Domain: p.Domain, Vertical: p.Vertical, Region: p.Region,
		Employees: p.Employees, Contact: leadContact{p.ContactName, p.ContactEmail, p.ContactPhone}, Status: l.Status, Score: l.Score,
		ScoreReasons: l.ScoreReasons, IntelligenceSummary: l.Summary, SummarySource: l.SummarySource, RunID: l.RunID,
		CreatedAt: timestamp.Format(l.CreatedAt), UpdatedAt: timestamp.Format(l.UpdatedAt)}
	if l.History != nil {
		v.History = mapSlice(l.History, func(c store.LeadChange) leadHistoryView {
			return leadHistoryView{c.Kind, c.From, c.To, c.Note, c.Actor, timestamp.Format(c.At)}
		})
	}
	return v
}

func (a *API) listLeads(w http.ResponseWriter, r *http.Request) error {
	p, err := outreachPlan(r)
	if err != nil {
		return err
	}
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	get := func(name string) string { v, _ := queryValue(r, name); return v }
	list, total, err := outreach.Leads(r.Context(), a.Store, p.OrgID, outreach.LeadFilter{Status: get("status"), MinScore: get("min_score"),
		Vertical: get("vertical"), Region: get("region"), Q: get("q"), Sort: get("sort")}, page)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(list, newLeadView), total, page)
	return nil
}

func (a *API) getLead(w http.ResponseWriter, r *http.Request) error {
	p, err := outreachPlan(r)
	if err != nil {
		return err
	}
	l, err := outreach.Lead(r.Context(), a.Store, p.OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newLeadView(l))
	return nil
}

type leadStatusRequest struct {
	Status *string `json:"status"`
	Note   *string `json:"note"`
}

func (a *API) setLeadStatus(w http.ResponseWriter, r *http.Request) error {
	p, err := outreachPlan(r)
	if err != nil {
		return err
	}
	var req leadStatusRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Status == nil {
		return valid.Field("status", "is required: one of new, contacted, responded, qualified, won, lost")
	}
	l, _, err := outreach.SetStatus(r.Context(), a.Store, p.OrgID, r.PathValue("id"), *req.Status, req.Note, p.ID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newLeadView(l))
	return nil
}
