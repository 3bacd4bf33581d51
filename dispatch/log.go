package dispatch

import (
	"context"
	"slices"

	"garrison/actor"
	"garrison/store"
	"garrison/valid"
)

// DeliveryQuery selects deliveries of the log as a request gives them.
type DeliveryQuery struct {
	Channel, Alert, Status string
	store.Page
}

// Deliveries is a page of the organization's delivery log, newest first:
// every message to its contact points with its attempts and last answer.
func (d *Dispatcher) Deliveries(ctx context.Context, who actor.Actor, q DeliveryQuery) ([]store.Delivery, int, error) {
	statuses := []string{store.DeliveryPending, store.DeliveryDelivered, store.DeliveryFailed}
	if q.Status != "" && !slices.Contains(statuses, q.Status) {
		return nil, 0, valid.Field("status", "must be pending, delivered or failed")
	}
	return d.cfg.Store.Deliveries(ctx, store.DeliveryFilter{OrgID: who.OrgID, ChannelID: q.Channel, AlertID: q.Alert, Status: q.Status, Page: q.Page})
}
