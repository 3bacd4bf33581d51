// Package notify is the in-app notifications of an organization: what a
// reader may read (the organization's, their own, and the admins' when
// they see the whole organization; store.NotificationQuery) and their read
// marks.
package notify

import (
	"context"

	"garrison/actor"
	"garrison/store"
)

// List is a page of the notifications who may read, newest first; unread
// keeps those who has not read.
func List(ctx context.Context, st *store.Store, who actor.Actor, unread bool, p store.Page) ([]store.Notification, int, error) {
	return st.Notifications(ctx, store.NotificationQuery{Reader: who, Unread: unread}, p)
}

// MarkRead records that who read a notification it may read; reading it
// twice keeps the first time.
func MarkRead(ctx context.Context, st *store.Store, who actor.Actor, id string) (store.Notification, error) {
	return st.MarkNotificationRead(ctx, store.NotificationQuery{Reader: who}, id)
}
