package handlers

import (
	"net/http"

	"garrison/dispatch"
	"garrison/store"
	"garrison/timestamp"
)

type channelRequest struct {
	Name         string   `json:"name"`
	Kind         string   `json:"kind"`
	URL          string   `json:"url"`
	Addresses    []string `json:"addresses"`
	Roles        []string `json:"roles"`
	RoutingKey   string   `json:"routing_key"`
	RotateSecret bool     `json:"rotate_secret"`
}

// channelPatch is a PATCH body: the fields given change, the others stay.
type channelPatch struct {
	Name         *string   `json:"name"`
	Kind         *string   `json:"kind"`
	URL          *string   `json:"url"`
	Addresses    *[]string `json:"addresses"`
	Roles        *[]string `json:"roles"`
	RoutingKey   *string   `json:"routing_key"`
	RotateSecret bool      `json:"rotate_secret"`
}

func (c channelRequest) input() dispatch.ChannelInput {
	return dispatch.ChannelInput{Name: c.Name, Kind: c.Kind, URL: c.URL, Addresses: c.Addresses, Roles: c.Roles,
		RoutingKey: c.RoutingKey, RotateSecret: c.RotateSecret}
}

// channelView is a contact point without its secret: HasSecret says one
// is set, and Secret appears only in the answer that made it.
type channelView struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Kind          string   `json:"kind"`
	URL           string   `json:"url"`
	Addresses     []string `json:"addresses"`
	Roles         []string `json:"roles"`
	HasSecret     bool     `json:"has_secret"`
	Secret        string   `json:"secret,omitempty"`
	FailingSince  *string  `json:"failing_since"`
	LastSuccessAt *string  `json:"last_success_at"`
	CreatedAt     string   `json:"created_at"`
	UpdatedAt     string   `json:"updated_at"`
}

func newChannelView(c store.NotifyChannel) channelView {
	list := func(v []string) []string {
		if v == nil {
			return []string{}
		}
		return v
	}
	return channelView{ID: c.ID, Name: c.Name, Kind: c.Kind, URL: dispatch.MaskURL(c.URL), Addresses: list(c.Addresses), Roles: list(c.Roles),
		HasSecret: c.Secret != "", FailingSince: timestamp.Optional(c.FailingSince), LastSuccessAt: timestamp.Optional(c.LastSuccessAt),
		CreatedAt: timestamp.Format(c.CreatedAt), UpdatedAt: timestamp.Format(c.UpdatedAt)}
}

func (a *API) listChannels(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Dispatch.Channels(r.Context(), principalFrom(r.Context()).Actor)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, mapSlice(list, newChannelView))
	return nil
}

func (a *API) getChannel(w http.ResponseWriter, r *http.Request) error {
	c, err := a.Dispatch.Channel(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newChannelView(c))
	return nil
}

func (a *API) createChannel(w http.ResponseWriter, r *http.Request) error {
	var req channelRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	c, secret, err := a.Dispatch.CreateChannel(r.Context(), principalFrom(r.Context()).Actor, req.input())
	if err != nil {
		return err
	}
	auditTarget(r, c.ID)
	auditDetail(r, "name", c.Name)
	auditDetail(r, "kind", c.Kind)
	v := newChannelView(c)
	v.Secret = secret
	writeData(w, http.StatusCreated, v)
	return nil
}

func (a *API) updateChannel(w http.ResponseWriter, r *http.Request) error {
	var req channelPatch
	if err := decode(r, &req); err != nil {
		return err
	}
	c, secret, err := a.Dispatch.UpdateChannel(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id"), dispatch.ChannelPatch{Name: req.Name,
		Kind: req.Kind, URL: req.URL, RoutingKey: req.RoutingKey, Addresses: req.Addresses, Roles: req.Roles, RotateSecret: req.RotateSecret})
	if err != nil {
		return err
	}
	auditDetail(r, "name", c.Name)
	if secret != "" {
		auditDetail(r, "secret", "rotated")
	}
	v := newChannelView(c)
	v.Secret = secret
	writeData(w, http.StatusOK, v)
	return nil
}

func (a *API) deleteChannel(w http.ResponseWriter, r *http.Request) error {
	if err := a.Dispatch.DeleteChannel(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id")); err != nil {
		return err
	}
	writeData(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
	return nil
}

type channelTestView struct {
	Receiver  string `json:"receiver"`
	Delivered bool   `json:"delivered"`
	Status    int    `json:"status"`
	Answer    string `json:"answer"`
	Error     string `json:"error"`
}

func (a *API) testChannel(w http.ResponseWriter, r *http.Request) error {
	if err := decode(r, &struct{}{}); err != nil {
		return err
	}
	results, err := a.Dispatch.TestChannel(r.Context(), principalFrom(r.Context()).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, map[string]any{"results": mapSlice(results, func(t dispatch.TestResult) channelTestView {
		return channelTestView(t)
	})})
	return nil
}
