package handlers

import (
	"net/http"

	"garrison/dispatch"
	"garrison/store"
	"garrison/timestamp"
)

type quietHoursJSON struct {
	Start    string `json:"start"`
	End      string `json:"end"`
	Timezone string `json:"timezone"`
}

type escalationJSON struct {
	AfterMinutes *int     `json:"after_minutes"`
	Max          *int     `json:"max"`
	Channels     []string `json:"channels"`
}

type ruleRequest struct {
	Name              string          `json:"name"`
	Enabled           *bool           `json:"enabled"`
	MinSeverity       string          `json:"min_severity"`
	Categories        []string        `json:"categories"`
	EventTypes        []string        `json:"event_types"`
	Clients           []string        `json:"clients"`
	Assets            []string        `json:"assets"`
	Sources           []string        `json:"sources"`
	Channels          []string        `json:"channels"`
	QuietHours        *quietHoursJSON `json:"quiet_hours"`
	GroupSeconds      int             `json:"group_seconds"`
	Escalation        *escalationJSON `json:"escalation"`
	OverridesProvider bool            `json:"overrides_provider"`
}

func (q ruleRequest) input() dispatch.RuleInput {
	in := dispatch.RuleInput{Name: q.Name, Enabled: q.Enabled, MinSeverity: q.MinSeverity, Categories: q.Categories,
		EventTypes: q.EventTypes, Clients: q.Clients, Assets: q.Assets, Sources: q.Sources, Channels: q.Channels,
		GroupSeconds: q.GroupSeconds, OverridesProvider: q.OverridesProvider}
	if q.QuietHours != nil {
		in.QuietStart, in.QuietEnd, in.QuietZone = q.QuietHours.Start, q.QuietHours.End, q.QuietHours.Timezone
	}
	if e := q.Escalation; e != nil {
		in.EscalateMinutes, in.EscalateMax, in.EscalationChannels = e.AfterMinutes, e.Max, e.Channels
	}
	return in
}

type ruleView struct {
	ID                string          `json:"id"`
	Name              string          `json:"name"`
	Enabled           bool            `json:"enabled"`
	MinSeverity       string          `json:"min_severity"`
	Categories        []string        `json:"categories"`
	EventTypes        []string        `json:"event_types"`
	Clients           []string        `json:"clients"`
	Assets            []string        `json:"assets"`
	Sources           []string        `json:"sources"`
	Channels          []string        `json:"channels"`
	QuietHours        *quietHoursJSON `json:"quiet_hours"`
	GroupSeconds      int             `json:"group_seconds"`
	Escalation        escalationJSON  `json:"escalation"`
	OverridesProvider bool            `json:"overrides_provider"`
	CreatedAt         string          `json:"created_at"`
	UpdatedAt         string          `json:"updated_at"`
}

func newRuleView(r store.NotifyRule) ruleView {
	list := func(v []string) []string {
		if v == nil {
			return []string{}
		}
		return v
	}
	after, most := r.EscalateMinutes, r.EscalateMax
	v := ruleView{ID: r.ID, Name: r.Name, Enabled: r.Enabled, MinSeverity: r.MinSeverity.String(), Categories: list(r.Categories),
		EventTypes: list(r.EventTypes), Clients: list(r.Clients), Assets: list(r.Assets), Sources: list(r.Sources),
		Channels: list(r.Channels), GroupSeconds: r.GroupSeconds, OverridesProvider: r.OverridesProvider,
		Escalation: escalationJSON{AfterMinutes: &after, Max: &most, Channels: list(r.EscalationChannels)},
		CreatedAt:  timestamp.Format(r.CreatedAt), UpdatedAt: timestamp.Format(r.UpdatedAt)}
	if r.QuietStart != nil && r.QuietEnd != nil {
		v.QuietHours = &quietHoursJSON{Start: dispatch.Clock(*r.QuietStart), End: dispatch.Clock(*r.QuietEnd), Timezone: r.QuietZone}
	}
	return v
}

func (a *API) listRules(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Dispatch.Rules(r.Context(), principalFrom(r.Context()).Actor)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, mapSlice(list, newRuleView))
	return nil
}

func (a *API) getRule(w http.ResponseWriter, r *http.Request) error {
	rule, err := a.Dispatch.Rule(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newRuleView(rule))
	return nil
}

func (a *API) createRule(w http.ResponseWriter, r *http.Request) error {
	var req ruleRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	rule, err := a.Dispatch.CreateRule(r.Context(), principalFrom(r.Context()).Actor, req.input())
	if err != nil {
		return err
	}
	auditTarget(r, rule.ID)
	auditDetail(r, "name", rule.Name)
	writeData(w, http.StatusCreated, newRuleView(rule))
	return nil
}

func (a *API) updateRule(w http.ResponseWriter, r *http.Request) error {
	var req ruleRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	rule, err := a.Dispatch.UpdateRule(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id"), req.input())
	if err != nil {
		return err
	}
	auditDetail(r, "name", rule.Name)
	writeData(w, http.StatusOK, newRuleView(rule))
	return nil
}

func (a *API) deleteRule(w http.ResponseWriter, r *http.Request) error {
	if err := a.Dispatch.DeleteRule(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id")); err != nil {
		return err
	}
	writeData(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
	return nil
}

type deliveryView struct {
	ID          string  `json:"id"`
	ChannelID   string  `json:"channel_id"`
	Channel     string  `json:"channel"`
	Kind        string  `json:"kind"`
	Recipient   string  `json:"recipient"`
	Event       string  `json:"event"`
	AlertID     *string `json:"alert_id"`
	AlertTitle  *string `json:"alert_title"`
	RuleID      *string `json:"rule_id"`
	Rule        *string `json:"rule"`
	Status      string  `json:"status"`
	Attempts    int     `json:"attempts"`
	LastStatus  *int    `json:"last_status"`
	LastError   *string `json:"last_error"`
	NextAt      *string `json:"next_attempt_at"`
	CreatedAt   string  `json:"created_at"`
	DeliveredAt *string `json:"delivered_at"`
}

func newDeliveryView(d store.Delivery) deliveryView {
	v := deliveryView{ID: d.ID, ChannelID: d.ChannelID, Channel: d.ChannelName, Kind: d.ChannelKind, Recipient: d.Recipient,
		Event: d.Event, AlertID: optString(d.AlertID), AlertTitle: optString(d.AlertTitle), RuleID: optString(d.RuleID),
		Rule: optString(d.RuleName), Status: d.Status, Attempts: d.Attempts,
		LastError: optString(d.LastError), CreatedAt: timestamp.Format(d.CreatedAt), DeliveredAt: timestamp.Optional(d.DeliveredAt)}
	if d.LastStatus != 0 {
		v.LastStatus = &d.LastStatus
	}
	if d.Status == store.DeliveryPending {
		v.NextAt = timestamp.Optional(&d.NextAt)
	}
	return v
}

func (a *API) listDeliveries(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	q := dispatch.DeliveryQuery{Page: page}
	q.Channel, _ = queryValue(r, "channel_id")
	q.Alert, _ = queryValue(r, "alert_id")
	q.Status, _ = queryValue(r, "status")
	list, total, err := a.Dispatch.Deliveries(r.Context(), principalFrom(r.Context()).Actor, q)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(list, newDeliveryView), total, page)
	return nil
}
