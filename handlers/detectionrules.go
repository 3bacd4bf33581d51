package handlers

import (
	"net/http"

	"garrison/detection"
	"garrison/timestamp"
	"garrison/valid"
)

// detectionRuleView is a rule with its attribution, which the Detection
// Rule License asks to keep wherever a rule is shown.
type detectionRuleView struct {
	ID             string   `json:"id"`
	Title          string   `json:"title"`
	Description    string   `json:"description"`
	Author         string   `json:"author"`
	Level          string   `json:"level"`
	Status         string   `json:"status"`
	Tags           []string `json:"tags"`
	FalsePositives []string `json:"falsepositives"`
	References     []string `json:"references"`
	Logsource      any      `json:"logsource"`
	Set            string   `json:"set"`
	Origin         string   `json:"origin"`
	Link           *string  `json:"link"`
	License        *string  `json:"license"`
	Enabled        bool     `json:"enabled"`
	EnabledBy      string   `json:"enabled_by"`
	Owner          *string  `json:"owner_org_id"`
	CreatedBy      *string  `json:"created_by"`
	CreatedAt      *string  `json:"created_at"`
	YAML           *string  `json:"yaml,omitempty"`
}

func newDetectionRuleView(r detection.RuleState) detectionRuleView {
	v := detectionRuleView{ID: r.ID, Title: r.Title, Description: r.Description, Author: r.Author, Level: r.Level,
		Status: r.Status, Tags: nonNil(r.Tags), FalsePositives: nonNil(r.FalsePositives), References: nonNil(r.References),
		Logsource: r.Logsource, Set: r.Set, Origin: detection.OriginShipped, Enabled: r.Enabled, EnabledBy: r.From}
	if c := r.Custom; c != nil {
		v.Origin, v.Owner, v.CreatedBy = detection.OriginCustom, &c.OrgID, &c.CreatedBy
		at := timestamp.Format(c.CreatedAt)
		v.CreatedAt = &at
	} else {
		license := detection.License
		v.Link, v.License = &r.Link, &license
	}
	return v
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

type detectionSetView struct {
	Name      string `json:"name"`
	Rules     int    `json:"rules"`
	Enabled   bool   `json:"enabled"`
	EnabledBy string `json:"enabled_by"`
}

func newDetectionSetView(s detection.SetState) detectionSetView {
	return detectionSetView{Name: s.Name, Rules: s.Rules, Enabled: s.Enabled, EnabledBy: s.From}
}

func (a *API) listDetectionRules(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	query := detection.Query{Set: q.Get("set"), Level: q.Get("level"), Origin: q.Get("origin"), Text: q.Get("q"),
		Limit: page.Limit, Offset: page.Offset}
	if q.Has("enabled") {
		on, err := boolParam(r, "enabled")
		if err != nil {
			return err
		}
		query.Enabled = &on
	}
	rules, total, err := a.Detection.List(r.Context(), principalFrom(r.Context()).Actor, query)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(rules, newDetectionRuleView), total, page)
	return nil
}

func (a *API) getDetectionRule(w http.ResponseWriter, r *http.Request) error {
	rule, text, err := a.Detection.Get(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	v := newDetectionRuleView(rule)
	yaml := string(text)
	v.YAML = &yaml
	writeData(w, http.StatusOK, v)
	return nil
}

// decodeChoice reads {"enabled": true|false|null}: null forgets the
// organization's choice (its provider's, or the default, applies).
func decodeChoice(r *http.Request) (*bool, error) {
	var req map[string]*bool
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	on, ok := req["enabled"]
	if !ok || len(req) != 1 {
		return nil, valid.Field("enabled", "is required: true, false, or null to follow the provider's choice or the default")
	}
	return on, nil
}

func (a *API) listDetectionSets(w http.ResponseWriter, r *http.Request) error {
	sets, err := a.Detection.Sets(r.Context(), principalFrom(r.Context()).Actor)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, mapSlice(sets, newDetectionSetView))
	return nil
}

func (a *API) chooseDetectionSet(w http.ResponseWriter, r *http.Request) error {
	on, err := decodeChoice(r)
	if err != nil {
		return err
	}
	set, err := a.Detection.ChooseSet(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("set"), on)
	if err != nil {
		return err
	}
	auditTarget(r, set.Name)
	auditDetail(r, "enabled", choiceText(on))
	writeData(w, http.StatusOK, newDetectionSetView(set))
	return nil
}

func (a *API) chooseDetectionRule(w http.ResponseWriter, r *http.Request) error {
	on, err := decodeChoice(r)
	if err != nil {
		return err
	}
	rule, err := a.Detection.ChooseRule(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id"), on)
	if err != nil {
		return err
	}
	auditTarget(r, rule.ID)
	auditDetail(r, "enabled", choiceText(on))
	writeData(w, http.StatusOK, newDetectionRuleView(rule))
	return nil
}

func choiceText(on *bool) string {
	switch {
	case on == nil:
		return "inherited"
	case *on:
		return "true"
	}
	return "false"
}

type customRuleRequest struct {
	YAML string `json:"yaml"`
}

func (a *API) createDetectionRule(w http.ResponseWriter, r *http.Request) error {
	var req customRuleRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	rule, err := a.Detection.AddRule(r.Context(), principalFrom(r.Context()).Actor, req.YAML)
	if err != nil {
		return err
	}
	auditTarget(r, rule.ID)
	auditDetail(r, "title", rule.Title)
	v := newDetectionRuleView(rule)
	v.YAML = &req.YAML
	writeData(w, http.StatusCreated, v)
	return nil
}

func (a *API) deleteDetectionRule(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := a.Detection.DeleteRule(r.Context(), principalFrom(r.Context()).Actor, id); err != nil {
		return err
	}
	auditTarget(r, id)
	writeData(w, http.StatusOK, map[string]string{"id": id})
	return nil
}
