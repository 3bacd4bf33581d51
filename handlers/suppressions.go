package handlers

import (
	"net/http"

	"garrison/alerting"
	"garrison/timestamp"
	"garrison/valid"
)

type suppressionRequest struct {
	Signature string `json:"signature"`
	Asset     string `json:"asset"`
	Indicator string `json:"indicator"`
	Source    string `json:"source"`
	Duration  string `json:"duration"`
	Reason    string `json:"reason"`
}

type suppressionView struct {
	ID        string  `json:"id"`
	Signature *string `json:"signature"`
	Asset     *string `json:"asset"`
	Indicator *string `json:"indicator"`
	Source    *string `json:"source"`
	Reason    string  `json:"reason"`
	CreatedBy string  `json:"created_by"`
	CreatedAt string  `json:"created_at"`
	ExpiresAt string  `json:"expires_at"`
	EndedAt   *string `json:"ended_at"`
	Active    bool    `json:"active"`
	Hits      int64   `json:"suppressed_events"`
}

func (a *API) newSuppressionView(s alerting.Suppression) suppressionView {
	return suppressionView{ID: s.ID, Signature: optString(s.Signature), Asset: optString(s.Asset), Indicator: optString(s.Indicator),
		Source: optString(s.Source), Reason: s.Reason, CreatedBy: s.CreatedBy, CreatedAt: timestamp.Format(s.CreatedAt),
		ExpiresAt: timestamp.Format(s.ExpiresAt), EndedAt: timestamp.Optional(s.EndedAt), Active: s.Active(a.Now()), Hits: s.Hits}
}

func (a *API) listSuppressions(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	list, total, err := a.Store.Suppressions(r.Context(), principalFrom(r.Context()).OrgID, page.Limit, page.Offset)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(list, a.newSuppressionView), total, page)
	return nil
}

func (a *API) getSuppression(w http.ResponseWriter, r *http.Request) error {
	s, err := a.Store.Suppression(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, a.newSuppressionView(s))
	return nil
}

func (a *API) createSuppression(w http.ResponseWriter, r *http.Request) error {
	var req suppressionRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	period, ok := alerting.ParsePeriod(req.Duration)
	if !ok {
		return valid.Field("duration", "must be a period such as 90m, 8h or 7d")
	}
	s, err := alerting.Suppress(r.Context(), a.Store, principalFrom(r.Context()).Actor, alerting.NewSuppression{Signature: req.Signature,
		Asset: req.Asset, Indicator: req.Indicator, Source: req.Source, Reason: req.Reason, For: period}, a.Now())
	if err != nil {
		return err
	}
	auditTarget(r, s.ID)
	auditDetail(r, "reason", s.Reason)
	auditDetail(r, "expires_at", timestamp.Format(s.ExpiresAt))
	writeData(w, http.StatusCreated, a.newSuppressionView(s))
	return nil
}

func (a *API) endSuppression(w http.ResponseWriter, r *http.Request) error {
	s, err := a.Store.EndSuppression(r.Context(), principalFrom(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, a.newSuppressionView(s))
	return nil
}
