package handlers

import (
	"net/http"

	"garrison/notify"
	"garrison/store"
	"garrison/timestamp"
)

type notificationView struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Title     string `json:"title"`
	Body      string `json:"body"`
	Ref       string `json:"ref"`
	Audience  string `json:"audience"`
	Read      bool   `json:"read"`
	CreatedAt string `json:"created_at"`
}

func newNotificationView(n store.Notification) notificationView {
	return notificationView{n.ID, n.Kind, n.Title, n.Body, n.Ref, n.Audience, n.Read, timestamp.Format(n.CreatedAt)}
}

// notificationQuery is what the caller may read (store.NotificationQuery).
func notificationQuery(p Principal) store.NotificationQuery {
	return store.NotificationQuery{Reader: p.Actor}
}

func (a *API) listNotifications(w http.ResponseWriter, r *http.Request) error {
	page, err := parsePage(r)
	if err != nil {
		return err
	}
	unread, err := boolParam(r, "unread")
	if err != nil {
		return err
	}
	list, total, err := notify.List(r.Context(), a.Store, principalFrom(r.Context()).Actor, unread, page)
	if err != nil {
		return err
	}
	writeList(w, mapSlice(list, newNotificationView), total, page)
	return nil
}

func (a *API) readNotification(w http.ResponseWriter, r *http.Request) error {
	if err := decode(r, &struct{}{}); err != nil {
		return err
	}
	n, err := notify.MarkRead(r.Context(), a.Store, principalFrom(r.Context()).Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, newNotificationView(n))
	return nil
}
